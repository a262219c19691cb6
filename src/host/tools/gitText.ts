/**
 * The text the git tools give the model, built from what the Git extension returns: a diff with the
 * sections of secret, ignored and outside-the-workspace files taken out (a tracked `.env` would otherwise
 * reach the model through its diff), and commits as short readable entries. Pure (no `vscode`).
 */
import * as path from 'node:path';

/** One file's part of a `git diff`, with the paths it may name, relative to the repository root. */
export interface DiffSection {
  text: string;
  /** Each path the section names, as the readings it allows (one, or with and without an `a/`-style prefix when that cannot be told). */
  paths: string[][];
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '"': 34, '\\': 92 };

/** A path as git writes it: plain, or C-quoted (`"a/\303\244.txt"`) when it has unusual characters. */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const bytes: number[] = [];
  const s = raw.slice(1, -1);
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      bytes.push(...Buffer.from(s[i], 'utf8'));
    } else if (/[0-7]{3}/.test(s.slice(i + 1, i + 4))) {
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[s[i + 1]] ?? s.charCodeAt(i + 1));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * How a section's paths are written: with prefixes (`a/x b/x`, the default, or `i/ w/` ones), without
 * (`diff.noprefix`: the header names the same path twice), or unknown (a header that cannot be split).
 */
type PrefixMode = 'prefix' | 'plain' | 'unknown';

/** The readings of a path git wrote in a section of that mode. */
function readings(p: string, mode: PrefixMode): string[] {
  const slash = p.indexOf('/');
  const stripped = slash > 0 ? p.slice(slash + 1) : p;
  if (mode === 'plain') return [p];
  return mode === 'prefix' || stripped === p ? [stripped] : [p, stripped];
}

/** The two paths of a `diff --git X Y` header, when they can be told apart. */
function headerPaths(rest: string): string[] | undefined {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*")$|^("(?:[^"\\]|\\.)*") (\S+)$/.exec(rest);
  if (quoted) return [quoted[1] ?? quoted[3], quoted[2] ?? quoted[4]].map(unquoteGitPath);
  // Unquoted paths may hold spaces; the same path twice (the usual case) splits in the middle.
  if (rest.length % 2 === 1) {
    const half = (rest.length - 1) / 2;
    const [x, y] = [rest.slice(0, half), rest.slice(half + 1)];
    const strip = (p: string) => p.slice(p.indexOf('/') + 1);
    if (rest[half] === ' ' && (x === y || strip(x) === strip(y))) return [x, y];
  }
  return undefined;
}

/** Splits a `git diff` into its files' sections, each with the paths it names. */
export function diffSections(diff: string): DiffSection[] {
  const sections: DiffSection[] = [];
  const lines = diff.split('\n');
  // Paths are read from the header lines only: a hunk's removed line may itself start with "--- ".
  let current: { lines: string[]; paths: string[][]; inHunks: boolean; mode: PrefixMode } | undefined;
  const flush = () => {
    if (current) sections.push({ text: current.lines.join('\n'), paths: current.paths });
  };
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      flush();
      const header = headerPaths(line.slice('diff --git '.length));
      const mode: PrefixMode = !header ? 'unknown' : header[0] === header[1] ? 'plain' : 'prefix';
      current = { lines: [line], paths: (header ?? []).map((p) => readings(p, mode)), inHunks: false, mode };
      continue;
    }
    if (!current) {
      if (line.trim()) current = { lines: [line], paths: [], inHunks: true, mode: 'unknown' };
      continue;
    }
    current.lines.push(line);
    if (line.startsWith('@@')) current.inHunks = true;
    if (current.inHunks) continue;
    const ext = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (ext) current.paths.push([unquoteGitPath(ext[1])]);
    const side = /^(?:---|\+\+\+) (.+?)\t?$/.exec(line);
    if (side && side[1] !== '/dev/null') current.paths.push(readings(unquoteGitPath(side[1]), current.mode));
  }
  flush();
  return sections;
}

/**
 * The diff without the sections of files the model may not see. `skipReason(abs)` is the workspace's
 * rule check: `'outside'` for a path outside the folders, a reason for one left out, `undefined` when
 * allowed. A section stays when one reading of its paths lies in the workspace and every reading inside
 * is allowed; one whose paths cannot be read is left out.
 */
export async function filterDiff(
  diff: string,
  repoRoot: string,
  skipReason: (abs: string) => Promise<string | undefined>,
): Promise<{ text: string; leftOut: string[] }> {
  const kept: string[] = [];
  const leftOut: string[] = [];
  for (const section of diffSections(diff)) {
    let allowed = section.paths.length > 0;
    for (const readings of section.paths) {
      const reasons = await Promise.all(readings.map((r) => skipReason(path.join(repoRoot, ...r.split('/')))));
      const inside = reasons.filter((r) => r !== 'outside');
      if (inside.length === 0 || inside.some((r) => r !== undefined)) allowed = false;
    }
    if (allowed) kept.push(section.text);
    else leftOut.push(section.paths.length ? section.paths[0][section.paths[0].length - 1] : '(a file whose name could not be read)');
  }
  return { text: kept.join('\n').replace(/\n+$/, ''), leftOut: [...new Set(leftOut)] };
}

/** A commit as the Git extension's `log` gives it. */
export interface CommitInfo {
  hash: string;
  message: string;
  authorName?: string;
  authorEmail?: string;
  authorDate?: Date;
}

/** Most lines of one commit message shown. */
const MESSAGE_LINES = 15;

/** Commits as `hash date author` lines with the message indented below. */
export function formatCommits(commits: readonly CommitInfo[]): string {
  return commits
    .map((c) => {
      const date = c.authorDate ? c.authorDate.toISOString().slice(0, 10) : '';
      const author = c.authorName ? `${c.authorName}${c.authorEmail ? ` <${c.authorEmail}>` : ''}` : '';
      const lines = c.message.trimEnd().split('\n');
      const body = lines.slice(0, MESSAGE_LINES).map((l) => `    ${l}`.trimEnd());
      if (lines.length > MESSAGE_LINES) body.push(`    [… ${lines.length - MESSAGE_LINES} more lines]`);
      return [[c.hash.slice(0, 12), date, author].filter(Boolean).join(' '), ...body].join('\n');
    })
    .join('\n\n');
}
