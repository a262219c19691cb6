/**
 * A code-aware tokenizer shared by indexing and querying, so a query for "parse stream" finds
 * `parseStream`, `parse_stream` and `parse-stream`, and a query for `parseStream` finds it whole.
 */

/** English words too common to help ranking; code keywords are kept (BM25's idf handles them). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'can', 'do', 'does', 'for', 'from', 'how', 'i', 'in',
  'is', 'it', 'its', 'of', 'on', 'or', 'that', 'the', 'there', 'these', 'this', 'to', 'was', 'we', 'what',
  'when', 'where', 'which', 'who', 'why', 'will', 'with', 'you', 'your', 'me', 'my', 'our', 'into', 'get',
]);

/** Tokens longer than this (hashes, base64 blobs) are dropped: they never match a query usefully. */
const MAX_TOKEN_LENGTH = 48;

const enum Kind {
  Other = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
  Joiner = 4,
}

const KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 97 && c <= 122) KIND[c] = Kind.Lower;
  else if (c >= 65 && c <= 90) KIND[c] = Kind.Upper;
  else if (c >= 48 && c <= 57) KIND[c] = Kind.Digit;
  else if (c === 95 || c === 36) KIND[c] = Kind.Joiner;
}

function kindOf(c: number): Kind {
  // Non-ASCII letters count as lower-case letters: enough to keep words of other scripts whole.
  return c < 128 ? KIND[c] : c === 0xa0 || (c >= 0x2000 && c <= 0x206f) || c === 0x3000 || c === 0xfeff ? Kind.Other : Kind.Lower;
}

function isAlnum(k: Kind): boolean {
  return k === Kind.Lower || k === Kind.Upper || k === Kind.Digit;
}

/**
 * Calls `emit` for every token of `text` in order: each identifier's parts (camelCase, PascalCase,
 * snake_case, kebab-case and letter/digit boundaries), lower-cased, then the whole identifier when
 * it has more than one part. One-character parts and stop words are dropped.
 */
export function forEachToken(text: string, emit: (token: string) => void): void {
  // Lower-case once; slices of `lower` are the tokens when lower-casing kept every offset.
  const lowered = text.toLowerCase();
  const lower = lowered.length === text.length ? lowered : undefined;
  const n = text.length;
  let i = 0;
  while (i < n) {
    let k = kindOf(text.charCodeAt(i));
    if (k === Kind.Other) {
      i++;
      continue;
    }
    const start = i;
    // Extend over word characters, and over a hyphen that joins two alphanumerics (kebab-case).
    while (i < n) {
      const c = text.charCodeAt(i);
      k = kindOf(c);
      if (k !== Kind.Other) {
        i++;
      } else if (c === 45 && i > start && i + 1 < n && isAlnum(kindOf(text.charCodeAt(i - 1))) && isAlnum(kindOf(text.charCodeAt(i + 1)))) {
        i++;
      } else {
        break;
      }
    }
    emitWord(text, lower, start, i, emit);
  }
}

function emitPart(text: string, lower: string | undefined, s: number, e: number, emit: (token: string) => void): void {
  const len = e - s;
  if (len < 2 || len > MAX_TOKEN_LENGTH) return;
  const t = lower !== undefined ? lower.slice(s, e) : text.slice(s, e).toLowerCase();
  // Every stop word is at most five letters long: longer tokens skip the lookup.
  if (len > 5 || !STOP_WORDS.has(t)) emit(t);
}

function emitWord(text: string, lower: string | undefined, start: number, end: number, emit: (token: string) => void): void {
  let parts = 0;
  let partStart = -1;
  let prev = Kind.Other;
  for (let j = start; j < end; j++) {
    const c = text.charCodeAt(j);
    const k = c === 45 ? Kind.Joiner : kindOf(c);
    if (k === Kind.Joiner) {
      if (partStart >= 0) {
        emitPart(text, lower, partStart, j, emit);
        parts++;
        partStart = -1;
      }
      prev = k;
      continue;
    }
    let boundary = partStart < 0;
    if (!boundary) {
      if (k === Kind.Upper && prev === Kind.Lower) boundary = true;
      else if ((k === Kind.Digit) !== (prev === Kind.Digit)) boundary = true;
      else if (k === Kind.Lower && prev === Kind.Upper && j - partStart > 1) {
        // "HTTPServer": the last upper-case letter starts the next part.
        emitPart(text, lower, partStart, j - 1, emit);
        parts++;
        partStart = j - 1;
      }
    }
    if (boundary) {
      if (partStart >= 0) {
        emitPart(text, lower, partStart, j, emit);
        parts++;
      }
      partStart = j;
    }
    prev = k;
  }
  if (partStart >= 0) {
    if (parts === 0 && partStart === start) {
      emitPart(text, lower, start, end, emit);
      return;
    }
    emitPart(text, lower, partStart, end, emit);
    parts++;
  }
  if (parts > 1) {
    // Trim joiners at the ends so `_private` and `private` share the whole token.
    let s = start;
    let e = end;
    while (s < e && kindOf(text.charCodeAt(s)) === Kind.Joiner) s++;
    while (e > s && (kindOf(text.charCodeAt(e - 1)) === Kind.Joiner || text.charCodeAt(e - 1) === 45)) e--;
    emitPart(text, lower, s, e, emit);
  }
}

/** All tokens of `text`, in order, duplicates kept. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
}
