import { describe, expect, it } from 'vitest';
import { BM25_B, BM25_K1, InvertedIndex } from './invertedIndex';
import { TopK } from './topK';

function bm25(tf: number, df: number, n: number, len: number, avg: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * len) / avg));
}

describe('InvertedIndex', () => {
  it('scores with BM25 exactly', () => {
    const ix = new InvertedIndex();
    ix.add(0, 1, 1, 'alpha alpha beta'); // 3 tokens
    ix.add(0, 2, 2, 'beta gamma'); // 2 tokens
    ix.add(1, 1, 1, 'delta'); // 1 token
    const avg = 2;
    const res = ix.search(['alpha', 'beta'], 5);
    expect(res.map((r) => r.chunk)).toEqual([0, 1]);
    expect(res[0].score).toBeCloseTo(bm25(2, 1, 3, 3, avg) + bm25(1, 2, 3, 3, avg), 10);
    expect(res[1].score).toBeCloseTo(bm25(1, 2, 3, 2, avg), 10);
    // A weighted term counts `weight` times.
    expect(ix.search([['delta', 2]], 1)[0].score).toBeCloseTo(2 * bm25(1, 1, 3, 1, avg), 10);
  });

  it('gives the same ranking from the delta, after removals, and after compaction', () => {
    const texts = Array.from({ length: 60 }, (_, i) => `item${i % 7} shared value${i % 5} ${i % 3 === 0 ? 'rare' : 'common'}`);
    const a = new InvertedIndex();
    texts.forEach((t, i) => a.add(i % 10, i, i, t));
    a.compact();
    // b: half compacted, half in the delta, with some chunks removed and re-added.
    const b = new InvertedIndex();
    texts.slice(0, 30).forEach((t, i) => b.add(i % 10, i, i, t));
    b.add(99, 0, 0, 'rare rare rare noise');
    b.compact();
    texts.slice(30).forEach((t, i) => b.add((i + 30) % 10, i + 30, i + 30, t));
    b.remove(30, 1);
    const q = ['rare', 'value3', 'item4'];
    const fromA = a.search(q, 10).map((r) => [a.linesOf(r.chunk)[0], r.score]);
    const fromB = b.search(q, 10).map((r) => [b.linesOf(r.chunk)[0], r.score]);
    expect(fromB).toEqual(fromA);
    expect(b.liveChunks).toBe(60);
    b.compact();
    expect(b.search(q, 10).map((r) => [b.linesOf(r.chunk)[0], r.score])).toEqual(fromA);
    expect(b.pendingWork).toBe(0);
    expect(b.has('noise')).toBe(false);
  });

  it('filters by file and adds file boosts', () => {
    const ix = new InvertedIndex();
    ix.add(0, 1, 1, 'token');
    ix.add(1, 1, 1, 'token');
    expect(ix.search(['token'], 5, { allowedFiles: Uint8Array.from([0, 1]) }).map((r) => ix.fileOf(r.chunk))).toEqual([1]);
    expect(ix.fileOf(ix.search(['token'], 1, { fileBoost: Float64Array.from([0, 5]) })[0].chunk)).toBe(1);
  });
});

describe('TopK', () => {
  it('keeps the k best, best first, ties to the lower id', () => {
    const top = new TopK(3);
    [5, 1, 9, 3, 9, 7, 2].forEach((s, id) => top.offer(id, s));
    expect(top.sorted()).toEqual([
      { chunk: 2, score: 9 },
      { chunk: 4, score: 9 },
      { chunk: 5, score: 7 },
    ]);
  });
});
