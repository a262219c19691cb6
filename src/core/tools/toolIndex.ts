/**
 * A small relevance index over tool definitions, so a request that cannot carry every tool offers the
 * ones its question needs: BM25 over each tool's name (split into words), its description and, with a
 * lower weight, its parameters' names and descriptions. Built once per tool set (`toolIndexFor` keeps
 * the last few), queried once per request.
 */
import { forEachToken } from '../rag/tokenizer';
import type { ToolDefinition } from '../types';

/** How much one occurrence counts, by where it stands: a word of the name says most about the tool. */
const NAME_WEIGHT = 3;
const DESCRIPTION_WEIGHT = 1;
const PARAMETER_WEIGHT = 0.5;
/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** A tool's text indexed at most (a server's huge description must not make the index slow to build). */
const MAX_INDEXED_CHARS = 16_000;
/** How deep into nested schemas parameters are read. */
const MAX_SCHEMA_DEPTH = 3;

/**
 * A light suffix stripper, so "reads", "reading" and "read" meet: plural `s`, `ing` and `ed`, with a
 * doubled final consonant undone ("running" to "run"). Whole identifiers (with `_` or `-`) stay as they are.
 */
export function stemToolWord(word: string): string {
  if (word.length <= 3 || /[_\-$0-9]/.test(word)) return word;
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !stem.endsWith('ss') && !stem.endsWith('us') && !stem.endsWith('is')) stem = stem.slice(0, -1);
  else if (stem.endsWith('ing') && stem.length > 5) stem = stem.slice(0, -3);
  else if (stem.endsWith('ed') && stem.length > 4) stem = stem.slice(0, -2);
  else return stem;
  const n = stem.length;
  if (n > 3 && stem[n - 1] === stem[n - 2] && !'aeiouslz'.includes(stem[n - 1])) stem = stem.slice(0, -1);
  return stem;
}

/**
 * Words a question uses for what tool descriptions say otherwise ("add" two numbers, a tool that
 * returns their "sum"); a query word also looks for these, at `SYNONYM_WEIGHT`. Stemmed forms.
 */
const SYNONYM_GROUPS: readonly string[][] = [
  ['add', 'sum', 'plus'],
  ['delete', 'remove', 'erase'],
  ['find', 'search', 'grep', 'locate', 'look'],
  ['show', 'display', 'view', 'print', 'read'],
  ['list', 'ls', 'enumerate'],
  ['run', 'execute', 'exec', 'launch', 'start'],
  ['create', 'make', 'new', 'write'],
  ['edit', 'change', 'modify', 'update', 'replace', 'fix'],
  ['move', 'rename'],
  ['folder', 'directory', 'dir'],
  ['error', 'diagnostic', 'problem', 'warning'],
  ['download', 'fetch', 'url', 'web'],
  ['commit', 'git', 'history'],
];
const SYNONYM_WEIGHT = 0.5;
const SYNONYMS = new Map<string, string[]>();
for (const group of SYNONYM_GROUPS) for (const word of group) SYNONYMS.set(word, group.filter((w) => w !== word));

/** Calls `emit` with every stemmed word of `text` (the RAG tokenizer's code-aware split, then `stemToolWord`). */
function forEachWord(text: string, emit: (word: string) => void): void {
  forEachToken(text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text, (token) => emit(stemToolWord(token)));
}

/** The parameter names and descriptions of a JSON Schema, as one text (bounded depth and size). */
function schemaText(schema: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > MAX_SCHEMA_DEPTH || typeof schema !== 'object' || schema === null || out.length > 400) return out;
  const s = schema as Record<string, unknown>;
  const properties = s.properties;
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
      out.push(name);
      const description = (property as { description?: unknown } | null)?.description;
      if (typeof description === 'string') out.push(description);
      schemaText(property, depth + 1, out);
    }
  }
  if (typeof s.items === 'object') schemaText(s.items, depth + 1, out);
  return out;
}

/** BM25 over tool definitions; see the file's header. */
export class ToolIndex {
  /** The tools' names, in the order they were given. */
  readonly names: readonly string[];
  /** term → [tool position, weighted frequency] pairs, flattened. */
  private readonly postings = new Map<string, number[]>();
  private readonly lengths: Float64Array;
  private readonly averageLength: number;

  constructor(defs: readonly ToolDefinition[]) {
    this.names = defs.map((d) => d.function.name);
    this.lengths = new Float64Array(defs.length);
    let total = 0;
    defs.forEach((def, doc) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      const add = (weight: number) => (word: string) => {
        frequencies.set(word, (frequencies.get(word) ?? 0) + weight);
        length += weight;
      };
      forEachWord(def.function.name, add(NAME_WEIGHT));
      if (typeof def.function.description === 'string') forEachWord(def.function.description, add(DESCRIPTION_WEIGHT));
      forEachWord(schemaText(def.function.parameters).join('\n'), add(PARAMETER_WEIGHT));
      for (const [word, frequency] of frequencies) {
        let list = this.postings.get(word);
        if (!list) this.postings.set(word, (list = []));
        list.push(doc, frequency);
      }
      this.lengths[doc] = length;
      total += length;
    });
    this.averageLength = defs.length > 0 && total > 0 ? total / defs.length : 1;
  }

  /** Each tool's BM25 score for `query`, by position (0 for a tool that shares no word with it). */
  scores(query: string): Float64Array {
    const n = this.names.length;
    const scores = new Float64Array(n);
    // Each query word once, at its highest weight (a word typed beats the same word as a synonym).
    const words = new Map<string, number>();
    forEachWord(query, (word) => {
      words.set(word, 1);
      for (const synonym of SYNONYMS.get(word) ?? []) if (!words.has(synonym)) words.set(synonym, SYNONYM_WEIGHT);
    });
    for (const [word, weight] of words) {
      const list = this.postings.get(word);
      if (!list) continue;
      const df = list.length / 2;
      const idf = weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i];
        const tf = list[i + 1];
        scores[doc] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[doc]) / this.averageLength));
      }
    }
    return scores;
  }

  /** Every tool's name, the most relevant to `query` first; ties (tools that match equally, or not at all) keep the input order. */
  rank(query: string): string[] {
    const scores = this.scores(query);
    const order = Array.from(this.names.keys());
    order.sort((a, b) => scores[b] - scores[a] || a - b);
    return order.map((i) => this.names[i]);
  }
}

/** How many tool sets `toolIndexFor` keeps (the chat's, a flow's, one with MCP tools, one without…). */
const CACHED_INDEXES = 4;
const indexes = new Map<string, ToolIndex>();

/** What identifies a tool set for the cache: every name and description, in order. */
export function toolSetKey(defs: readonly ToolDefinition[]): string {
  let key = '';
  for (const def of defs) key += `${def.function.name}\u0000${def.function.description ?? ''}\u0001`;
  return key;
}

/** The index of `defs`, built on the first call for that tool set and kept for the next requests. */
export function toolIndexFor(defs: readonly ToolDefinition[]): ToolIndex {
  const key = toolSetKey(defs);
  let index = indexes.get(key);
  if (index) {
    // Most recently used last, so the oldest set is the one that goes.
    indexes.delete(key);
  } else {
    index = new ToolIndex(defs);
    if (indexes.size >= CACHED_INDEXES) indexes.delete(indexes.keys().next().value as string);
  }
  indexes.set(key, index);
  return index;
}
