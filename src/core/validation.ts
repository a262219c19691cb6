/**
 * Checks of the arguments the engine's public entry points take. Each throws an
 * `InvalidArgumentError` that names the argument and says what was expected, instead of letting a
 * bad value surface later as a `TypeError`, a `DataCloneError` or a silently changed string.
 */
import { InvalidArgumentError } from './errors';
import type { Role } from './types';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool', 'function'];

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Whether `text` holds half of a surrogate pair alone, which UTF-8 storage would turn into U+FFFD. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** A string (non-empty unless `allowEmpty`), or an `InvalidArgumentError` naming `name`. */
export function requireString(value: unknown, name: string, options: { allowEmpty?: boolean; name?: boolean } = {}): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(`${name} must be a string; got ${describe(value)}.`);
  if (!options.allowEmpty && value === '') throw new InvalidArgumentError(`${name} must not be empty.`);
  if (options.name && hasLoneSurrogate(value)) {
    throw new InvalidArgumentError(`${name} holds half of a UTF-16 surrogate pair, which cannot be stored as written; remove it or complete the pair.`);
  }
  return value;
}

/**
 * Whether `id` names a member every JavaScript object has (`constructor`, `__proto__`, `toString`…):
 * code that keeps something by id in a plain object would find that member instead, so new
 * conversations never get such an id (stored ones keep working: Arbor keeps per-id state in Maps).
 */
export function isReservedId(id: string): boolean {
  return Object.prototype.hasOwnProperty.call(Object.prototype, id);
}

/**
 * The id of a new conversation (made, forked or imported): a name (see `requireString`) that is not a
 * member every JavaScript object has; `InvalidArgumentError` naming `name` otherwise.
 */
export function requireNewConversationId(value: unknown, name: string): string {
  const id = requireString(value, name, { name: true });
  if (isReservedId(id)) {
    throw new InvalidArgumentError(`${name} "${id}" is the name of a member every JavaScript object has, which is no safe id; import or create it under a new conversationId.`);
  }
  return id;
}

/** A message role. */
export function requireRole(value: unknown, name = 'role'): Role {
  if (!ROLES.includes(value as Role)) throw new InvalidArgumentError(`${name} must be one of ${ROLES.join(', ')}; got ${describe(value)}.`);
  return value as Role;
}

/** A whole number of 0 or more. */
export function requireCount(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`${name} must be a whole number of 0 or more; got ${describe(value)}.`);
  return value;
}

/**
 * A value that survives storage unchanged: plain objects, arrays, strings, finite numbers,
 * booleans and null (an `undefined` property is allowed; it is dropped, as JSON drops it). Functions,
 * symbols, bigints, class instances, NaN and cycles are refused with the path of the bad part.
 */
export function requireJson(value: unknown, name: string): void {
  const seen = new Set<object>();
  const visit = (v: unknown, at: string): void => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new InvalidArgumentError(`${at} must be a finite number to be stored; got ${v}.`);
      return;
    }
    if (typeof v !== 'object') throw new InvalidArgumentError(`${at} cannot be stored: it is a ${typeof v}. Store plain data (objects, arrays, strings, numbers, booleans, null).`);
    if (seen.has(v)) throw new InvalidArgumentError(`${at} refers back to itself; stored data cannot hold cycles.`);
    seen.add(v);
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, `${at}[${i}]`));
    else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw new InvalidArgumentError(`${at} cannot be stored: it is an instance of ${proto?.constructor?.name ?? 'a class'}, not a plain object.`);
      for (const [key, item] of Object.entries(v)) if (item !== undefined) visit(item, `${at}.${key}`);
    }
    seen.delete(v);
  };
  visit(value, name);
}

/** A plain object of storable values (metadata). */
export function requireRecord(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(`${name} must be an object; got ${describe(value)}.`);
  requireJson(value, name);
  return value as Record<string, unknown>;
}
