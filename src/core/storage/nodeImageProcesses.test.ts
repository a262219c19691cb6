/**
 * Images with two processes on one store, as two windows are: neither loses an acknowledged image,
 * an image both attach is stored once, every stored content is whole and referred to, and each
 * process sees the other's images.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownImage, sharedImage } from '../../../test/fixtures/imageWriter';
import { startTsxChild } from '../../../test/fixtures/lineChild';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/imageWriter.ts');
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-image-proc-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('images with two processes', () => {
  it('loses no image when two processes write at once, stores a shared image once, and each sees the other', async () => {
    const file = path.join(dir, 'shared.db');
    const setup = await SqlJsConversationStorage.open(file);
    await setup.saveConversation(sampleConversation('shared', 1));
    await setup.close();
    const count = 20;
    const a = startTsxChild(WRITER, [file, 'shared', 'a', String(count), '15', 'b'], ROOT);
    const b = startTsxChild(WRITER, [file, 'shared', 'b', String(count), '15', 'a'], ROOT);
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    expect({ codeA, codeB, stderr: [...a.stderr, ...b.stderr].join('') }).toEqual({ codeA: 0, codeB: 0, stderr: '' });
    expect(a.lines).toContain('SAW b');
    expect(b.lines).toContain('SAW a');

    const storage = await SqlJsConversationStorage.open(file);
    for (const child of [a, b]) {
      const acks = child.lines.filter((line) => line.startsWith('ACK ')).map((line) => line.split(' '));
      expect(acks).toHaveLength(count);
      for (const [, nodeId, shared, own] of acks) {
        expect((await storage.nodeImages('shared', nodeId)).map((i) => i.hash)).toEqual([shared, own]);
        for (const hash of [shared, own]) expect(sha((await storage.fileContent(hash)) as Uint8Array)).toBe(hash);
      }
    }
    expect(Object.keys(await storage.imagesByNode('shared'))).toHaveLength(2 * count);
    await storage.close();

    const SQL = await initSqlJs();
    const db = new SQL.Database(await fs.readFile(file));
    try {
      const rows = db.exec('SELECT hash, data, size FROM file_contents')[0].values;
      for (const [hash, data, size] of rows) expect([sha(data as Uint8Array), (data as Uint8Array).length]).toEqual([hash, size]);
      const distinct = new Set([...[0, 1, 2, 3, 4].map((i) => sha(sharedImage(i))), ...['a', 'b'].flatMap((tag) => Array.from({ length: count }, (_, i) => sha(ownImage(tag, i))))]);
      expect(rows.length).toBe(distinct.size);
      expect(db.exec('SELECT count(*) FROM node_images')[0].values[0][0]).toBe(4 * count);
    } finally {
      db.close();
    }
  }, 120_000);
});
