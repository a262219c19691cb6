/** Top-k selection for ranking: keeps only k candidates, so selecting costs O(n log k), not a full sort. */

/** One scored chunk. */
export interface ScoredChunk {
  chunk: number;
  score: number;
}

/** A bounded min-heap keeping the `k` best (score, id) pairs; ties go to the lower id. */
export class TopK {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.ids = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  private less(i: number, j: number): boolean {
    const a = this.scores[i];
    const b = this.scores[j];
    return a < b || (a === b && this.ids[i] > this.ids[j]);
  }

  private swap(i: number, j: number): void {
    const id = this.ids[i];
    this.ids[i] = this.ids[j];
    this.ids[j] = id;
    const s = this.scores[i];
    this.scores[i] = this.scores[j];
    this.scores[j] = s;
  }

  offer(id: number, score: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      this.ids[i] = id;
      this.scores[i] = score;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.less(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    if (score < this.scores[0] || (score === this.scores[0] && id > this.ids[0])) return;
    this.ids[0] = id;
    this.scores[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && this.less(l, m)) m = l;
      if (r < this.size && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  /** Best first. */
  sorted(): ScoredChunk[] {
    const out: ScoredChunk[] = [];
    for (let i = 0; i < this.size; i++) out.push({ chunk: this.ids[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
  }
}
