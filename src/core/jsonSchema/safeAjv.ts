/**
 * What every Ajv that compiles a schema from outside Arbor is given: RE2 for patterns (no backtracking
 * engine on a pattern from a file, a server or a model) and the size, depth and `$ref` limits checked
 * before Ajv sees the schema, so one hostile schema is refused with a reason instead of freezing or
 * crashing the extension host. Used by tool input schemas, output schemas and flow files.
 */
import { re2RegExp } from './schemaPattern';
import { checkSchemaLimits, DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schemaLimits';

/** `options` for `new Ajv(...)` with RE2 as the engine of `pattern` and `patternProperties`. */
export function safeAjvOptions<T extends object>(options: T): T & { code: { regExp: typeof re2RegExp } } {
  return { ...options, code: { ...(options as { code?: object }).code, regExp: re2RegExp } };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/**
 * Throws (a `SchemaLimitError` or a `SchemaPatternError`, both `InvalidArgumentError`s) when `schema` is
 * over a limit or holds a `pattern` or `patternProperties` key Arbor will not run; cheap and synchronous,
 * so a tool can be left out before it is offered. Ajv's compile checks the rest of the schema.
 */
export function checkSchemaSafety(schema: unknown, limits: Readonly<SchemaLimits> = DEFAULT_SCHEMA_LIMITS): void {
  checkSchemaLimits(schema, limits);
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    if (!isObj(node)) continue;
    if (typeof node.pattern === 'string') re2RegExp(node.pattern, 'u');
    if (isObj(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) re2RegExp(key, 'u');
    for (const [key, child] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) stack.push(child);
  }
}
