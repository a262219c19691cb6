/**
 * Size and depth limits on JSON Schemas from outside (MCP servers, other extensions, prompt and flow
 * files, models' requests) and on the values checked against them. Ajv's compile time and memory grow
 * faster than the schema (30,000 properties: 27 s and 800 MB), it recurses once per level of a schema or
 * of a value (so 20,000 levels is a `RangeError`), and a `$ref` graph can make one small schema expand
 * exponentially or refer to itself forever. Each check walks with its own stack and stops at the limit,
 * so it costs no more than the limit however large the input is.
 */
import { InvalidArgumentError } from '../errors';

/** Limits on one schema; see `DEFAULT_SCHEMA_LIMITS`. */
export interface SchemaLimits {
  /** Objects, arrays and properties in the schema, counted as written. */
  maxParts: number;
  /** Characters of its keys and strings. */
  maxChars: number;
  /** Objects and arrays nested inside each other. */
  maxDepth: number;
  /** Subschemas once each `$ref` is counted as the schema it names (a recursion into the value counts once). */
  maxExpandedParts: number;
  /** `$ref`s followed inside each other. */
  maxRefDepth: number;
}

/** Far above real tool and output schemas (the largest MCP tool schemas hold a few hundred parts). */
export const DEFAULT_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
  maxParts: 10_000,
  maxChars: 1_000_000,
  maxDepth: 100,
  maxExpandedParts: 50_000,
  maxRefDepth: 200,
});

/** Levels a value checked against a schema may nest (a model's tool arguments or structured answer). */
export const MAX_VALUE_DEPTH = 256;

/** A schema over one of the limits; `limit` names it. */
export class SchemaLimitError extends InvalidArgumentError {
  constructor(
    message: string,
    readonly limit: keyof SchemaLimits,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose value is data, not a schema: a `$ref` key inside them refers to nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example', 'required', 'type', 'description', 'title']);
/** Keywords whose subschemas apply to a part of the value, not the value itself: a recursion through them ends with the value. */
const DESCENDING_KEYWORDS = new Set(['properties', 'patternProperties', 'additionalProperties', 'items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames']);

/**
 * Throws a `SchemaLimitError` when `schema` is over a limit, before Ajv sees it: too many parts or
 * characters, nested too deeply, or a `$ref` graph that expands too far or refers to itself without
 * going into the value (which would recurse until the stack runs out).
 */
export function checkSchemaLimits(schema: unknown, limits: Readonly<SchemaLimits> = DEFAULT_SCHEMA_LIMITS): void {
  checkSize(schema, limits);
  new RefExpansion(schema, limits).run();
}

function checkSize(schema: unknown, limits: Readonly<SchemaLimits>): void {
  let parts = 0;
  let chars = 0;
  const stack: Array<[unknown, number]> = [[schema, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') chars += value.length;
    if (chars > limits.maxChars) throw new SchemaLimitError(`the schema is larger than ${limits.maxChars.toLocaleString('en-US')} characters; shorten its descriptions or describe fewer fields`, 'maxChars');
    if (value === null || typeof value !== 'object') continue;
    if (depth > limits.maxDepth) throw new SchemaLimitError(`the schema is nested deeper than ${limits.maxDepth} levels; a real schema nests a few levels (use $ref and $defs for recursive shapes)`, 'maxDepth');
    // Object.keys, not Object.entries: on an object of a million keys the latter is many times slower.
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    parts += 1 + (keys?.length ?? 0);
    if (parts > limits.maxParts) throw new SchemaLimitError(`the schema has more than ${limits.maxParts.toLocaleString('en-US')} parts (objects, lists and properties); split it, or describe fewer fields`, 'maxParts');
    if (Array.isArray(value)) {
      for (const child of value) stack.push([child, depth + 1]);
    } else {
      for (const key of keys!) {
        chars += key.length;
        stack.push([(value as Obj)[key], depth + 1]);
      }
    }
  }
}

/** Counts the subschemas a validation may visit for one value, following `$ref`s; see `checkSchemaLimits`. */
class RefExpansion {
  private readonly memo = new Map<Obj, number>();
  private readonly ids = new Map<string, Obj>();
  /** The subschemas being counted, outermost first, each with whether the path from it to the next went into the value. */
  private readonly path: Array<{ node: Obj; descended: boolean }> = [];
  private refDepth = 0;

  constructor(
    private readonly root: unknown,
    private readonly limits: Readonly<SchemaLimits>,
  ) {}

  run(): void {
    if (!isObj(this.root)) return;
    this.collectIds();
    this.count(this.root);
  }

  /** Every `$id`, `$anchor` and `$dynamicAnchor` of the schema, for the `$ref`s that name them. */
  private collectIds(): void {
    const stack: unknown[] = [this.root];
    while (stack.length) {
      const node = stack.pop();
      if (Array.isArray(node)) stack.push(...node);
      if (!isObj(node)) continue;
      for (const key of ['$id', 'id']) if (typeof node[key] === 'string') this.ids.set(String(node[key]).replace(/#$/, ''), node);
      for (const key of ['$anchor', '$dynamicAnchor']) if (typeof node[key] === 'string') this.ids.set(`#${String(node[key])}`, node);
      for (const [key, child] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) stack.push(child);
    }
  }

  private count(node: Obj): number {
    const known = this.memo.get(node);
    if (known !== undefined) return known;
    if (this.path.length >= this.limits.maxDepth + this.limits.maxRefDepth) {
      throw new SchemaLimitError(`the schema nests deeper than ${this.limits.maxDepth + this.limits.maxRefDepth} levels once its $refs are followed; refer less deeply`, 'maxRefDepth');
    }
    this.path.push({ node, descended: false });
    let total = 1;
    const frame = this.path[this.path.length - 1];
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      frame.descended = DESCENDING_KEYWORDS.has(key);
      if ((key === '$ref' || key === '$recursiveRef' || key === '$dynamicRef') && typeof value === 'string') total += this.follow(value);
      else total += this.countChildren(key, value);
      if (total > this.limits.maxExpandedParts) {
        throw new SchemaLimitError(`the schema's $refs expand it to more than ${this.limits.maxExpandedParts.toLocaleString('en-US')} subschemas (a $ref used twice in a definition used twice…); refer to fewer definitions`, 'maxExpandedParts');
      }
    }
    this.path.pop();
    this.memo.set(node, total);
    return total;
  }

  private countChildren(key: string, value: unknown): number {
    const children = Array.isArray(value) ? value : isObj(value) ? (['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'].includes(key) ? Object.values(value) : [value]) : [];
    let total = 0;
    for (const child of children) if (isObj(child)) total += this.count(child);
    return total;
  }

  private follow(ref: string): number {
    const target = this.resolve(ref);
    if (!target) return 1;
    const at = this.path.findIndex((p) => p.node === target);
    if (at >= 0) {
      // A recursion: fine when it goes into a part of the value (a tree), endless when it stays on the same value.
      if (this.path.slice(at).some((p) => p.descended)) return 1;
      throw new SchemaLimitError(`the schema refers to itself through "$ref": ${JSON.stringify(ref)} without going into a property or item, so checking any value would never end; fix the $ref`, 'maxRefDepth');
    }
    if (++this.refDepth > this.limits.maxRefDepth) throw new SchemaLimitError(`the schema follows more than ${this.limits.maxRefDepth} $refs inside each other; refer less deeply`, 'maxRefDepth');
    try {
      return this.count(target);
    } finally {
      this.refDepth--;
    }
  }

  /** The subschema a `$ref` names within this schema (`#`, `#/json/pointer`, an `$id` or an anchor), if any. */
  private resolve(ref: string): Obj | undefined {
    const hash = ref.indexOf('#');
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    let start: unknown = base === '' ? this.root : this.ids.get(base);
    if (!start) return undefined;
    if (fragment === '' || fragment === '/') return isObj(start) ? start : undefined;
    if (!fragment.startsWith('/')) return this.ids.get(`#${fragment}`);
    for (const raw of fragment.slice(1).split('/')) {
      let part: string;
      try {
        part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return undefined;
      }
      if (Array.isArray(start)) start = start[Number(part)];
      else if (isObj(start) && Object.hasOwn(start, part)) start = start[part];
      else return undefined;
    }
    return isObj(start) ? start : undefined;
  }
}

/**
 * `undefined` when `value` nests at most `maxDepth` levels of objects and arrays, else a problem to
 * report instead of validating (Ajv would overflow the stack on a deep enough value).
 */
export function valueDepthProblem(value: unknown, maxDepth = MAX_VALUE_DEPTH): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) return `is nested deeper than ${maxDepth} levels of objects and lists; send a flatter value`;
    for (const child of Array.isArray(v) ? v : Object.keys(v).map((k) => (v as Obj)[k])) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return undefined;
}
