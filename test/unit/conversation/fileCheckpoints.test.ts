/**
 * File checkpoints through `ConversationManager`: recorded in the manager's write queue after the
 * node they belong to, read per node, per conversation and as the state after a node, and carried by
 * the manager's own branch deletes and forks. A real file-backed sql.js store.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, NodeNotFoundError, SqlJsConversationStorage, type FileChange, type LLMProvider } from '../../../src/core/index';

const llm = { name: 'none' } as unknown as LLMProvider;
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

let dir: string;
let storage: SqlJsConversationStorage;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-manager-files-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.db'));
});
afterEach(async () => {
  await storage.close().catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
});

describe('ConversationManager file checkpoints', () => {
  it('records after the write that adds the node, even when not awaited, and reads them back', async () => {
    const manager = await ConversationManager.create({ llm, storage, conversationId: 'c' });
    await manager.addMessage({ role: 'user', content: 'Create the file' });
    // Queued behind the add: the node exists by the time the record runs.
    const adding = manager.addMessage({ role: 'assistant', content: 'Created.' });
    const recording = manager.recordFileChanges('n2', [{ path: 'src/new.ts', before: null, after: bytes('export {};\n') }]);
    const [answer, recorded] = await Promise.all([adding, recording]);
    expect(answer.nodeId).toBe('n2');
    expect(recorded).toEqual([{ path: 'src/new.ts', kind: 'created', before: null, after: { hash: sha(bytes('export {};\n')), size: 11 }, linesAdded: 1, linesRemoved: 0 }]);
    expect(await manager.getFileChanges('n2')).toEqual(recorded);
    expect(await manager.getFileChangesByNode()).toEqual({ n2: recorded });
    expect(await manager.getFilesStateAt('n2')).toEqual([{ path: 'src/new.ts', hash: sha(bytes('export {};\n')), nodeId: 'n2', originalHash: null }]);
    expect(Buffer.from((await manager.getFileContent(sha(bytes('export {};\n')))) as Uint8Array).toString()).toBe('export {};\n');
    await expect(manager.recordFileChanges('n9', [{ path: 'a', before: null, after: bytes('a') }])).rejects.toThrow(NodeNotFoundError);
    await expect(manager.getFilesStateAt('n9')).rejects.toThrow(NodeNotFoundError);
  });

  it('drops the changes of a deleted branch and copies those of a fork', async () => {
    const manager = await ConversationManager.create({ llm, storage, conversationId: 'c' });
    const question = await manager.addMessage({ role: 'user', content: 'Edit it' });
    const first = await manager.addMessage({ role: 'assistant', content: 'One way' });
    await manager.recordFileChanges(first.nodeId, [{ path: 'a.txt', before: bytes('0\n'), after: bytes('1\n') }]);
    await manager.branchFrom(first.nodeId);
    const second = await manager.addMessage({ role: 'assistant', content: 'Another way' });
    await manager.recordFileChanges(second.nodeId, [{ path: 'a.txt', before: bytes('0\n'), after: bytes('2\n') }]);
    expect((await manager.getFilesStateAt(first.nodeId))[0].hash).toBe(sha(bytes('1\n')));
    expect((await manager.getFilesStateAt(second.nodeId))[0].hash).toBe(sha(bytes('2\n')));
    expect(await manager.getFilesStateAt(question.nodeId)).toEqual([]);

    const fork = await manager.fork('copy', { upToNodeId: second.nodeId });
    await manager.deleteBranch(second.nodeId);
    expect(Object.keys(await manager.getFileChangesByNode())).toEqual([first.nodeId]);
    // The fork keeps its copy, and so the content.
    expect((await fork.getFilesStateAt(second.nodeId))[0].hash).toBe(sha(bytes('2\n')));
    expect(await manager.getFileContent(sha(bytes('2\n')))).not.toBeNull();
    await storage.deleteConversation('copy');
    expect(await manager.getFileContent(sha(bytes('2\n')))).toBeNull();
  });

  it('gives, 50 edits back, each file byte for byte as it was after that node, after a reopen of the store', async () => {
    const manager = await ConversationManager.create({ llm, storage, conversationId: 'c' });
    // 60 answers: each edits a.ts, every fifth also b.bin (bytes that are not text), and the 20th creates c.ts.
    const versions: Array<Map<string, Uint8Array>> = [];
    const files = new Map<string, Uint8Array>([['a.ts', bytes('v0\n')], ['b.bin', new Uint8Array([0, 255, 0])]]);
    const nodes: string[] = [];
    for (let i = 1; i <= 60; i++) {
      await manager.addMessage({ role: 'user', content: `Edit ${i}` });
      const answer = await manager.addMessage({ role: 'assistant', content: `Edited ${i}` });
      const changes: FileChange[] = [{ path: 'a.ts', before: files.get('a.ts') as Uint8Array, after: bytes(`${'line\n'.repeat(i)}v${i}\n`) }];
      if (i % 5 === 0) changes.push({ path: 'b.bin', before: files.get('b.bin') as Uint8Array, after: new Uint8Array([0, 255, i, 0]) });
      if (i === 20) changes.push({ path: 'c.ts', before: null, after: bytes('export const c = 20;\n') });
      await manager.recordFileChanges(answer.nodeId, changes);
      for (const c of changes) files.set(c.path, c.after as Uint8Array);
      versions.push(new Map(files));
      nodes.push(answer.nodeId);
    }
    await storage.close();
    storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.db'));
    const reopened = await ConversationManager.resume('c', { llm, storage });
    // Node 10, 50 edits back from the last: a.ts and b.bin as they were then, no c.ts yet.
    const state = await reopened.getFilesStateAt(nodes[9]);
    expect(state.map((s) => s.path)).toEqual(['a.ts', 'b.bin']);
    for (const s of state) {
      const content = await reopened.getFileContent(s.hash as string);
      expect(Buffer.from(content as Uint8Array).equals(Buffer.from(versions[9].get(s.path) as Uint8Array))).toBe(true);
    }
    // And where each file started before the first change on the path.
    expect(state.find((s) => s.path === 'a.ts')?.originalHash).toBe(sha(bytes('v0\n')));
    expect((await reopened.getFilesStateAt(nodes[59])).map((s) => s.path)).toEqual(['a.ts', 'b.bin', 'c.ts']);
  });
});
