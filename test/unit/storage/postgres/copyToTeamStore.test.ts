import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { copyConversations } from '../../../../src/core/storage/copyConversations';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { SqlJsConversationStorage } from '../../../../src/core/storage/sqlJsConversationStorage';
import { sampleConversation, sampleNode } from '../../../../src/core/storage/storageTestData';
import { makePng } from '../../../fixtures/pngImages';
import { describeWithPostgres } from '../../../fixtures/postgresServer';

/**
 * Move Conversations to Team Store and Copy to Local, between a real sql.js file and a real
 * PostgreSQL (a team and a person set up as an administrator would): ids, branches, images and file
 * changes survive both ways, and a move deletes the local conversation only once the team has it.
 */
describeWithPostgres('copying conversations between the local and the team store', (server) => {
  it('moves to the team store and copies back to a fresh local store, keeping everything', async () => {
    const db = await server().createDatabase();
    const owner = await PostgresConversationStorage.open({ connectionString: server().url('postgres', db), migrate: true });
    await owner.close();
    await server().psql('CREATE ROLE team_copy NOLOGIN; GRANT arbor_users TO team_copy; CREATE ROLE carol LOGIN; GRANT team_copy TO carol;', db);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-copy-pg-'));
    const local = await SqlJsConversationStorage.open(path.join(dir, 'local.sqlite'));
    const team = await PostgresConversationStorage.open({ connectionString: server().url('carol', db), migrate: false });
    const back = await SqlJsConversationStorage.open(path.join(dir, 'back.sqlite'));
    try {
      const state = sampleConversation('moved', 4, { metadata: { title: 'Bark' } });
      await local.saveConversation(state);
      const { nodeId: _id, position: _position, ...branch } = sampleNode('', state.nodes[1].nodeId, 100, 9);
      const { addedNodes } = await local.applyChange('moved', { addNodes: [branch], addImages: [[{ bytes: makePng(20, 10, 4), name: 'bark.png' }]], updatedAt: new Date().toISOString() });
      await local.recordFileChanges('moved', addedNodes[0].nodeId, [{ path: 'notes.md', before: null, after: new TextEncoder().encode('birch\n') }]);
      const original = await local.loadConversation('moved');

      expect(await copyConversations(local, team, ['moved'], { move: true })).toEqual({ copied: ['moved'], skipped: [], failed: [] });
      expect(await local.loadConversation('moved')).toBeNull();
      const inTeam = await team.loadConversation('moved');
      expect(inTeam?.nodes.map((n) => [n.nodeId, n.parentId, n.message.content])).toEqual(original?.nodes.map((n) => [n.nodeId, n.parentId, n.message.content]));
      expect(inTeam?.currentNodeId).toBe(original?.currentNodeId);
      expect(await team.nodeImages('moved', addedNodes[0].nodeId)).toHaveLength(1);
      expect((await team.fileChanges('moved', addedNodes[0].nodeId)).map((c) => [c.path, c.kind])).toEqual([['notes.md', 'created']]);

      expect((await copyConversations(team, back, ['moved'])).copied).toEqual(['moved']);
      expect(await team.loadConversation('moved')).not.toBeNull();
      expect((await back.loadConversation('moved'))?.nodes).toHaveLength(original!.nodes.length);
      expect(await back.nodeImages('moved', addedNodes[0].nodeId)).toHaveLength(1);
    } finally {
      await local.close();
      await team.close();
      await back.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
