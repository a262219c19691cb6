/**
 * Safety limits on prompt templates: their defaults, the overrides, the advice a refused template gets, and
 * the text scan that runs before Handlebars parses. The limits' shape lives at the root (`../limits.ts`).
 */
import { PromptLimitError, type PromptLimitName } from '../errors';
import type { PromptLimits } from '../limits';
import type { SourceOffset } from '../libraryFiles/fileTypes';


/** The limits rendering checks as it goes. */
export type RenderLimits = Pick<PromptLimits, 'maxOutputChars' | 'maxRenderMs'>;

/** Defaults of `PromptLimits`: a real prompt is a few kilobytes with tens of expressions and two or three includes. */
export const DEFAULT_PROMPT_LIMITS: Readonly<PromptLimits> = Object.freeze({
  maxTemplateBytes: 1_048_576,
  maxExpressions: 5_000,
  maxNestingDepth: 100,
  maxPartialDepth: 20,
  maxPartialExpansions: 1_000,
  maxOutputChars: 8_000_000,
  maxRenderMs: 2_000,
});

/** `base` (the defaults) with the given overrides; a value that is not a positive number keeps the base's. */
export function resolvePromptLimits(overrides: Partial<PromptLimits> = {}, base: Readonly<PromptLimits> = DEFAULT_PROMPT_LIMITS): PromptLimits {
  const out: PromptLimits = { ...base };
  for (const key of Object.keys(out) as Array<keyof PromptLimits>) {
    const v = overrides[key];
    if (typeof v === 'number' && v > 0) out[key] = v;
  }
  return out;
}

const ADVICE: Record<PromptLimitName, string> = {
  maxTemplateBytes: 'split the file into partials, or raise limits.maxTemplateBytes in the prompt library options',
  maxExpressions: 'split the template into partials, or raise limits.maxExpressions in the prompt library options',
  maxNestingDepth: 'nest fewer blocks, or raise limits.maxNestingDepth in the prompt library options',
  maxPartialDepth: 'include partials less deeply, or raise limits.maxPartialDepth in the prompt library options',
  maxPartialExpansions:
    'include fewer partials (a partial included n times brings its own includes n times), or raise limits.maxPartialExpansions in the prompt library options',
  maxOutputChars: 'loop over less (an {{#each}} inside an {{#each}} multiplies), or raise limits.maxOutputChars in the prompt builder options',
  maxRenderMs: 'loop over less (an {{#each}} inside an {{#each}} multiplies), or raise limits.maxRenderMs in the prompt builder options',
};

/** A positioned `PromptLimitError`: what passed the limit, the limit and its value, and what to do. */
export function limitError(limit: PromptLimitName, value: number, what: string, file: string, line: number, column: number): PromptLimitError {
  return new PromptLimitError(`${file}:${line}:${column}: ${what}, over the limit ${limit} = ${value}; ${ADVICE[limit]}`, limit, value, file, line, column);
}

/**
 * Checks a template's size, expression count and block nesting from its text, before Handlebars parses it
 * (its parser is slow and deeply recursive on hostile input). Comments are skipped; the count is of `{{`.
 */
export function scanTemplateText(text: string, file: string, offset: SourceOffset, limits: PromptLimits): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxTemplateBytes) {
    throw limitError('maxTemplateBytes', limits.maxTemplateBytes, `the template is ${bytes} bytes`, file, offset.line, offset.column + 1);
  }
  let count = 0;
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let i = text.indexOf('{{');
  let scanned = 0;
  const at = (pos: number) => {
    for (let j = text.indexOf('\n', scanned); j !== -1 && j < pos; j = text.indexOf('\n', j + 1)) {
      line++;
      lineStart = j + 1;
    }
    scanned = pos;
    return { line: offset.line + line - 1, column: pos - lineStart + 1 + offset.column };
  };
  while (i !== -1) {
    let j = i + 2;
    if (text[j] === '~') j++;
    if (text[j] === '!') {
      const end = text.startsWith('--', j + 1) ? text.indexOf('--}}', j) : text.indexOf('}}', j);
      i = end === -1 ? -1 : text.indexOf('{{', end + 2);
      continue;
    }
    count++;
    if (count > limits.maxExpressions) {
      const p = at(i);
      throw limitError('maxExpressions', limits.maxExpressions, `the template has more than ${limits.maxExpressions} {{ }} expressions`, file, p.line, p.column);
    }
    const escaped = i > 0 && text[i - 1] === '\\' && !(i > 1 && text[i - 2] === '\\');
    if (!escaped) {
      const c = text[j];
      if (c === '#' || (c === '^' && !/^\^\s*~?}}/.test(text.slice(j, j + 8)))) depth++;
      else if (c === '/') depth = Math.max(0, depth - 1);
      if (depth > limits.maxNestingDepth) {
        const p = at(i);
        throw limitError('maxNestingDepth', limits.maxNestingDepth, `blocks are nested more than ${limits.maxNestingDepth} deep here`, file, p.line, p.column);
      }
    }
    i = text.indexOf('{{', j);
  }
}
