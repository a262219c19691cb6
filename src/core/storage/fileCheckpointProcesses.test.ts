/**
 * File checkpoints with several processes on one store, as two windows are: what a writer killed
 * with SIGKILL acknowledged is all there, two writers sharing contents store each content once, and
 * each sees the other's file changes.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { binaryVersion, sharedVersion } from '../../../test/fixtures/fileCheckpointWriter';
import { startTsxChild } from '../../../test/fixtures/lineChild';
import { storedBytes } from './fileCheckpointQueries';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/fileCheckpointWriter.ts');
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

interface Ack {
  nodeId: string;
  shared: string;
  own: string;
}

const acksOf = (lines: string[]): Ack[] =>
  lines.filter((line) => line.startsWith('ACK ')).map((line) => {
    const [, nodeId, shared, own] = line.split(' ');
    return { nodeId, shared, own };
  });

/** Every stored content hashes to its key, and every one is referred to by a change (no garbage left). */
async function expectContentsSound(file: string): Promise<number> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await fs.readFile(file));
  try {
    const rows = db.exec('SELECT hash, compression, data, size FROM file_contents')[0]?.values ?? [];
    for (const [hash, compression, data, size] of rows) {
      const content = storedBytes(compression, data as Uint8Array);
      expect([sha(content), content.length]).toEqual([hash, size]);
    }
    const orphans = db.exec('SELECT count(*) FROM file_contents c WHERE NOT EXISTS (SELECT 1 FROM file_changes f WHERE f.before_hash = c.hash OR f.after_hash = c.hash)')[0].values[0][0];
    expect(orphans).toBe(0);
    return rows.length;
  } finally {
    db.close();
  }
}

async function expectAcked(storage: SqlJsConversationStorage, conversationId: string, acks: Ack[], tag: string): Promise<void> {
  for (const ack of acks) {
    const changes = await storage.fileChanges(conversationId, ack.nodeId);
    expect(changes.map((c) => [c.path, c.after?.hash])).toEqual([
      ['shared.txt', ack.shared],
      [`${tag}.bin`, ack.own],
    ]);
    for (const hash of [ack.shared, ack.own]) expect(sha((await storage.fileContent(hash)) as Uint8Array)).toBe(hash);
  }
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-file-checkpoint-proc-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('file checkpoints across processes', () => {
  it('keeps every acknowledged file change when the writer is killed with SIGKILL at a random moment', async () => {
    const file = path.join(dir, 'killed.db');
    for (let round = 0; round < 3; round++) {
      const conversationId = `round-${round}`;
      const setup = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      await setup.saveConversation(sampleConversation(conversationId, 1));
      await setup.close();
      // A low checkpoint threshold makes some kills land inside a checkpoint too.
      const writer = startTsxChild(WRITER, [file, conversationId, `r${round}`, 'forever', String(8 + round * 6)], ROOT);
      await writer.waitForLine((line) => line.startsWith('ACK '));
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 900));
      writer.child.kill('SIGKILL');
      await writer.exited;
      const acks = acksOf(writer.lines);
      expect(acks.length).toBeGreaterThan(0);

      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      await expectAcked(storage, conversationId, acks, `r${round}`);
      const last = acks[acks.length - 1];
      expect(await storage.filesStateAt(conversationId, last.nodeId)).toEqual([
        { path: `r${round}.bin`, hash: last.own, nodeId: last.nodeId, originalHash: null },
        { path: 'shared.txt', hash: last.shared, nodeId: last.nodeId, originalHash: sha(sharedVersion(0)) },
      ]);
      for (let earlier = 0; earlier < round; earlier++) expect(Object.keys(await storage.fileChangesByNode(`round-${earlier}`)).length).toBeGreaterThan(0);
      expect(storage.warnings.filter((w) => !w.startsWith('Took over the lock'))).toEqual([]);
      await storage.close();
      await expectContentsSound(file);
    }
  }, 120_000);

  it('loses no file change when two processes record at once, stores shared contents once, and each sees the other', async () => {
    const file = path.join(dir, 'shared.db');
    const setup = await SqlJsConversationStorage.open(file);
    await setup.saveConversation(sampleConversation('shared', 1));
    await setup.close();
    const count = 30;
    const a = startTsxChild(WRITER, [file, 'shared', 'a', String(count), '20', 'b'], ROOT);
    const b = startTsxChild(WRITER, [file, 'shared', 'b', String(count), '20', 'a'], ROOT);
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    expect({ codeA, codeB, stderr: [...a.stderr, ...b.stderr].join('') }).toEqual({ codeA: 0, codeB: 0, stderr: '' });
    expect(a.lines).toContain('SAW b');
    expect(b.lines).toContain('SAW a');

    const storage = await SqlJsConversationStorage.open(file);
    await expectAcked(storage, 'shared', acksOf(a.lines), 'a');
    await expectAcked(storage, 'shared', acksOf(b.lines), 'b');
    expect(Object.keys(await storage.fileChangesByNode('shared'))).toHaveLength(2 * count);
    await storage.close();
    // shared.txt went through versions 0..count in both writers, stored once each; each .bin through its own 1..count.
    const distinct = new Set([...Array.from({ length: count + 1 }, (_, i) => sha(sharedVersion(i))), ...['a', 'b'].flatMap((tag) => Array.from({ length: count }, (_, i) => sha(binaryVersion(tag, i + 1))))]);
    expect(await expectContentsSound(file)).toBe(distinct.size);
  }, 120_000);
});
