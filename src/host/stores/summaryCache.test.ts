import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSummaryCache, writeSummaryCache } from './summaryCache';

describe('summary cache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-summary-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('round-trips the list and keeps only the metadata the tree shows', async () => {
    const file = path.join(dir, 'list.json');
    await writeSummaryCache(file, [
      { conversationId: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z', nodeCount: 3, metadata: { title: 'T', totalCostUsd: 0.5, big: 'x'.repeat(1000) } },
    ]);
    const back = await readSummaryCache(file);
    expect(back).toEqual([{ conversationId: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z', nodeCount: 3, metadata: { title: 'T', totalCostUsd: 0.5 } }]);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('gives undefined for a missing, broken or foreign file and skips bad entries', async () => {
    expect(await readSummaryCache(path.join(dir, 'none.json'))).toBeUndefined();
    await fs.writeFile(path.join(dir, 'bad.json'), '{not json');
    expect(await readSummaryCache(path.join(dir, 'bad.json'))).toBeUndefined();
    await fs.writeFile(path.join(dir, 'v2.json'), JSON.stringify({ version: 2, conversations: [] }));
    expect(await readSummaryCache(path.join(dir, 'v2.json'))).toBeUndefined();
    await fs.writeFile(path.join(dir, 'mixed.json'), JSON.stringify({ version: 1, conversations: [{ conversationId: 1 }, { conversationId: 'ok', createdAt: 'x', updatedAt: 'y', nodeCount: 1, metadata: {} }] }));
    expect((await readSummaryCache(path.join(dir, 'mixed.json')))?.map((s) => s.conversationId)).toEqual(['ok']);
  });
});
