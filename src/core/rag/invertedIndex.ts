/**
 * A BM25 inverted index over chunks with integer ids. Postings live in one compact segment of typed
 * arrays (built by `compact()`) plus a small append-only delta for chunks added since, so adding one
 * file is cheap and a query only touches the postings of its own terms.
 */
import { TopK, type ScoredChunk } from './topK';
import { forEachToken } from './tokenizer';

export type { ScoredChunk } from './topK';

/** BM25 parameters. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Typed-array snapshot of an index, as persisted. */
export interface IndexSnapshot {
  terms: string[];
  /** `termOffsets[t]..termOffsets[t+1]` is the range of term t in `postDocs`/`postTfs`. */
  termOffsets: Uint32Array;
  postDocs: Int32Array;
  postTfs: Uint16Array;
  chunkFile: Int32Array;
  chunkStart: Int32Array;
  chunkEnd: Int32Array;
  chunkLen: Int32Array;
}

class IntList {
  a: Int32Array<ArrayBuffer>;
  n = 0;
  constructor(cap = 1024) {
    this.a = new Int32Array(cap);
  }
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
  static of(a: Int32Array): IntList {
    const l = new IntList(Math.max(1024, a.length));
    l.a.set(a);
    l.n = a.length;
    return l;
  }
  view(): Int32Array {
    return this.a.subarray(0, this.n);
  }
}

/** Options of one search. */
export interface IndexSearchOptions {
  /** Added to a chunk's score by its file id (path matches). */
  fileBoost?: Float64Array;
  /** When given, only chunks of files with a non-zero entry are considered. */
  allowedFiles?: Uint8Array;
}

/** The ranking core of the workspace index; knows chunks and file ids, not paths. */
export class InvertedIndex {
  private termIds = new Map<string, number>();
  private terms: string[] = [];
  private offsets: Uint32Array = new Uint32Array(1);
  private mainDocs: Int32Array = new Int32Array(0);
  private mainTfs: Uint16Array = new Uint16Array(0);
  /** Delta postings per term: doc ids and term frequencies, interleaved. */
  private delta: Array<number[] | undefined> = [];
  private deltaPostings = 0;
  private readonly chunkFile = new IntList();
  private readonly chunkStart = new IntList();
  private readonly chunkEnd = new IntList();
  private readonly chunkLen = new IntList();
  private alive = new Uint8Array(1024);
  private liveCount = 0;
  private deadCount = 0;
  private totalLen = 0;
  // Scratch space, reused by every add and search.
  private lastSeen = new Int32Array(0);
  private tfSlot = new Int32Array(0);
  private acc = new Float64Array(0);
  private touched = new Int32Array(0);

  /** Chunks ever added (live and removed) since the last compaction: the id space. */
  get chunkCount(): number {
    return this.chunkFile.n;
  }
  get liveChunks(): number {
    return this.liveCount;
  }
  get termCount(): number {
    return this.terms.length;
  }
  /** Postings that `compact()` would reclaim or merge. */
  get pendingWork(): number {
    return this.deltaPostings + this.deadCount;
  }
  get postingCount(): number {
    return this.mainDocs.length + this.deltaPostings;
  }

  fileOf(chunk: number): number {
    return this.chunkFile.a[chunk];
  }
  linesOf(chunk: number): [number, number] {
    return [this.chunkStart.a[chunk], this.chunkEnd.a[chunk]];
  }
  isAlive(chunk: number): boolean {
    return this.alive[chunk] === 1;
  }

  private termId(t: string): number {
    let id = this.termIds.get(t);
    if (id === undefined) {
      id = this.terms.length;
      this.termIds.set(t, id);
      this.terms.push(t);
      this.delta.push(undefined);
      if (id >= this.lastSeen.length) {
        const ls = new Int32Array(Math.max(1024, this.lastSeen.length * 2)).fill(-1);
        ls.set(this.lastSeen);
        this.lastSeen = ls;
        const ts = new Int32Array(ls.length);
        ts.set(this.tfSlot);
        this.tfSlot = ts;
      }
    }
    return id;
  }

  /** Adds a chunk's text for `file`; returns its id. */
  add(file: number, startLine: number, endLine: number, text: string): number {
    const id = this.chunkFile.n;
    this.chunkFile.push(file);
    this.chunkStart.push(startLine);
    this.chunkEnd.push(endLine);
    if (id >= this.alive.length) {
      const a = new Uint8Array(this.alive.length * 2);
      a.set(this.alive);
      this.alive = a;
    }
    this.alive[id] = 1;
    let len = 0;
    const lastSeen = () => this.lastSeen;
    forEachToken(text, (tok) => {
      len++;
      const t = this.termId(tok);
      const ls = lastSeen();
      if (ls[t] === id) {
        const d = this.delta[t]!;
        const slot = this.tfSlot[t];
        if (d[slot] < 65535) d[slot]++;
      } else {
        ls[t] = id;
        let d = this.delta[t];
        if (!d) this.delta[t] = d = [];
        d.push(id, 1);
        this.tfSlot[t] = d.length - 1;
        this.deltaPostings++;
      }
    });
    this.chunkLen.push(len);
    this.liveCount++;
    this.totalLen += len;
    return id;
  }

  /** Marks chunks as removed; their postings are reclaimed by the next `compact()`. */
  remove(first: number, count: number): void {
    for (let c = first; c < first + count; c++) {
      if (this.alive[c] !== 1) continue;
      this.alive[c] = 0;
      this.liveCount--;
      this.deadCount++;
      this.totalLen -= this.chunkLen.a[c];
    }
  }

  /**
   * Rebuilds the postings as one typed-array segment without removed chunks, renumbering chunks
   * in their order and files through `fileMap` (old id to new id). Returns the old-to-new chunk map.
   */
  compact(fileMap?: Int32Array): Int32Array {
    const n = this.chunkFile.n;
    const chunkMap = new Int32Array(n).fill(-1);
    let next = 0;
    for (let c = 0; c < n; c++) if (this.alive[c] === 1) chunkMap[c] = next++;

    const termCount = this.terms.length;
    const counts = new Uint32Array(termCount);
    for (let t = 0; t < termCount; t++) {
      let k = 0;
      for (let p = this.offsets[t] ?? 0, e = t + 1 < this.offsets.length ? this.offsets[t + 1] : p; p < e; p++) if (chunkMap[this.mainDocs[p]] >= 0) k++;
      const d = this.delta[t];
      if (d) for (let p = 0; p < d.length; p += 2) if (chunkMap[d[p]] >= 0) k++;
      counts[t] = k;
    }
    // Drop terms that no live chunk uses any more.
    const newTerms: string[] = [];
    const newOffsets: number[] = [0];
    let total = 0;
    const keep = new Int32Array(termCount).fill(-1);
    for (let t = 0; t < termCount; t++) {
      if (counts[t] === 0) continue;
      keep[t] = newTerms.length;
      newTerms.push(this.terms[t]);
      total += counts[t];
      newOffsets.push(total);
    }
    const docs = new Int32Array(total);
    const tfs = new Uint16Array(total);
    let w = 0;
    for (let t = 0; t < termCount; t++) {
      if (keep[t] < 0) continue;
      for (let p = this.offsets[t] ?? 0, e = t + 1 < this.offsets.length ? this.offsets[t + 1] : p; p < e; p++) {
        const m = chunkMap[this.mainDocs[p]];
        if (m >= 0) {
          docs[w] = m;
          tfs[w++] = this.mainTfs[p];
        }
      }
      const d = this.delta[t];
      if (d) {
        for (let p = 0; p < d.length; p += 2) {
          const m = chunkMap[d[p]];
          if (m >= 0) {
            docs[w] = m;
            tfs[w++] = d[p + 1];
          }
        }
      }
    }
    const cf = new Int32Array(next);
    const cs = new Int32Array(next);
    const ce = new Int32Array(next);
    const cl = new Int32Array(next);
    for (let c = 0; c < n; c++) {
      const m = chunkMap[c];
      if (m < 0) continue;
      const f = this.chunkFile.a[c];
      cf[m] = fileMap ? fileMap[f] : f;
      cs[m] = this.chunkStart.a[c];
      ce[m] = this.chunkEnd.a[c];
      cl[m] = this.chunkLen.a[c];
    }
    this.load({ terms: newTerms, termOffsets: Uint32Array.from(newOffsets), postDocs: docs, postTfs: tfs, chunkFile: cf, chunkStart: cs, chunkEnd: ce, chunkLen: cl });
    return chunkMap;
  }

  /** Replaces the whole index with a snapshot (from `snapshot()` or a saved file). */
  load(s: IndexSnapshot): void {
    this.terms = s.terms;
    this.termIds = new Map();
    for (let i = 0; i < s.terms.length; i++) this.termIds.set(s.terms[i], i);
    this.offsets = s.termOffsets;
    this.mainDocs = s.postDocs;
    this.mainTfs = s.postTfs;
    this.delta = new Array(s.terms.length).fill(undefined);
    this.deltaPostings = 0;
    const lists: Array<[IntList, Int32Array]> = [
      [this.chunkFile, s.chunkFile],
      [this.chunkStart, s.chunkStart],
      [this.chunkEnd, s.chunkEnd],
      [this.chunkLen, s.chunkLen],
    ];
    for (const [list, arr] of lists) {
      const l = IntList.of(arr);
      list.a = l.a;
      list.n = l.n;
    }
    const n = s.chunkFile.length;
    this.alive = new Uint8Array(Math.max(1024, n * 2));
    this.alive.fill(1, 0, n);
    this.liveCount = n;
    this.deadCount = 0;
    this.totalLen = 0;
    for (let i = 0; i < n; i++) this.totalLen += s.chunkLen[i];
    this.lastSeen = new Int32Array(Math.max(1024, s.terms.length)).fill(-1);
    this.tfSlot = new Int32Array(this.lastSeen.length);
  }

  /** The index as typed arrays; compacts first when anything is pending (callers that renumber files compact themselves). */
  snapshot(): IndexSnapshot {
    if (this.pendingWork > 0 || this.offsets.length !== this.terms.length + 1) this.compact();
    return {
      terms: this.terms,
      termOffsets: this.offsets,
      postDocs: this.mainDocs,
      postTfs: this.mainTfs,
      chunkFile: this.chunkFile.view(),
      chunkStart: this.chunkStart.view(),
      chunkEnd: this.chunkEnd.view(),
      chunkLen: this.chunkLen.view(),
    };
  }

  /** Whether some chunk (live or removed since the last compaction) holds the token. */
  has(token: string): boolean {
    return this.termIds.has(token);
  }

  /** Top `k` live chunks by BM25 over the query's tokens (duplicates weigh more; a `[token, weight]` pair weighs `weight`). */
  search(queryTokens: ReadonlyArray<string | readonly [token: string, weight: number]>, k: number, options: IndexSearchOptions = {}): ScoredChunk[] {
    const n = this.chunkFile.n;
    if (k <= 0 || this.liveCount === 0) return [];
    if (this.acc.length < n) {
      this.acc = new Float64Array(Math.max(1024, n * 2));
      this.touched = new Int32Array(this.acc.length);
    }
    const weights = new Map<number, number>();
    for (const q of queryTokens) {
      const [tok, w] = typeof q === 'string' ? [q, 1] : q;
      const t = this.termIds.get(tok);
      if (t !== undefined) weights.set(t, (weights.get(t) ?? 0) + w);
    }
    const acc = this.acc;
    const touched = this.touched;
    const alive = this.alive;
    const len = this.chunkLen.a;
    const files = this.chunkFile.a;
    const allowed = options.allowedFiles;
    const N = this.liveCount;
    const avgdl = this.totalLen / N || 1;
    const k1 = BM25_K1;
    const bOverAvg = BM25_B / avgdl;
    const base = 1 - BM25_B;
    let nt = 0;
    const offs = this.offsets;
    for (const [t, qw] of weights) {
      const inMain = t + 1 < offs.length;
      const ms = inMain ? offs[t] : 0;
      const me = inMain ? offs[t + 1] : 0;
      const d = this.delta[t];
      let df = 0;
      if (this.deadCount === 0) df = me - ms + (d ? d.length / 2 : 0);
      else {
        for (let p = ms; p < me; p++) df += alive[this.mainDocs[p]];
        if (d) for (let p = 0; p < d.length; p += 2) df += alive[d[p]];
      }
      if (df === 0) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5)) * qw;
      const docs = this.mainDocs;
      const tfs = this.mainTfs;
      for (let p = ms; p < me; p++) {
        const c = docs[p];
        if (alive[c] === 0 || (allowed !== undefined && allowed[files[c]] === 0)) continue;
        const tf = tfs[p];
        const s = (idf * tf * (k1 + 1)) / (tf + k1 * (base + bOverAvg * len[c]));
        if (acc[c] === 0) touched[nt++] = c;
        acc[c] += s;
      }
      if (d) {
        for (let p = 0; p < d.length; p += 2) {
          const c = d[p];
          if (alive[c] === 0 || (allowed !== undefined && allowed[files[c]] === 0)) continue;
          const tf = d[p + 1];
          const s = (idf * tf * (k1 + 1)) / (tf + k1 * (base + bOverAvg * len[c]));
          if (acc[c] === 0) touched[nt++] = c;
          acc[c] += s;
        }
      }
    }
    const heap = new TopK(k);
    const boost = options.fileBoost;
    for (let i = 0; i < nt; i++) {
      const c = touched[i];
      heap.offer(c, boost ? acc[c] + boost[files[c]] : acc[c]);
      acc[c] = 0;
    }
    return heap.sorted();
  }
}
