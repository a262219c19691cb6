/**
 * The rule language of flows (`when: "verdict == 'changes_needed' && round < 3"`, `set: {round: "round + 1"}`):
 * parsed by jsep, then checked and evaluated here over the flow's memory alone. Allowed: literals, names
 * of memory keys, member access on plain objects and arrays (own data properties only), comparisons,
 * `&&` `||` `!`, arithmetic, `a ? b : c`, array literals, and the functions of `FUNCTIONS`. Refused: `this`,
 * calls of anything else, assignment, `new`, several expressions, and the names `__proto__`,
 * `constructor` and `prototype` anywhere. No `eval`, no JavaScript object is ever reached.
 */
import jsep from 'jsep';
import { FlowExpressionError } from './flowErrors';

type Node = jsep.Expression;

/** Most characters of one expression. */
const MAX_EXPRESSION_CHARS = 2000;

const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']);
const BINARY = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=', '&&', '||', '+', '-', '*', '/', '%']);
const UNARY = new Set(['!', '-', '+']);

/** The functions a rule may call, by name; nothing else is callable. */
const FUNCTIONS: Record<string, { arity: number; run: (...args: unknown[]) => unknown }> = {
  /** Length of a string or list, or the number of keys of an object; 0 for anything else. */
  len: { arity: 1, run: (x) => (typeof x === 'string' || Array.isArray(x) ? x.length : isPlainObject(x) ? Object.keys(x).length : 0) },
  /** Whether a list holds a value, a string a substring, or an object an own key. */
  contains: {
    arity: 2,
    run: (a, b) =>
      Array.isArray(a) ? a.some((x) => same(x, b)) : typeof a === 'string' ? typeof b === 'string' && a.includes(b) : isPlainObject(a) && typeof b === 'string' && Object.hasOwn(a, b),
  },
  lower: { arity: 1, run: (s) => (typeof s === 'string' ? s.toLowerCase() : s) },
  upper: { arity: 1, run: (s) => (typeof s === 'string' ? s.toUpperCase() : s) },
};

/** A checked expression, ready to evaluate over any memory. */
export interface CompiledExpression {
  readonly source: string;
  /** Memory keys it reads at top level (for the checks). */
  readonly names: string[];
  evaluate(memory: Record<string, unknown>): unknown;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `==` of the language: strict equality, except that null and a missing value are equal. */
function same(a: unknown, b: unknown): boolean {
  return a === b || (a == null && b == null);
}

/**
 * Parses and checks an expression; throws `FlowExpressionError` (with the 0-based index of the problem when
 * known) for a syntax error or anything outside the language.
 */
export function compileExpression(source: string): CompiledExpression {
  if (typeof source !== 'string' || source.trim() === '') throw new FlowExpressionError('An expression is empty: write a condition such as `verdict == \'ok\'`.', String(source ?? ''));
  if (source.length > MAX_EXPRESSION_CHARS) throw new FlowExpressionError(`Expression "${source.slice(0, 40)}…" is longer than ${MAX_EXPRESSION_CHARS} characters.`, source);
  let ast: Node;
  try {
    ast = jsep(source);
  } catch (err) {
    const e = err as { description?: string; index?: number; message?: string };
    throw new FlowExpressionError(`Expression "${source}" is not valid: ${e.description ?? e.message}`, source, e.index);
  }
  const names = new Set<string>();
  check(ast, source, names);
  return { source, names: [...names], evaluate: (memory) => evaluate(ast, memory, source) };
}

function refuse(source: string, why: string): never {
  throw new FlowExpressionError(`Expression "${source}" is refused: ${why}. Rules may only read the flow's memory.`, source);
}

function check(node: Node, source: string, names: Set<string>): void {
  switch (node.type) {
    case 'Literal':
      if ((node as jsep.Literal).value instanceof RegExp) refuse(source, 'regular expressions are not part of the rule language');
      return;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (FORBIDDEN_NAMES.has(name)) refuse(source, `"${name}" is not a memory key`);
      if (name === 'this' || name === 'new' || name === 'in' || name === 'typeof' || name === 'void' || name === 'delete') refuse(source, `"${name}" is not part of the rule language`);
      names.add(name);
      return;
    }
    case 'ThisExpression':
      return refuse(source, '`this` is not allowed');
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      check(m.object, source, names);
      if (m.computed) {
        check(m.property, source, names);
        const key = m.property.type === 'Literal' ? String((m.property as jsep.Literal).value) : undefined;
        if (key !== undefined && FORBIDDEN_NAMES.has(key)) refuse(source, `"${key}" is not a memory key`);
      } else {
        const prop = (m.property as jsep.Identifier).name;
        if (FORBIDDEN_NAMES.has(prop)) refuse(source, `"${prop}" is not a memory key`);
      }
      return;
    }
    case 'BinaryExpression': {
      const b = node as jsep.BinaryExpression;
      if (!BINARY.has(b.operator)) refuse(source, `the operator "${b.operator}" is not allowed`);
      check(b.left, source, names);
      check(b.right, source, names);
      return;
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      if (!UNARY.has(u.operator)) refuse(source, `the operator "${u.operator}" is not allowed`);
      check(u.argument, source, names);
      return;
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      [c.test, c.consequent, c.alternate].forEach((n) => check(n, source, names));
      return;
    }
    case 'ArrayExpression':
      for (const el of (node as jsep.ArrayExpression).elements) {
        if (el === null) refuse(source, 'a list has an empty place');
        check(el, source, names);
      }
      return;
    case 'CallExpression': {
      const c = node as jsep.CallExpression;
      const callee = c.callee.type === 'Identifier' ? (c.callee as jsep.Identifier).name : undefined;
      if (callee === undefined || !Object.hasOwn(FUNCTIONS, callee)) {
        refuse(source, `only the functions ${Object.keys(FUNCTIONS).join(', ')} may be called${callee ? ` (not "${callee}")` : ', and no method of a value'}`);
      }
      if (c.arguments.length !== FUNCTIONS[callee].arity) refuse(source, `${callee} takes ${FUNCTIONS[callee].arity} argument${FUNCTIONS[callee].arity === 1 ? '' : 's'}`);
      c.arguments.forEach((a) => check(a, source, names));
      return;
    }
    case 'Compound':
    case 'SequenceExpression':
      return refuse(source, 'write one expression (no `,` or `;`, and no `in`, `new` or assignment)');
    default:
      return refuse(source, `${node.type} is not part of the rule language`);
  }
}

/** The own data property `key` of a plain object or array; refused for anything else. */
function member(target: unknown, key: unknown, source: string): unknown {
  if (target === undefined || target === null) return undefined;
  if (typeof key !== 'string' && typeof key !== 'number') refuse(source, 'a property name must be a string or a number');
  const name = String(key);
  if (FORBIDDEN_NAMES.has(name)) refuse(source, `"${name}" is not a memory key`);
  if (!isPlainObject(target) && !Array.isArray(target)) refuse(source, `it reads "${name}" of a ${typeof target}, which is not an object of the memory (use len() for lengths)`);
  const desc = Object.getOwnPropertyDescriptor(target, name);
  if (!desc) return undefined;
  if (!('value' in desc)) refuse(source, `"${name}" is not a plain value`);
  return desc.value;
}

function number(v: unknown, op: string, source: string): number {
  if (typeof v !== 'number') refuse(source, `"${op}" needs numbers, got ${v === null ? 'null' : typeof v}`);
  return v;
}

function evaluate(node: Node, memory: Record<string, unknown>, source: string): unknown {
  const ev = (n: Node) => evaluate(n, memory, source);
  switch (node.type) {
    case 'Literal':
      return (node as jsep.Literal).value;
    case 'Identifier': {
      const name = (node as jsep.Identifier).name;
      if (name === 'undefined') return undefined;
      return member(memory, name, source);
    }
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      const target = ev(m.object);
      const key = m.computed ? ev(m.property) : (m.property as jsep.Identifier).name;
      return member(target, key, source);
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const v = ev(u.argument);
      if (u.operator === '!') return !v;
      const n = number(v, u.operator, source);
      return u.operator === '-' ? -n : n;
    }
    case 'ConditionalExpression': {
      const c = node as jsep.ConditionalExpression;
      return ev(c.test) ? ev(c.consequent) : ev(c.alternate);
    }
    case 'ArrayExpression':
      return (node as jsep.ArrayExpression).elements.map((e) => ev(e as Node));
    case 'CallExpression': {
      const c = node as jsep.CallExpression;
      const fn = FUNCTIONS[(c.callee as jsep.Identifier).name];
      return fn.run(...c.arguments.map(ev));
    }
    case 'BinaryExpression':
      return binary(node as jsep.BinaryExpression, ev, source);
    default:
      return refuse(source, `${node.type} is not part of the rule language`);
  }
}

function binary(b: jsep.BinaryExpression, ev: (n: Node) => unknown, source: string): unknown {
  if (b.operator === '&&') return ev(b.left) && ev(b.right);
  if (b.operator === '||') return ev(b.left) || ev(b.right);
  const l = ev(b.left);
  const r = ev(b.right);
  switch (b.operator) {
    case '==':
    case '===':
      return same(l, r);
    case '!=':
    case '!==':
      return !same(l, r);
    case '+':
      if (typeof l === 'string' || typeof r === 'string') {
        if ((typeof l !== 'string' && typeof l !== 'number') || (typeof r !== 'string' && typeof r !== 'number')) refuse(source, '"+" joins strings and numbers only');
        return `${l}${r}`;
      }
      return number(l, '+', source) + number(r, '+', source);
    case '-':
      return number(l, '-', source) - number(r, '-', source);
    case '*':
      return number(l, '*', source) * number(r, '*', source);
    case '/':
      return number(l, '/', source) / number(r, '/', source);
    case '%':
      return number(l, '%', source) % number(r, '%', source);
    default: {
      // Comparisons: numbers with numbers, strings with strings; anything else (a missing value) is false.
      const comparable = (typeof l === 'number' && typeof r === 'number') || (typeof l === 'string' && typeof r === 'string');
      if (!comparable) return false;
      const [x, y] = [l as number | string, r as number | string];
      return b.operator === '<' ? x < y : b.operator === '<=' ? x <= y : b.operator === '>' ? x > y : x >= y;
    }
  }
}
