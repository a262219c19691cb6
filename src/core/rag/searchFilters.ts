/**
 * Per-query helpers of the workspace index: the `filters` a prompt's retrieval config may give, and
 * the boost for query terms found in a file's path (a query about "webhooks" favours webhooks.ts).
 */
import picomatch from 'picomatch';
import { InvalidArgumentError } from '../errors';
import { globProblem, SAFE_GLOB_OPTIONS } from '../globSafety';
import { languageOf } from './fileRules';
import { tokenize } from './tokenizer';

function asList(v: unknown): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/**
 * Compiles `{include, exclude, language}` (each a string, a comma list or an array; `paths` and
 * `glob` are accepted for `include`) into a test over a file's relative and shown paths;
 * `undefined` when the filters restrict nothing. A glob `globProblem` refuses (one that could take
 * minutes to match a path) is an `InvalidArgumentError` naming it.
 */
export function compileFilters(filters: Record<string, unknown> | undefined): ((relPath: string, shownPath: string) => boolean) | undefined {
  if (!filters) return undefined;
  const include = [...asList(filters.include), ...asList(filters.paths), ...asList(filters.glob)];
  const exclude = asList(filters.exclude);
  const languages = new Set(asList(filters.language ?? filters.languages).map((l) => l.toLowerCase()));
  if (include.length === 0 && exclude.length === 0 && languages.size === 0) return undefined;
  for (const glob of [...include, ...exclude]) {
    const problem = globProblem(glob);
    if (problem) throw new InvalidArgumentError(`The retrieval filters are refused: ${problem}; write a simpler glob in the retrieval config.`);
  }
  const inc = include.length ? picomatch(include, { ...SAFE_GLOB_OPTIONS, dot: true }) : undefined;
  const exc = exclude.length ? picomatch(exclude, { ...SAFE_GLOB_OPTIONS, dot: true }) : undefined;
  return (rel, shown) => {
    if (inc && !inc(rel) && !inc(shown)) return false;
    if (exc && (exc(rel) || exc(shown))) return false;
    return languages.size === 0 || languages.has(languageOf(rel));
  };
}

/** Path tokens of every file, and the score each file gets for the query terms in its path. */
export class PathBoost {
  private readonly byToken = new Map<string, number[]>();
  private readonly fileCount: number;

  /** `paths[i]` is file i's relative path, `undefined` for an empty slot. */
  constructor(private readonly paths: ReadonlyArray<string | undefined>, private readonly weight: number) {
    let n = 0;
    paths.forEach((p, i) => {
      if (p === undefined) return;
      n++;
      for (const t of new Set(tokenize(p))) {
        const l = this.byToken.get(t);
        if (l) l.push(i);
        else this.byToken.set(t, [i]);
      }
    });
    this.fileCount = n;
  }

  /** Per file id: the sum over distinct query tokens in its path of weight x idf (rarer path words count more). */
  boosts(queryTokens: readonly string[]): Float64Array {
    const boost = new Float64Array(this.paths.length);
    for (const t of new Set(queryTokens)) {
      const files = this.byToken.get(t);
      if (!files) continue;
      const idf = Math.log(1 + (this.fileCount - files.length + 0.5) / (files.length + 0.5));
      for (const f of files) boost[f] += this.weight * idf;
    }
    return boost;
  }
}
