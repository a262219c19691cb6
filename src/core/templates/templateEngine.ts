/**
 * The Handlebars engine of prompt and flow templates: parsing under the safety limits, analysis (includes,
 * unknown helpers), compiling, and the helpers. Below both the prompt library (prompts/) and flows (flows/),
 * which use it without importing each other.
 */
import Handlebars from 'handlebars';
import { PromptError } from '../errors';
import { ANY_VALUE_HELPER, convertConditionalSections, hasValue } from './conditionalSections';
import type { SourceOffset } from '../libraryFiles/fileTypes';
import { DEFAULT_PROMPT_LIMITS, limitError, scanTemplateText } from './promptLimits';
import { type PromptLimits } from '../limits';

/** A compiled template: call it with the values and the partials it includes. */
export type CompiledTemplate = Handlebars.TemplateDelegate;

/** A `{{> name}}` include found in a template, with its position in the file. */
export interface PartialUse {
  name: string;
  /** True for `{{> (expression)}}`, which the library cannot check and does not allow. */
  dynamic: boolean;
  /** Where it is included: at top level (`required`), under a condition, or where the context changes. */
  context: 'required' | 'optional' | 'none';
  line: number;
  column: number;
}

/** What a template refers to, found by walking its syntax tree. */
export interface TemplateAnalysis {
  /** Top-level variables used where a value is needed (outside `#if`/`#unless` and conditional sections). */
  required: string[];
  /** Variables used only in conditions or conditional sections. */
  optional: string[];
  partials: PartialUse[];
  /** Helpers called that this engine does not have (Handlebars would fail at render time). */
  unknownHelpers: Array<{ name: string; line: number; column: number }>;
}

/** A template after `((...))` conversion, ready to compile, with its analysis. */
export interface PreparedTemplate {
  source: string;
  analysis: TemplateAnalysis;
}

const env = Handlebars.create();
env.registerHelper(ANY_VALUE_HELPER, (...args: unknown[]) => args.slice(0, -1).some(hasValue));

/** Handlebars' token names, as a person reads them. */
const TOKENS: Record<string, string> = {
  INVALID: 'character',
  EOF: 'end of template',
  OPEN_ENDBLOCK: '"{{/" (a block closed that was never opened?)',
  OPEN_BLOCK: '"{{#"',
  OPEN_INVERSE: '"{{^"',
  OPEN: '"{{"',
  CLOSE: '"}}"',
  CLOSE_UNESCAPED: '"}}}"',
  OPEN_PARTIAL: '"{{>"',
  ID: 'name',
  EQUALS: '"="',
  STRING: 'string',
};

/** Converts Handlebars' own errors into a `PromptError` that names the file, line and column. */
function syntaxError(err: unknown, source: string, file: string, offset: SourceOffset): PromptError {
  const e = err as { message?: string; lineNumber?: number; column?: number };
  let line: number;
  let column: number;
  if (typeof e.lineNumber === 'number') {
    line = e.lineNumber;
    column = (e.column ?? 0) + 1;
  } else {
    const loc = (Handlebars as unknown as { Parser?: { lexer?: { yylloc?: { first_line: number; first_column: number } } } }).Parser
      ?.lexer?.yylloc;
    const fromMessage = /line (\d+)/.exec(e.message ?? '');
    line = loc?.first_line ?? (fromMessage ? Number(fromMessage[1]) : 1);
    column = (loc?.first_column ?? 0) + 1;
  }
  // An error at the end of the template (an unclosed {{) points past the text: show the last written line.
  const lines = source.split('\n');
  let last = lines.length;
  while (last > 1 && lines[last - 1].trim() === '') last--;
  if (line > last) {
    line = last;
    column = lines[last - 1].length + 1;
  }
  const fileLine = offset.line + line - 1;
  const fileColumn = column + offset.column;
  const messageLines = (e.message ?? 'unknown error').split('\n');
  const detail = messageLines[messageLines.length - 1].replace(/ - \d+:\d+$/, '');
  const got = /got '([^']+)'$/.exec(detail);
  const reason = got ? `unexpected ${TOKENS[got[1]] ?? `"${got[1]}"`} (check the {{ }} around it)` : detail;
  return new PromptError(`${file}:${fileLine}:${fileColumn}: template syntax error: ${reason}`, file, fileLine, fileColumn);
}

/** Parses a template, throwing a positioned `PromptError` when it is not valid Handlebars. */
export function parseTemplate(source: string, file: string, offset: SourceOffset, limits: PromptLimits = DEFAULT_PROMPT_LIMITS): hbs.AST.Program {
  try {
    return Handlebars.parse(source);
  } catch (err) {
    // The parser recurses once per nested block; a stack overflow the text scan did not foresee is still a nesting limit.
    if (err instanceof RangeError) {
      throw limitError('maxNestingDepth', limits.maxNestingDepth, 'blocks are nested too deeply to parse', file, offset.line, offset.column + 1);
    }
    throw syntaxError(err, source, file, offset);
  }
}

/**
 * Checks a template's size, expression count and nesting against `limits`, then its syntax at its real file
 * position, converts dataknobs conditional sections when asked, and lists the variables and partials it uses.
 */
export function prepareTemplate(
  template: string,
  file: string,
  offset: SourceOffset,
  conditionalSections: boolean,
  limits: PromptLimits = DEFAULT_PROMPT_LIMITS,
): PreparedTemplate {
  scanTemplateText(template, file, offset, limits);
  const original = parseTemplate(template, file, offset, limits);
  if (!conditionalSections || !template.includes('((')) {
    return { source: template, analysis: analyze(original, offset) };
  }
  const source = convertConditionalSections(template);
  let converted: hbs.AST.Program;
  try {
    converted = Handlebars.parse(source);
  } catch {
    throw new PromptError(
      `${file}:${offset.line}:${offset.column + 1}: a ((...)) conditional section starts inside a {{#block}} and ends outside it (or the other way round); keep each section within one block`,
      file,
      offset.line,
      offset.column + 1,
    );
  }
  // Partial positions come from the original text, variables from the converted one (sections make them optional).
  const analysis = analyze(converted, offset);
  analysis.partials = analyze(original, offset).partials;
  return { source, analysis };
}

// Keyed by the template text itself, which a Map hashes natively: one lookup per render, no sha256 of its own.
const cache = new Map<string, CompiledTemplate>();

/** Compiles with values inserted as text (no HTML escaping); compiled templates are cached by their text. */
export function compileTemplate(source: string): CompiledTemplate {
  let compiled = cache.get(source);
  if (!compiled) {
    compiled = env.compile(source, { noEscape: true });
    rememberBounded(cache, source, compiled);
  }
  return compiled;
}

/** Adds to a cache map, dropping the oldest entry past `max` (inline prompts would otherwise grow it forever). */
export function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, max = 1000): void {
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

/** The engine's helpers by name (`if`, `each`, ..., the hooks too), for rendering to wrap with its limits. */
export function engineHelpers(): Record<string, Handlebars.HelperDelegate> {
  return { ...env.helpers } as Record<string, Handlebars.HelperDelegate>;
}

/** Walks the syntax tree, sorting top-level variable uses into required and optional. */
function analyze(program: hbs.AST.Program, offset: SourceOffset): TemplateAnalysis {
  const required = new Set<string>();
  const optional = new Set<string>();
  const partials: PartialUse[] = [];
  const pos = (loc: hbs.AST.SourceLocation) => ({
    line: offset.line + loc.start.line - 1,
    column: loc.start.column + 1 + offset.column,
  });
  const unknownHelpers: TemplateAnalysis['unknownHelpers'] = [];
  const helperCall = (path: hbs.AST.Expression) => {
    if (path.type !== 'PathExpression') return;
    const p = path as hbs.AST.PathExpression;
    if (p.data || p.depth > 0 || p.parts.length !== 1 || p.parts[0] in env.helpers) return;
    unknownHelpers.push({ name: p.original, ...pos(p.loc) });
  };

  const varName = (expr: hbs.AST.Expression): string | undefined => {
    if (expr.type !== 'PathExpression') return undefined;
    const p = expr as hbs.AST.PathExpression;
    if (p.data || p.depth > 0 || p.parts.length === 0) return undefined;
    return p.parts[0];
  };
  const use = (expr: hbs.AST.Expression, mode: 'required' | 'optional' | 'none') => {
    if (mode === 'none') return;
    if (expr.type === 'SubExpression') {
      const sub = expr as hbs.AST.SubExpression;
      helperCall(sub.path);
      sub.params.forEach((p) => use(p, 'optional'));
      return;
    }
    const name = varName(expr);
    if (name) (mode === 'required' ? required : optional).add(name);
  };

  const walk = (node: hbs.AST.Node | undefined | null, mode: 'required' | 'optional' | 'none'): void => {
    if (!node) return;
    switch (node.type) {
      case 'Program':
        (node as hbs.AST.Program).body.forEach((n) => walk(n, mode));
        return;
      case 'MustacheStatement': {
        const m = node as hbs.AST.MustacheStatement;
        const isCall = m.params.length > 0 || (m.hash?.pairs.length ?? 0) > 0;
        if (isCall) {
          helperCall(m.path);
          m.params.forEach((p) => use(p, mode));
        }
        else use(m.path, mode);
        return;
      }
      case 'BlockStatement': {
        const b = node as hbs.AST.BlockStatement;
        const helper = b.path.type === 'PathExpression' ? (b.path as hbs.AST.PathExpression).original : '';
        if (helper === 'if' || helper === 'unless') {
          b.params.forEach((p) => use(p, mode === 'none' ? 'none' : 'optional'));
          walk(b.program, mode === 'none' ? 'none' : 'optional');
          walk(b.inverse, mode === 'none' ? 'none' : 'optional');
        } else {
          // each/with/custom blocks change the context: their bodies' names are not top-level params.
          if (b.params.length) {
            helperCall(b.path);
            b.params.forEach((p) => use(p, mode));
          }
          else use(b.path, mode === 'none' ? 'none' : 'optional');
          walk(b.program, 'none');
          walk(b.inverse, mode);
        }
        return;
      }
      case 'PartialStatement':
      case 'PartialBlockStatement': {
        const p = node as hbs.AST.PartialStatement;
        // Types say PathExpression | SubExpression, but `{{> "quoted/name"}}` parses to a StringLiteral.
        const target = p.name as { type: string; value?: string; original?: string };
        const name = target.type === 'StringLiteral' ? target.value : target.original;
        partials.push({ name: name ?? '', dynamic: target.type === 'SubExpression', context: mode, ...pos(p.loc) });
        if (node.type === 'PartialBlockStatement') walk((node as hbs.AST.PartialBlockStatement).program, mode);
        return;
      }
      default:
        return;
    }
  };
  walk(program, 'required');
  for (const r of required) optional.delete(r);
  return { required: [...required], optional: [...optional], partials, unknownHelpers };
}
