/**
 * The fields where Arbor and dataknobs write the same fact differently: times (dataknobs writes
 * Python's naive local `datetime.now().isoformat()`) and node metadata (dataknobs reads
 * `cost_usd`, `usage.prompt_tokens`, `finish_reason`, `rag_metadata`; Arbor keeps camelCase keys).
 * Arbor stores only its own keys; an export adds dataknobs' beside them and an import folds them back.
 */
import { InvalidArgumentError } from '../errors';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** An ISO time as dataknobs writes one: naive local time, microseconds only when there are some. */
export function toLocalIso(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const base = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  const ms = date.getMilliseconds();
  return ms === 0 ? base : `${base}.${pad(ms * 1000, 6)}`;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const NAIVE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?$/;

/**
 * Reads an ISO time into UTC ISO. A time with a zone (`Z`, `+02:00`) is that instant; a naive one,
 * as dataknobs writes from Python's `datetime.now()`, is a local time of this machine.
 */
export function fromLocalIso(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidArgumentError(`${field} must be an ISO 8601 time string, got ${JSON.stringify(value)}.`);
  }
  const naive = NAIVE.exec(value);
  let ms: number;
  if (naive) {
    const [year, month, day, hour, minute, second] = naive.slice(1, 7).map((part) => Number(part ?? 0));
    const daysInMonth = month === 2 ? (isLeapYear(year) ? 29 : 28) : new Date(Date.UTC(2001, month, 0)).getUTCDate();
    const valid = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
    const date = new Date(2000, month - 1, day, hour, minute, second, Math.floor(Number(`0.${naive[7] ?? '0'}`) * 1000));
    date.setFullYear(year, month - 1, day);
    ms = valid ? date.getTime() : NaN;
  } else {
    ms = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value) ? Date.parse(value) : NaN;
  }
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError(`${field} is not a valid ISO 8601 time: "${value}".`);
  }
  return new Date(ms).toISOString();
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const USAGE_KEYS: Array<[camel: string, snake: string]> = [
  ['promptTokens', 'prompt_tokens'],
  ['completionTokens', 'completion_tokens'],
  ['totalTokens', 'total_tokens'],
];

const RAG_KEYS: Array<[camel: string, snake: string]> = [
  ['queryHash', 'query_hash'],
  ['formattedContent', 'formatted_content'],
];

function withSnake(value: Json, keys: Array<[string, string]>): Json {
  const out = { ...value };
  for (const [camel, snake] of keys) if (out[camel] !== undefined && out[snake] === undefined) out[snake] = out[camel];
  return out;
}

function toCamel(value: Json, keys: Array<[string, string]>): Json {
  const out = { ...value };
  for (const [camel, snake] of keys) {
    if (out[snake] === undefined) continue;
    if (out[camel] === undefined) out[camel] = out[snake];
    delete out[snake];
  }
  return out;
}

function mapValues(value: Json, fn: (v: Json) => Json): Json {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? fn(v) : v]));
}

/** Node metadata for a dataknobs file: Arbor's keys, plus the ones dataknobs reads for the same facts. */
export function toDataknobsMetadata(metadata: Json): Json {
  const out: Json = { ...metadata };
  if (typeof out.costUsd === 'number' && out.cost_usd === undefined) out.cost_usd = out.costUsd;
  if (typeof out.finishReason === 'string' && out.finish_reason === undefined) out.finish_reason = out.finishReason;
  if (isObject(out.usage)) out.usage = withSnake(out.usage, USAGE_KEYS);
  if (isObject(out.ragMetadata) && out.rag_metadata === undefined) out.rag_metadata = mapValues(out.ragMetadata, (v) => withSnake(v, RAG_KEYS));
  return out;
}

/** Node metadata from a dataknobs file (written by dataknobs or Arbor), in Arbor's keys only. */
export function fromDataknobsMetadata(raw: unknown): Json {
  const out: Json = isObject(raw) ? { ...raw } : {};
  if (out.cost_usd !== undefined) {
    if (out.costUsd === undefined && typeof out.cost_usd === 'number') out.costUsd = out.cost_usd;
    delete out.cost_usd;
  }
  if (out.finish_reason !== undefined) {
    if (out.finishReason === undefined) out.finishReason = out.finish_reason;
    delete out.finish_reason;
  }
  if (isObject(out.usage)) out.usage = toCamel(out.usage, USAGE_KEYS);
  if (isObject(out.rag_metadata)) {
    if (out.ragMetadata === undefined) out.ragMetadata = mapValues(out.rag_metadata, (v) => toCamel(v, RAG_KEYS));
    delete out.rag_metadata;
  }
  return out;
}
