import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { teamStoreSql } from '../../../../scripts/teamStoreSql';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { sampleConversation } from '../../../../src/core/storage/storageTestData';

/**
 * Row-level security through every operation of the team store: a person of team B tries each one on
 * team A's conversation and is refused or finds nothing, whatever ids and filters they pass; and team
 * A's conversation is afterwards exactly as it was. (The policies key on the connecting role, so this
 * holds for any client, not only Arbor.)
 */
/** What an operation gave, with the conversation id taken out of an error's message, to compare two. */
async function outcome(operation: Promise<unknown>): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await operation };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message.replace(/a-secret|no-such/g, 'ID')}` };
  }
}

describeWithPostgres('team store row-level security', (server) => {
  let alice: PostgresConversationStorage;
  let bob: PostgresConversationStorage;

  beforeAll(async () => {
    const db = await server().createDatabase();
    await server().psql(`${teamStoreSql()}
      CREATE ROLE team_a NOLOGIN; CREATE ROLE team_b NOLOGIN; GRANT arbor_users TO team_a, team_b;
      CREATE ROLE alice LOGIN; GRANT team_a TO alice;
      CREATE ROLE bob LOGIN; GRANT team_b TO bob;`, db);
    alice = await PostgresConversationStorage.open({ connectionString: server().url('alice', db) });
    bob = await PostgresConversationStorage.open({ connectionString: server().url('bob', db) });
    const secret = sampleConversation('a-secret', 5, { metadata: { project: 'apollo' } });
    secret.nodes[2].message.content = 'the launch code is needle-42';
    secret.nodes[2].metadata = { bookmarked: true };
    await alice.saveConversation(secret);
    await alice.recordFileChanges('a-secret', secret.nodes[2].nodeId, [{ path: 'src/plan.txt', before: null, after: new TextEncoder().encode('classified plan') }]);
    await bob.saveConversation(sampleConversation('b-own', 3, { metadata: { project: 'apollo' } }));
  }, 60_000);

  afterAll(async () => {
    await alice?.close();
    await bob?.close();
  });

  it('refuses or hides every operation on another team\'s conversation', async () => {
    const before = await alice.loadConversation('a-secret');
    expect(before?.nodes).toHaveLength(5);
    const hash = (await alice.fileChanges('a-secret', before?.nodes[2].nodeId ?? ''))[0]?.after?.hash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);

    // Read.
    expect(await bob.loadConversation('a-secret')).toBeNull();
    // The file reads fail as for a conversation that does not exist, in the same words.
    const node = before?.nodes[2].nodeId ?? '';
    for (const read of [(id: string) => bob.fileChanges(id, node), (id: string) => bob.fileChangesByNode(id), (id: string) => bob.filesStateAt(id, node), (id: string) => bob.nodeImages(id, node)]) {
      const secret = await outcome(read('a-secret'));
      expect(secret).toEqual(await outcome(read('no-such')));
      expect(secret).not.toHaveProperty('value', expect.anything());
    }
    expect(await bob.fileContent(hash ?? '')).toBeNull();
    // List and count (with and without the conversation's id and metadata as filters).
    expect((await bob.listConversations()).map((c) => c.conversationId)).toEqual(['b-own']);
    expect((await bob.listConversations({ filterMetadata: { project: 'apollo' } })).map((c) => c.conversationId)).toEqual(['b-own']);
    expect(await bob.countConversations({ conversationIds: ['a-secret'] })).toBe(0);
    // Search.
    expect(await bob.searchConversations({ contentContains: 'needle-42' })).toEqual([]);
    expect(await bob.searchConversations({ conversationIds: ['a-secret'] })).toEqual([]);
    expect(await bob.searchMessages('needle-42')).toEqual([]);
    expect(await bob.findMessages({ filterMetadata: { bookmarked: true } })).toEqual([]);
    // Fork.
    await expect(bob.forkConversation('a-secret', 'b-stolen')).rejects.toThrow();
    await expect(bob.forkConversation('a-secret', 'b-stolen', { upToNodeId: before?.nodes[2].nodeId })).rejects.toThrow();
    expect(await bob.loadConversation('b-stolen')).toBeNull();
    // Change.
    await expect(bob.updateMetadata('a-secret', { project: 'hijacked' })).rejects.toThrow();
    await expect(
      bob.applyChange('a-secret', { addNodes: [{ parentId: '', message: { role: 'user', content: 'injected' }, timestamp: new Date().toISOString(), metadata: {} }], updatedAt: new Date().toISOString() }),
    ).rejects.toThrow();
    await expect(bob.recordFileChanges('a-secret', before?.nodes[2].nodeId ?? '', [{ path: 'x.txt', before: null, after: new Uint8Array([1]) }])).rejects.toThrow();
    // Overwriting it by saving a conversation of the same id is refused (the id is taken), not a replacement.
    await expect(bob.saveConversation(sampleConversation('a-secret', 2))).rejects.toThrow();
    // Delete, one and in bulk.
    expect(await bob.deleteConversation('a-secret')).toBe(false);
    expect(await bob.deleteConversations({ conversationIds: ['a-secret'] })).toBe(0);
    expect(await bob.removeConversations({ filterMetadata: { project: 'apollo' }, conversationIds: ['a-secret'] })).toEqual([]);
    expect(await bob.deleteConversations({ createdBefore: '2999-01-01T00:00:00.000Z', conversationIds: ['a-secret'] })).toBe(0);

    // Team A's conversation is exactly as it was, file and all.
    expect(await alice.loadConversation('a-secret')).toEqual(before);
    expect(Buffer.from((await alice.fileContent(hash ?? '')) ?? []).toString()).toBe('classified plan');
    expect((await alice.searchMessages('needle-42')).map((m) => m.conversationId)).toEqual(['a-secret']);
    // And the refusals were not because bob can do nothing: his own conversation works.
    expect((await bob.forkConversation('b-own', 'b-copy')).nodes).toHaveLength(3);
    expect(await bob.deleteConversation('b-copy')).toBe(true);
  });
});
