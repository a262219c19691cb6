/**
 * Fitting tool definitions into a token budget (a share of a small model's window). In order: send
 * every tool unchanged when they fit; else shorten long descriptions to their first sentence, the
 * biggest savings first, until they fit; else keep the tools that must stay and add the most relevant
 * ones for the question (`ToolIndex`) while they fit. Whenever anything was cut, `describe_tool` is
 * offered too (and counted), so the model can read any tool's full text and still call it.
 */
import { InvalidArgumentError } from '../errors';
import type { ToolDefinition } from '../types';
import { DESCRIBE_TOOL_DEFINITION, DESCRIBE_TOOL_NAME } from './describeTool';
import { toolIndexFor, type ToolIndex } from './toolIndex';

/** What `fitTools` fits. */
export interface ToolFitOptions {
  /** Every tool the chat could offer, in its own order (a `describe_tool` among them is offered only when something is cut). */
  tools: readonly ToolDefinition[];
  /** The latest user message (or the draft): what relevance is judged against. */
  query: string;
  /** Most tokens the definitions may take. */
  budgetTokens: number;
  /**
   * Tokens of these definitions as sent on the wire (`TokenCounter.countTools`). Pass the same function
   * from request to request: per-tool counts are cached by it.
   */
  countTools(defs: readonly ToolDefinition[]): number;
  /** Names that always stay (tools the conversation used, tools the user pinned). */
  keep?: ReadonlySet<string>;
  /** The relevance index of `tools` (default: `toolIndexFor(tools)`). */
  index?: ToolIndex;
}

/** What to send, and what was done to make it fit. */
export interface ToolFit {
  /** What to send, in the input order (`describe_tool` last, when anything was cut). */
  offered: ToolDefinition[];
  /** Names not offered. */
  leftOut: string[];
  /** Names offered with their descriptions cut to the first sentence. */
  shortened: string[];
  /** `countTools(offered)`. */
  tokens: number;
  /** `countTools(tools)`: what all of them would cost. */
  allTokens: number;
  /** True when `tokens` is over the budget: the `keep` tools alone do not fit. */
  overBudget: boolean;
}

/** Characters kept of a description with no sentence end in it. */
const NO_SENTENCE_CHARS = 200;
/** Words whose period does not end a sentence. */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'incl', 'eg', 'ie', 'mr', 'mrs', 'dr', 'fig', 'resp', 'esp']);

/**
 * The first sentence of `text`: up to the first `.`, `!` or `?` followed by a space or the end (not the
 * period of `e.g.`, `i.e.`, `etc.`, a version number or a file name), or up to a blank line. A text with
 * no such end keeps about its first 200 characters, cut at a word.
 */
export function firstSentence(text: string): string {
  const trimmed = text.trim();
  const paragraph = trimmed.search(/\n\s*\n/);
  const head = paragraph >= 0 ? trimmed.slice(0, paragraph) : trimmed;
  const ends = /[.!?](?=\s|$)/g;
  for (let m = ends.exec(head); m; m = ends.exec(head)) {
    if (m[0] === '.') {
      const word = /([A-Za-z.]+)$/.exec(head.slice(Math.max(0, m.index - 12), m.index))?.[1]?.toLowerCase() ?? '';
      if (ABBREVIATIONS.has(word) || /^[a-z]$/.test(word)) continue;
    }
    return head.slice(0, m.index + 1);
  }
  if (head.length <= NO_SENTENCE_CHARS * 1.25) return head;
  const cut = head.slice(0, NO_SENTENCE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > NO_SENTENCE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `schema` with the descriptions of its properties (at any depth) cut to their first sentence; the same object when none changes. */
function shortenSchema(schema: unknown, depth = 0): unknown {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) {
    const items = schema.map((item) => shortenSchema(item, depth + 1));
    return items.some((item, i) => item !== schema[i]) ? items : schema;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const next = key === 'description' && typeof value === 'string' && depth > 0 ? firstSentence(value) : key === 'description' || key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : shortenSchema(value, depth + 1);
    if (next !== value) (out ??= { ...(schema as Record<string, unknown>) })[key] = next;
  }
  return out ?? schema;
}

/** `def` with its description and its parameters' descriptions cut to the first sentence; `def` itself when nothing is cut. */
export function shortenTool(def: ToolDefinition): ToolDefinition {
  const { description, parameters } = def.function;
  const short = description === undefined ? description : firstSentence(description);
  const schema = parameters === undefined ? parameters : (shortenSchema(parameters) as Record<string, unknown>);
  if (short === description && schema === parameters) return def;
  const fn: ToolDefinition['function'] = { name: def.function.name };
  if (short !== undefined) fn.description = short;
  if (schema !== undefined) fn.parameters = schema;
  return { ...def, function: fn };
}

type Counter = ToolFitOptions['countTools'];

/** What is remembered of one definition, by its JSON: its tokens alone, and its short form with its tokens (none when nothing shortens). */
interface ToolEntry {
  tokens: number;
  short?: { def: ToolDefinition; tokens: number };
}

/** Per counter: a definition's JSON → its entry (bounded), and a tool set's JSON → the tokens of all of it. */
const toolEntries = new WeakMap<Counter, Map<string, ToolEntry>>();
const setCounts = new WeakMap<Counter, Map<string, number>>();
const MAX_CACHED_TOOLS = 4_000;
const MAX_CACHED_SETS = 8;

function remember<T>(map: Map<string, T>, key: string, value: T, max: number): T {
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}

/**
 * One definition's counts and short form, cached by its JSON (the sum over tools is an estimate of a
 * set's count; the exact count of what is offered is taken at the end). The short form is shared from
 * one request to the next: callers send it, never change it.
 */
function entryOf(count: Counter, def: ToolDefinition, json: string): ToolEntry {
  let cache = toolEntries.get(count);
  if (!cache) toolEntries.set(count, (cache = new Map()));
  const known = cache.get(json);
  if (known) return known;
  const short = shortenTool(def);
  const entry: ToolEntry = { tokens: count([def]) };
  if (short !== def) entry.short = { def: short, tokens: count([short]) };
  return remember(cache, json, entry, MAX_CACHED_TOOLS);
}

/** Tokens of a whole tool set, cached by the JSON of its definitions (`jsons`, one per tool). */
function countAll(count: Counter, tools: readonly ToolDefinition[], jsons: readonly string[]): number {
  let cache = setCounts.get(count);
  if (!cache) setCounts.set(count, (cache = new Map()));
  const key = jsons.join(',');
  return cache.get(key) ?? remember(cache, key, count(tools), MAX_CACHED_SETS);
}

const DESCRIBE_JSON = JSON.stringify(DESCRIBE_TOOL_DEFINITION);

/** Fits `options.tools` into `options.budgetTokens`; see the file's header. */
export function fitTools(options: ToolFitOptions): ToolFit {
  const { budgetTokens: budget, countTools: count } = options;
  if (!(budget >= 0)) throw new InvalidArgumentError(`budgetTokens must be a number of 0 or more; got ${String(budget)}.`);
  const keep = options.keep ?? new Set<string>();
  const jsonOf = options.tools.map((t) => JSON.stringify(t));
  const kept = options.tools.map((_, i) => i).filter((i) => options.tools[i].function.name !== DESCRIBE_TOOL_NAME);
  const tools = kept.map((i) => options.tools[i]);
  const jsons = kept.map((i) => jsonOf[i]);
  const allTokens = countAll(count, options.tools, jsonOf);
  const wholeTokens = tools.length === options.tools.length ? allTokens : countAll(count, tools, jsons);
  if (wholeTokens <= budget) return { offered: [...tools], leftOut: [], shortened: [], tokens: wholeTokens, allTokens, overBudget: false };

  const describeTokens = entryOf(count, DESCRIBE_TOOL_DEFINITION, DESCRIBE_JSON).tokens;
  const entries = tools.map((t, i) => entryOf(count, t, jsons[i]));
  const full = entries.map((e) => e.tokens);
  const short = entries.map((e, i) => e.short?.def ?? tools[i]);
  const shortTokens = entries.map((e) => e.short?.tokens ?? e.tokens);
  const finish = (chosen: readonly boolean[], useShort: readonly boolean[], drop: number[]): ToolFit => {
    const offered: ToolDefinition[] = [];
    const shortened: string[] = [];
    const leftOut: string[] = [];
    tools.forEach((t, i) => {
      if (!chosen[i]) leftOut.push(t.function.name);
      else if (useShort[i] && short[i] !== t) {
        offered.push(short[i]);
        shortened.push(t.function.name);
      } else offered.push(t);
    });
    offered.push(DESCRIBE_TOOL_DEFINITION);
    let tokens = count(offered);
    // The per-tool sum was an estimate: while the exact count is over, the least relevant chosen tool goes.
    while (tokens > budget && drop.length > 0) {
      const i = drop.pop() as number;
      const name = tools[i].function.name;
      offered.splice(offered.indexOf(useShort[i] ? short[i] : tools[i]), 1);
      if (shortened.includes(name)) shortened.splice(shortened.indexOf(name), 1);
      leftOut.push(name);
      tokens = count(offered);
    }
    // Only the kept tools are left and they do not fit: `describe_tool` does not add to the excess.
    if (tokens > budget) {
      offered.pop();
      tokens = offered.length > 0 ? count(offered) : 0;
    }
    const order = new Map(tools.map((t, i) => [t.function.name, i]));
    leftOut.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    return { offered, leftOut, shortened, tokens, allTokens, overBudget: tokens > budget };
  };

  // Shorten, the biggest saving first, while the estimate is over.
  const savings = tools.map((_, i) => i).filter((i) => shortTokens[i] < full[i]);
  savings.sort((a, b) => full[b] - shortTokens[b] - (full[a] - shortTokens[a]) || a - b);
  let estimate = describeTokens + full.reduce((s, n) => s + n, 0);
  const useShort = tools.map(() => false);
  for (const i of savings) {
    if (estimate <= budget) break;
    useShort[i] = true;
    estimate -= full[i] - shortTokens[i];
  }
  if (estimate <= budget) {
    const fit = finish(tools.map(() => true), useShort, []);
    if (fit.tokens <= budget && fit.offered.includes(DESCRIBE_TOOL_DEFINITION)) return fit;
  }

  // Choose: the kept tools, then the most relevant while they fit, all in their short form.
  const index = options.index ?? toolIndexFor(tools);
  const position = new Map(tools.map((t, i) => [t.function.name, i]));
  const chosen = tools.map(() => false);
  const allShort = tools.map(() => true);
  let used = describeTokens;
  tools.forEach((t, i) => {
    if (keep.has(t.function.name)) {
      chosen[i] = true;
      used += shortTokens[i];
    }
  });
  const added: number[] = [];
  for (const name of index.rank(options.query)) {
    const i = position.get(name);
    if (i === undefined || chosen[i] || used + shortTokens[i] > budget) continue;
    chosen[i] = true;
    used += shortTokens[i];
    added.push(i);
  }
  return finish(chosen, allShort, added);
}
