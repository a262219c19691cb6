import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';
import { startTsxChild, type LineChild } from '../../../test/fixtures/lineChild';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/storageWriter.ts');
const CONVERSATION_WRITER = path.join(ROOT, 'test/fixtures/conversationWriter.ts');

interface Writer extends LineChild {
  /** The ids of the nodes the writer said it stored ("ACK <id>"). */
  readonly acked: string[];
}

function startWriter(args: string[]): Writer {
  const run = startTsxChild(WRITER, args, ROOT);
  return {
    ...run,
    get acked() {
      return run.lines.filter((line) => line.startsWith('ACK ')).map((line) => line.slice(4));
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-storage-proc-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('SqlJsConversationStorage across processes', () => {
  it('keeps every acknowledged node when the writer is killed with SIGKILL at a random moment', async () => {
    const file = path.join(dir, 'killed.db');
    for (let round = 0; round < 3; round++) {
      // A low checkpoint threshold makes some kills land inside a checkpoint too.
      const writer = startWriter([file, `round-${round}`, `r${round}`, 'forever', String(15 + round * 10)]);
      await writer.waitForLine((line) => line.startsWith('ACK '));
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 900));
      writer.child.kill('SIGKILL');
      await writer.exited;
      expect(writer.acked.length).toBeGreaterThan(0);

      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      const stored = new Set((await storage.loadConversation(`round-${round}`))?.nodes.map((node) => node.nodeId));
      const missing = writer.acked.filter((id) => !stored.has(id));
      expect(missing).toEqual([]);
      for (let earlier = 0; earlier < round; earlier++) {
        expect(await storage.loadConversation(`round-${earlier}`)).not.toBeNull();
      }
      // Taking over the killed writer's lock is reported; nothing else may be.
      expect(storage.warnings.filter((w) => !w.startsWith('Took over the lock'))).toEqual([]);
      expect((await fs.readdir(dir)).filter((name) => name.includes('.tmp-'))).toEqual([]);
      await storage.close();
    }
  }, 120_000);

  it('loses no write when two processes append to the same store, and each sees the other', async () => {
    const file = path.join(dir, 'shared.db');
    const setup = await SqlJsConversationStorage.open(file);
    await setup.saveConversation(sampleConversation('shared', 1));
    await setup.close();

    const count = 60;
    const a = startWriter([file, 'shared', 'a', String(count), '25', `b-${count - 1}`]);
    const b = startWriter([file, 'shared', 'b', String(count), '25', `a-${count - 1}`]);
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    expect({ codeA, codeB, stderr: [...a.stderr, ...b.stderr].join('') }).toEqual({ codeA: 0, codeB: 0, stderr: '' });
    expect(a.lines).toContain(`SAW b-${count - 1}`);
    expect(b.lines).toContain(`SAW a-${count - 1}`);

    const storage = await SqlJsConversationStorage.open(file);
    const ids = new Set((await storage.loadConversation('shared'))?.nodes.map((node) => node.nodeId));
    expect(ids.size).toBe(1 + 2 * count);
    // The store gave every acknowledged node its own id, under its lock: none given twice.
    expect(new Set([...a.acked, ...b.acked]).size).toBe(2 * count);
    for (const id of [...a.acked, ...b.acked]) {
      expect(ids.has(id)).toBe(true);
    }
    const texts = (await storage.loadConversation('shared'))?.nodes.map((node) => node.message.content.split(' ')[0]) ?? [];
    for (let i = 0; i < count; i++) expect(texts).toEqual(expect.arrayContaining([`a-${i}`, `b-${i}`]));
    await storage.close();
  }, 120_000);

  it('notices another process\'s changes on poll and fires onDidChange', async () => {
    const file = path.join(dir, 'watched.db');
    const watcher = await SqlJsConversationStorage.open(file);
    const seen: string[] = [];
    watcher.onDidChange((id) => seen.push(id));
    const writer = startWriter([file, 'remote', 'w', '3']);
    expect(await writer.exited).toBe(0);
    expect(await watcher.poll()).toContain('remote');
    expect(seen).toContain('remote');
    expect((await watcher.loadConversation('remote'))?.nodes).toHaveLength(4);
    await watcher.close();
  }, 60_000);

  for (const mode of ['stale', 'reload'] as const) {
    it(`three processes adding to one conversation (${mode === 'stale' ? 'each with the tree it resumed' : 'each reloading before an add'}) lose nothing, get distinct ids and see each other`, async () => {
      const file = path.join(dir, `three-${mode}.db`);
      const setup = await SqlJsConversationStorage.open(file);
      await setup.saveConversation(sampleConversation('shared', 1));
      await setup.close();
      const count = 41;
      const spawnWriter = (tag: string) =>
        spawn(process.execPath, ['--import', 'tsx', CONVERSATION_WRITER, file, 'shared', tag, String(count), mode, String(3 * count)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      const outputs = await Promise.all(
        ['a', 'b', 'c'].map(
          (tag) =>
            new Promise<{ out: string; err: string; code: number | null }>((resolve) => {
              const child = spawnWriter(tag);
              let out = '';
              let err = '';
              child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
              child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
              child.on('exit', (code) => resolve({ out, err, code }));
            }),
        ),
      );
      expect(outputs.map((o) => [o.code, o.err])).toEqual([[0, ''], [0, ''], [0, '']]);
      const acks = outputs.flatMap((o) => [...o.out.matchAll(/^ACK (\S+) (\S+)$/gm)].map((m) => ({ id: m[1], text: m[2] })));
      expect(acks).toHaveLength(3 * count);
      expect(new Set(acks.map((a) => a.id)).size).toBe(3 * count);
      // Each process saw everyone's messages.
      for (const o of outputs) expect(o.out).toContain(`SAW ${3 * count}`);
      const storage = await SqlJsConversationStorage.open(file);
      const stored = new Map((await storage.loadConversation('shared'))?.nodes.map((n) => [n.nodeId, n.message.content]));
      for (const ack of acks) expect(stored.get(ack.id)).toBe(ack.text);
      await storage.close();
    }, 180_000);
  }
});
