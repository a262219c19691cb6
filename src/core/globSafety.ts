/**
 * Globs from the workspace (an instruction file's `applyTo` or `globs`) are compiled by picomatch into
 * JavaScript regular expressions, which backtrack: each `*` is a `[^/]*?` that may try every split of a
 * path, so `*a*a*a*a*a*a*a*a*a*a*b` against a 60-character file name of `a`s takes minutes, and a
 * repository controls both the glob and its file names. The time grows as the path length to the power of
 * the number of `*` runs, so a glob with more than `MAX_GLOB_WILDCARDS` of them is refused with a reason.
 */

/** Most `*` or `**` runs one glob may hold: `src/**\/test/**\/*.ts` has three. */
export const MAX_GLOB_WILDCARDS = 3;
/** Most characters of one glob. */
export const MAX_GLOB_CHARS = 1000;

/** picomatch options for workspace globs: no extended globs (`+(…)`, `!(…)`), which VS Code's globs do not have either. */
export const SAFE_GLOB_OPTIONS = Object.freeze({ noextglob: true });

/** Why `glob` is not used, or `undefined` when it may be. */
export function globProblem(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_CHARS) return `the glob "${glob.slice(0, 60)}…" is longer than ${MAX_GLOB_CHARS} characters`;
  const wildcards = glob.match(/\*+/g)?.length ?? 0;
  if (wildcards > MAX_GLOB_WILDCARDS) {
    return `the glob "${glob}" has ${wildcards} wildcards (* or **); at most ${MAX_GLOB_WILDCARDS} are read, since each one more can multiply the time to match a path (it could freeze VS Code)`;
  }
  return undefined;
}
