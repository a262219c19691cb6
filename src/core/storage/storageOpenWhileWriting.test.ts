import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';
import { startTsxChild, type LineChild } from '../../../test/fixtures/lineChild';

/**
 * A store opened while other processes write to it (issue 22, section 8): every write a writer
 * acknowledged before the open began is in what the open loads, even when a writer folds the journal
 * into the database file (a checkpoint) between the open's read of the one and of the other.
 */
const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/storageWriter.ts');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const acked = (writer: LineChild) => writer.lines.filter((line) => line.startsWith('ACK ')).map((line) => line.slice(4));

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-open-while-writing-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('SqlJsConversationStorage opened while other processes write', () => {
  for (const readOnly of [true, false]) {
    it(`sees every write acknowledged before the open began, while four writers add and checkpoint at every write and are killed at random (${readOnly ? 'read-only, no lock' : 'under the lock'})`, async () => {
      const file = path.join(dir, 'busy.db');
      const setup = await SqlJsConversationStorage.open(file);
      await setup.saveConversation(sampleConversation('shared', 1));
      await setup.close();

      const writers: LineChild[] = [];
      // A checkpoint after every write: the database file is replaced and the journal restarted all the time.
      const start = () => writers.push(startTsxChild(WRITER, [file, 'shared', `w${writers.length}`, 'forever', '1'], ROOT));
      for (let i = 0; i < 4; i++) start();
      const live = () => writers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
      const misses: string[] = [];
      try {
        await Promise.all(writers.map((w) => w.waitForLine((line) => line.startsWith('ACK '))));
        for (let round = 0; round < 40; round++) {
          if (round % 8 === 7) {
            // A writer killed at whatever it was doing, and another started in its place.
            const victims = live();
            victims[round % victims.length].child.kill('SIGKILL');
            start();
          }
          const before = new Set(writers.flatMap(acked));
          const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000, readOnly });
          try {
            const stored = new Set((await storage.loadConversation('shared'))?.nodes.map((node) => node.nodeId));
            const missing = [...before].filter((id) => !stored.has(id));
            if (missing.length) misses.push(`open ${round}: ${missing.length} of ${before.size} acknowledged writes missing`);
          } finally {
            await storage.close();
          }
          await pause(Math.random() * 30);
        }
      } finally {
        for (const w of live()) w.child.kill('SIGKILL');
        await Promise.all(writers.map((w) => w.exited));
      }
      expect(writers.flatMap(acked).length).toBeGreaterThan(40);
      expect(misses).toEqual([]);
    }, 180_000);
  }
});
