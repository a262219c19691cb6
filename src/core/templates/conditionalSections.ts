/** dataknobs' `((...))` conditional sections, turned into Handlebars before a template is parsed. */
/** Name of the Handlebars helper the converted sections call; registered by `templateEngine`. */
export const ANY_VALUE_HELPER = 'arborAnyValue';

type Node = string | Section;
interface Section {
  children: Node[];
  vars: string[];
}

const SIMPLE_PATH = /^[A-Za-z_][\w.-]*$/;

/** Whether a value counts as "given" for a conditional section: not missing, null, empty or blank. */
export function hasValue(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string') return v.trim() !== '';
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

/** The variable a mustache's inside refers to, when it is a plain value or the condition of a block. */
function mustacheVariable(inner: string): string | undefined {
  let s = inner.replace(/^~|~$/g, '').trim();
  if (s.startsWith('&')) s = s.slice(1).trim();
  const block = /^#(?:if|unless|each|with)\s+([^\s}]+)/.exec(s);
  if (block) s = block[1];
  if (!SIMPLE_PATH.test(s) || s === 'else' || s === 'this') return undefined;
  return s;
}

/**
 * Turns dataknobs `((...))` conditional sections into Handlebars: a section whose variables are all empty
 * or missing disappears; otherwise its text stays (without the parentheses). Sections nest, and an outer
 * section counts the variables of the sections inside it. A section without variables is not a condition
 * and stays as written, parentheses included (code such as `f((x))`); an unclosed `((` is literal text too. Mustaches are copied whole, so `((` inside them is untouched.
 */
export function convertConditionalSections(source: string): string {
  const root: Section = { children: [], vars: [] };
  const stack: Section[] = [root];
  let text = '';
  const flush = () => {
    if (text) stack[stack.length - 1].children.push(text);
    text = '';
  };
  let i = 0;
  while (i < source.length) {
    if (source.startsWith('{{', i)) {
      const triple = source.startsWith('{{{', i);
      const comment = source.startsWith('{{!--', i);
      const close = comment ? '--}}' : triple ? '}}}' : '}}';
      const end = source.indexOf(close, i + 2);
      const stop = end < 0 ? source.length : end + close.length;
      const whole = source.slice(i, stop);
      text += whole;
      if (!comment && end >= 0) {
        const name = mustacheVariable(source.slice(i + (triple ? 3 : 2), end));
        if (name) for (const s of stack) s.vars.push(name);
      }
      i = stop;
    } else if (source.startsWith('((', i)) {
      flush();
      const section: Section = { children: [], vars: [] };
      stack[stack.length - 1].children.push(section);
      stack.push(section);
      i += 2;
    } else if (source.startsWith('))', i) && stack.length > 1) {
      flush();
      stack.pop();
      i += 2;
    } else {
      text += source[i];
      i += 1;
    }
  }
  flush();
  // Sections still open at the end were never closed: their `((` is plain text.
  for (let d = stack.length - 1; d > 0; d--) (stack[d] as Section & { unclosed?: boolean }).unclosed = true;
  return serialize(root.children);
}

function serialize(nodes: Node[]): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n === 'string') {
      out += n;
      continue;
    }
    const inner = serialize(n.children);
    if ((n as Section & { unclosed?: boolean }).unclosed) out += `((${inner}`;
    else if (n.vars.length === 0) out += `((${inner}))`;
    else out += `{{#if (${ANY_VALUE_HELPER} ${[...new Set(n.vars)].join(' ')})}}${inner}{{/if}}`;
  }
  return out;
}
