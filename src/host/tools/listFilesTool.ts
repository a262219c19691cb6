/**
 * `list_files`: the workspace's files that match a glob, as the workspace scanner finds them (so never
 * an ignored, excluded or secret file), sorted by path and capped with a count of the rest.
 */
import picomatch from 'picomatch';
import { defineTool, globProblem, InvalidArgumentError, SAFE_GLOB_OPTIONS } from '../../core/index';
import type { OfferedTool } from './offeredTool';
import { WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

/** Paths listed when the model does not say. */
export const LIST_DEFAULT_RESULTS = 500;
/** Most paths one call may ask for. */
export const LIST_MAX_RESULTS = 5000;

interface ListFilesInput {
  glob?: string;
  maxResults?: number;
}

/**
 * A matcher of workspace-relative paths for a model's glob: `src/**\/*.ts` matches from the folder's
 * root, a pattern without `/` (`*.md`) matches file names at any depth, and a plain path that is not a
 * glob (`src`, `src/`) matches that file or everything below that folder. Throws for `..` and
 * absolute patterns, which would leave the workspace.
 */
export function pathMatcher(glob: string): (relPath: string) => boolean {
  let g = glob.trim().replace(/\\/g, '/').replace(/^\.\//, '');
  if (g.startsWith('/') || /^[A-Za-z]:/.test(g) || g.split('/').includes('..')) {
    throw new InvalidArgumentError(`The glob "${glob}" leaves the workspace; write it relative to a workspace folder, e.g. "src/**/*.ts".`);
  }
  const problem = globProblem(g);
  if (problem) throw new InvalidArgumentError(`${problem[0].toUpperCase()}${problem.slice(1)}; use a simpler glob.`);
  if (g === '' || g === '.') return () => true;
  if (g.endsWith('/')) g += '**';
  const patterns = picomatch.scan(g).isGlob ? [g] : [g, `${g}/**`];
  // picomatch's basename option breaks patterns that have a slash, so each pattern gets its own matcher.
  const matchers = patterns.map((pattern) => picomatch(pattern, { ...SAFE_GLOB_OPTIONS, dot: true, basename: !pattern.includes('/') }));
  return (relPath) => matchers.some((m) => m(relPath));
}

/** The `list_files` tool over `env`. */
export function listFilesTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<ListFilesInput>({
    name: 'list_files',
    description:
      'List the files of the workspace whose path matches a glob, sorted by path. Globs are relative to the workspace folder: `src/**/*.ts` (from the root), ' +
      '`*.md` (a pattern without "/" matches file names at any depth), `docs/` or `docs` (everything below that folder). No glob lists every file. ' +
      'Files ignored by .gitignore or the retrieval excludes, secret files and node_modules are never listed.',
    inputSchema: {
      type: 'object',
      properties: {
        glob: { type: 'string', description: 'Glob of paths relative to the workspace folder. Default: every file.' },
        maxResults: { type: 'integer', minimum: 1, maximum: LIST_MAX_RESULTS, default: LIST_DEFAULT_RESULTS, description: 'Most paths to return.' },
      },
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const access = new WorkspaceAccess(env);
      if (access.folders.length === 0) throw new InvalidArgumentError('No workspace folder is open, so there are no files to list.');
      const glob = input.glob?.trim() || '';
      const matches = pathMatcher(glob);
      const multi = access.folders.length > 1;
      const found = await access.scanner.scan(ctx.signal);
      const paths = found
        .filter((f) => matches(f.relPath) || (multi && matches(access.scanner.shownPath(f.folder, f.relPath))))
        .map((f) => access.scanner.shownPath(f.folder, f.relPath))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const what = glob ? `matching "${glob}"` : 'in the workspace';
      if (paths.length === 0) return `No files ${what} (ignored, excluded and secret files are not listed).`;
      const max = input.maxResults ?? LIST_DEFAULT_RESULTS;
      const shown = paths.slice(0, max);
      const head = paths.length > max ? `${paths.length} files ${what}; the first ${max} by path:` : `${paths.length} file${paths.length === 1 ? '' : 's'} ${what}:`;
      const rest = paths.length > max ? `\n[… ${paths.length - max} more not shown; narrow the glob or raise maxResults (at most ${LIST_MAX_RESULTS}).]` : '';
      return `${head}\n${shown.join('\n')}${rest}`;
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}
