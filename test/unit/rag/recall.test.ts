import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceIndex } from '../../../src/core/rag/workspaceIndex';
import { OPENAI_QUESTIONS, OPENAI_SRC } from '../../fixtures/ragQuestions';

/** Recall measured on a real code base: the openai package's TypeScript sources. */
describe('recall@5 on node_modules/openai/src', () => {
  let dir: string;
  let wi: WorkspaceIndex;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-recall-'));
    wi = await WorkspaceIndex.open({ folders: [path.resolve(OPENAI_SRC)], storagePath: path.join(dir, 'index.bin') });
    await wi.update();
  });

  afterAll(async () => {
    await wi.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('indexes the whole package', () => {
    expect(wi.stats().files).toBeGreaterThan(250);
  });

  it('finds the right file in the top 5 for most labelled questions', async () => {
    let hits = 0;
    const misses: string[] = [];
    for (const q of OPENAI_QUESTIONS) {
      const res = await wi.search(q.query, 5);
      if (res.some((r) => q.expected.includes(r.path!))) hits++;
      else misses.push(`${q.query} -> ${res.map((r) => r.path).join(', ')}`);
    }
    const recall = hits / OPENAI_QUESTIONS.length;
    console.log(`recall@5 = ${recall.toFixed(2)} over ${OPENAI_QUESTIONS.length} questions${misses.length ? `; missed:\n  ${misses.join('\n  ')}` : ''}`);
    // Measured 0.90 (18/20); the floor leaves room for one regression, not for a broken ranker.
    expect(recall).toBeGreaterThanOrEqual(0.85);
  });
});
