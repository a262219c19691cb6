/**
 * `grep`: an exact-text or regular-expression search of the workspace files with ripgrep. rg honours
 * `.gitignore` itself and is told to skip the tool folders and secret files; every match is then checked
 * against the workspace rules (`WorkspaceAccess.allows`), so grep shows exactly what `read_file` would
 * read. Stop (the call's signal) kills rg.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ALWAYS_SKIPPED_DIRS, DEFAULT_SECRET_PATTERNS, defineTool, InvalidArgumentError, InvalidOperationError } from '../../core/index';
import { pathMatcher } from './listFilesTool';
import type { OfferedTool } from './offeredTool';
import { RipgrepUnavailableError, runRipgrep, type RipgrepMatch } from './ripgrep';
import { MAX_READ_BYTES, WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

/** Matches returned when the model does not say. */
export const GREP_DEFAULT_RESULTS = 100;
/** Most matches one call may ask for. */
export const GREP_MAX_RESULTS = 1000;
/** Most characters shown of one matching line (around the match). */
const LINE_CHARS = 300;

/** What the model passes to `grep`. */
export interface GrepInput {
  pattern: string;
  isRegexp?: boolean;
  glob?: string;
  caseSensitive?: boolean;
  maxResults?: number;
}

/** The rg arguments of a search (without the roots' rule checks, which follow the run). */
export function ripgrepArgs(input: GrepInput, roots: readonly string[], options: { secretPatterns?: readonly string[]; maxFileBytes?: number } = {}): string[] {
  const args = ['--json', '--no-config', '--hidden', '--no-require-git', '--sort', 'path', '--glob-case-insensitive'];
  args.push('--max-filesize', String(options.maxFileBytes ?? MAX_READ_BYTES));
  if (!input.isRegexp) args.push('--fixed-strings');
  args.push(input.caseSensitive ? '--case-sensitive' : '--ignore-case');
  // rg never even opens these; the rule check after the run is what decides.
  for (const dir of ALWAYS_SKIPPED_DIRS) args.push('--glob', `!${dir}`);
  for (const g of options.secretPatterns ?? DEFAULT_SECRET_PATTERNS) args.push('--glob', g.includes('/') ? `!**/${g}` : `!${g}`);
  args.push('--regexp', input.pattern, '--', ...roots);
  return args;
}

/**
 * The folders rg searches: each workspace folder, or, when the glob starts with a fixed folder
 * (`src/**\/*.ts`), that folder inside it (the nearest one that exists), so rg reads no more than it must.
 */
export async function searchRoots(access: WorkspaceAccess, glob: string | undefined, isDirectory: (abs: string) => Promise<boolean>): Promise<string[]> {
  const g = (glob ?? '').trim().replace(/\\/g, '/').replace(/^\.\//, '');
  const scan = picomatch.scan(g);
  const base = g.includes('/') && !scan.negated ? scan.base : '';
  if (!base) return [...access.folders];
  const roots: string[] = [];
  for (const folder of access.folders) {
    const name = path.basename(folder);
    const rels = [base, ...(access.folders.length > 1 && base.startsWith(`${name}/`) ? [base.slice(name.length + 1)] : [])];
    for (const rel of rels) {
      let abs = path.join(folder, ...rel.split('/'));
      while (abs !== folder && !(await isDirectory(abs))) abs = path.dirname(abs);
      if (!roots.includes(abs)) roots.push(abs);
    }
  }
  return roots;
}

/** A matching line cut to `LINE_CHARS` characters around the match. */
export function lineExcerpt(text: string, column: number): string {
  if (text.length <= LINE_CHARS) return text;
  const start = Math.max(0, Math.min(column - 80, text.length - LINE_CHARS));
  const end = start + LINE_CHARS;
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/** The `grep` tool over `env`. */
export function grepTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<GrepInput>({
    name: 'grep',
    description:
      'Search the workspace files for exact text or a regular expression (ripgrep). Returns `path:line: text` for each matching line, in path order. ' +
      'By default `pattern` is plain text and case is ignored; set `isRegexp` for a regular expression (Rust syntax) and `caseSensitive` to match case. ' +
      '`glob` limits the files, as in list_files (`src/**/*.ts`, `*.py`). Files ignored by .gitignore or the retrieval excludes, secret files, binary files and node_modules are not searched.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'Text to find, or a regular expression when isRegexp is true.' },
        isRegexp: { type: 'boolean', default: false, description: 'Treat pattern as a regular expression.' },
        glob: { type: 'string', description: 'Only search files whose path matches this glob (relative to the workspace folder).' },
        caseSensitive: { type: 'boolean', default: false, description: 'Match upper and lower case exactly.' },
        maxResults: { type: 'integer', minimum: 1, maximum: GREP_MAX_RESULTS, default: GREP_DEFAULT_RESULTS, description: 'Most matching lines to return.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const access = new WorkspaceAccess(env);
      if (access.folders.length === 0) throw new InvalidArgumentError('No workspace folder is open, so there is nothing to search.');
      const glob = input.glob?.trim() || undefined;
      const matches = glob ? pathMatcher(glob) : () => true;
      const multi = access.folders.length > 1;
      const roots = await searchRoots(access, glob, async (abs) => (await env.files.stat(abs))?.type === 'directory');
      const max = input.maxResults ?? GREP_DEFAULT_RESULTS;
      const kept: RipgrepMatch[] = [];
      let truncated = false;
      const onMatch = async (m: RipgrepMatch): Promise<boolean> => {
        const loc = access.scanner.locate(m.path);
        if (!loc || !(matches(loc.relPath) || (multi && matches(access.scanner.shownPath(loc.folder, loc.relPath))))) return true;
        if (!(await access.allows(m.path))) return true;
        if (kept.length >= max) {
          truncated = true;
          return false;
        }
        kept.push(m);
        return true;
      };
      const args = ripgrepArgs(input, roots, { secretPatterns: env.secretPatterns, maxFileBytes: env.maxReadBytes });
      let result;
      try {
        result = await runRipgrep(env.ripgrepPath(), args, onMatch, ctx.signal);
      } catch (err) {
        if (err instanceof RipgrepUnavailableError) throw new InvalidOperationError(`grep is not available: ${err.message} Use search_workspace, or list_files and read_file, instead.`);
        throw err;
      }
      const how = `${input.isRegexp ? 'regular expression' : 'text'}, ${input.caseSensitive ? 'matching case' : 'ignoring case'}${glob ? `, in files matching "${glob}"` : ''}`;
      if (result.exitCode === 2 && kept.length === 0) {
        const hint = input.isRegexp ? ' Fix the regular expression (Rust syntax; escape ( ) [ ] { } . * + ? | \\ ^ $ to match them as text), or set isRegexp to false to search for the text as written.' : '';
        throw new InvalidArgumentError(`ripgrep could not search: ${result.stderr || 'it failed without saying why'}.${hint}`);
      }
      if (kept.length === 0) return `No matches for "${input.pattern}" (${how}). Ignored, excluded, secret and binary files are not searched.`;
      const lines = kept.map((m) => `${access.shownPath(m.path)}:${m.line}: ${lineExcerpt(m.text, m.column)}`);
      const notes: string[] = [];
      if (truncated) notes.push(`[Stopped after ${max} matches; there are more. Narrow the search with glob or a more specific pattern, or raise maxResults (at most ${GREP_MAX_RESULTS}).]`);
      if (result.exitCode === 2 && result.stderr) notes.push(`[ripgrep could not read some files: ${result.stderr.split('\n')[0]}]`);
      return [`${kept.length}${truncated ? '+' : ''} matching line${kept.length === 1 ? '' : 's'} for "${input.pattern}" (${how}):`, ...lines, ...notes].join('\n');
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}
