/**
 * A model's structured answer checked against a JSON Schema: the JSON taken from the answer text (bare, or
 * in one ```json fence: models do that even in JSON mode), parsed, and validated with Ajv (formats
 * included). Each problem gets the JSON path it is at (`$.items[0].name`), so the correction turn and the
 * final error can say exactly what to fix. Ajv is loaded on first use.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { InvalidArgumentError, type OutputProblem } from '../errors';
import { checkSchemaSafety, safeAjvOptions } from '../jsonSchema/safeAjv';
import { valueDepthProblem } from '../jsonSchema/schemaLimits';
import { sha256Hex } from '../hashes';

/** Most problems listed in a correction turn or an error; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** What checking one answer found: its parsed value, or what is wrong with it. */
export type OutputCheck = { ok: true; value: unknown } | { ok: false; problems: OutputProblem[] };

/** A compiled output schema: `check` validates an answer's text against it. */
export interface OutputSchema {
  /** The schema as given (a copy). */
  readonly schema: Record<string, unknown>;
  /** sha256 of the schema's canonical JSON (keys sorted), the same for the same schema however it is written. */
  readonly schemaHash: string;
  check(answerText: string): OutputCheck;
}

type AjvLike = { compile(schema: object): ValidateFunction };

/** The module's own function, whether the loader hands over the CommonJS exports or an ES module wrapper. */
function defaultExport<T>(module: { default: T }): T {
  const inner = module.default as T & { default?: T };
  return inner.default ?? inner;
}

/** A fresh Ajv for the schema's draft (its `$schema`: 2020-12, 2019-09, else draft-07), with the formats and RE2 for patterns. */
async function ajvFor(schema: Record<string, unknown>): Promise<AjvLike> {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  const formats = defaultExport(await import('ajv-formats'));
  const options = safeAjvOptions({ allErrors: true, strict: false, logger: false as const });
  let ajv;
  if (draft.includes('2020-12')) ajv = new (defaultExport(await import('ajv/dist/2020')))(options);
  else if (draft.includes('2019-09')) ajv = new (defaultExport(await import('ajv/dist/2019')))(options);
  else ajv = new (defaultExport(await import('ajv')))(options);
  formats(ajv);
  return ajv;
}

const compiled = new Map<string, Promise<ValidateFunction>>();
const MAX_CACHED = 64;

/**
 * Compiles `schema` (cached by its hash); an `InvalidArgumentError` saying what Ajv found when it is not a
 * valid JSON Schema, or not an object.
 */
export async function compileOutputSchema(schema: unknown, what = 'outputSchema'): Promise<OutputSchema> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new InvalidArgumentError(`${what} must be a JSON Schema object (such as { "type": "object", "properties": { … } }), not ${describe(schema)}.`);
  }
  try {
    // Before the copy and the hash, which recurse: a schema over the limits is refused as it is.
    checkSchemaSafety(schema);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new InvalidArgumentError(`${what} is refused: ${error.message}.`);
    throw error;
  }
  const copy = structuredClone(schema) as Record<string, unknown>;
  const schemaHash = outputSchemaHash(copy);
  let validate = compiled.get(schemaHash);
  if (!validate) {
    // A new Ajv per schema: two schemas with the same `$id` must not collide in one instance.
    validate = ajvFor(copy).then((ajv) => ajv.compile(copy));
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(schemaHash, validate);
    validate.catch(() => compiled.delete(schemaHash));
  }
  let fn: ValidateFunction;
  try {
    fn = await validate;
  } catch (error) {
    throw new InvalidArgumentError(`${what} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}.`);
  }
  return { schema: copy, schemaHash, check: (text) => checkAnswer(fn, text) };
}

/** What is wrong with `schema` as a JSON Schema (Ajv's compile error), or `undefined` when it compiles. */
export async function outputSchemaProblem(schema: unknown): Promise<string | undefined> {
  try {
    await compileOutputSchema(schema, 'The output schema');
    return undefined;
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.message;
    throw error;
  }
}

/** sha256 of the schema's JSON with every object's keys sorted. */
export function outputSchemaHash(schema: object): string {
  return sha256Hex(canonicalJson(schema));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The JSON text of an answer: the whole answer, trimmed, or the inside of one fence (```json or ```) that is
 * the whole answer. Nothing cleverer: JSON with prose around it is not an answer in JSON.
 */
export function extractJsonText(answer: string): string {
  const text = answer.trim();
  const fence = /^```[ \t]*(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return fence ? fence[1].trim() : text;
}

function checkAnswer(validate: ValidateFunction, answer: string): OutputCheck {
  const text = extractJsonText(answer);
  if (text === '') return { ok: false, problems: [{ path: '$', message: 'the answer is empty; it must be JSON' }] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, problems: [{ path: '$', message: `the answer is not valid JSON (${why})` }] };
  }
  const tooDeep = valueDepthProblem(value);
  if (tooDeep) return { ok: false, problems: [{ path: '$', message: tooDeep }] };
  if (validate(value)) return { ok: true, value };
  const seen = new Set<string>();
  const problems: OutputProblem[] = [];
  for (const e of validate.errors ?? []) {
    const problem = describeProblem(e, value);
    const key = `${problem.path}\n${problem.message}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return { ok: false, problems: problems.length ? problems : [{ path: '$', message: 'does not match the schema' }] };
}

/** `/files/0/path` → `$.files[0].path`; a key that is not a plain name is quoted (`$["a b"]`). */
export function jsonPath(pointer: string, child?: string): string {
  const parts = pointer === '' ? [] : pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((path, part) => {
    if (/^\d+$/.test(part)) return `${path}[${part}]`;
    return /^[A-Za-z_$][\w$]*$/.test(part) ? `${path}.${part}` : `${path}[${JSON.stringify(part)}]`;
  }, '$');
}

function valueAt(input: unknown, pointer: string): unknown {
  let value = input;
  for (const part of pointer === '' ? [] : pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${String(value)}`;
}

function describeProblem(e: ErrorObject, value: unknown): OutputProblem {
  const path = jsonPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: jsonPath(e.instancePath, String(p.missingProperty)), message: 'is required but missing' };
    case 'additionalProperties':
      return { path: jsonPath(e.instancePath, String(p.additionalProperty)), message: 'is not allowed by the schema; leave it out' };
    case 'type':
      return { path, message: `must be ${String(p.type)}, not ${describe(valueAt(value, e.instancePath))}` };
    case 'enum':
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, not ${describe(valueAt(value, e.instancePath))}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(p.allowedValue)}` };
    default:
      return { path, message: e.message ?? `fails "${e.keyword}"` };
  }
}

/** The problems as `- path: message` lines, at most `MAX_LISTED_PROBLEMS` (the rest counted). */
export function problemLines(problems: readonly OutputProblem[]): string[] {
  const lines = problems.slice(0, MAX_LISTED_PROBLEMS).map((p) => `- ${p.path}: ${p.message}`);
  if (problems.length > MAX_LISTED_PROBLEMS) lines.push(`- and ${problems.length - MAX_LISTED_PROBLEMS} more`);
  return lines;
}

/** The user turn that sends an invalid answer's problems back to the model. */
export function correctionText(problems: readonly OutputProblem[]): string {
  return [
    'Your answer does not match the required JSON Schema:',
    ...problemLines(problems),
    'Answer again with the corrected JSON only: one JSON value that matches the schema, with no other text.',
  ].join('\n');
}
