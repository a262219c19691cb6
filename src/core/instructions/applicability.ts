/**
 * Which instruction files apply to a request, decided from the files in play (attached files and
 * selections, retrieved files), and how they are put into the request's system message. Pure.
 */
import picomatch from 'picomatch';
import { globProblem, SAFE_GLOB_OPTIONS } from '../globSafety';
import type { InstructionFile, InstructionKind } from './instructionFile';

/** Why a file applies: it always does, one of its globs matched a file in play, or it is the nearest above one. */
export type InstructionReason = 'always' | 'glob' | 'nearest';

/** An instruction file that applies to a request. */
export interface AppliedInstruction {
  file: InstructionFile;
  reason: InstructionReason;
  /** The file in play that made it apply (a glob match or the file below a nested AGENTS.md/CLAUDE.md). */
  matched?: string;
}

/** The files that apply, split into those sent and those the chat excluded. */
export interface ApplicableInstructions {
  applied: AppliedInstruction[];
  excluded: AppliedInstruction[];
  /** Both, in the one order the files are listed in (so a file turned off keeps its place among its chips). */
  all: AppliedInstruction[];
}

/** The folder of a `/`-separated relative path (`''` at the root). */
export function parentDir(relPath: string): string {
  const i = relPath.lastIndexOf('/');
  return i < 0 ? '' : relPath.slice(0, i);
}

/** Whether `dir` (relative, `''` for the root) holds `file` at any depth. */
function isAncestor(dir: string, file: string): boolean {
  return dir === '' || file.startsWith(`${dir}/`);
}

const matchers = new Map<string, (p: string) => boolean>();

/**
 * A matcher for an instruction file's globs. Patterns without a `/` (`*.ts`) match a file's name in any
 * folder, as Cursor and Continue read them; the rest match the workspace-relative path.
 */
function globMatcher(globs: readonly string[]): (p: string) => boolean {
  const key = globs.join('\u0000');
  let m = matchers.get(key);
  if (!m) {
    // Files are parsed without such globs; this keeps the matcher safe for globs from anywhere else.
    const safe = globs.filter((g) => globProblem(g) === undefined);
    const anyDir = safe.filter((g) => !g.includes('/'));
    const rooted = safe.filter((g) => g.includes('/')).map((g) => g.replace(/^\.?\//, ''));
    const byName = anyDir.length ? picomatch(anyDir, { ...SAFE_GLOB_OPTIONS, dot: true, basename: true }) : undefined;
    const byPath = rooted.length ? picomatch(rooted, { ...SAFE_GLOB_OPTIONS, dot: true }) : undefined;
    m = (p) => (byName?.(p) ?? false) || (byPath?.(p) ?? false);
    if (matchers.size > 500) matchers.clear();
    matchers.set(key, m);
  }
  return m;
}

/** Globs that match every file: a file with one of them applies to every request, as Copilot reads `applyTo: "**"`. */
const EVERYTHING = new Set(['**', '**/*', '*']);

/** The first file in play a file's globs match, if any. */
function firstMatch(file: InstructionFile, inPlay: readonly string[]): string | undefined {
  if (!file.globs) return undefined;
  const m = globMatcher(file.globs);
  return inPlay.find((p) => m(p));
}

/** Whether and why a rule file (Copilot's `.instructions.md`, Cursor's, Continue's) applies. */
function ruleApplies(file: InstructionFile, inPlay: readonly string[]): AppliedInstruction | undefined {
  if (file.alwaysApply === true) return { file, reason: 'always' };
  if (file.globs?.some((g) => EVERYTHING.has(g))) return { file, reason: 'always' };
  const matched = firstMatch(file, inPlay);
  if (matched !== undefined) return { file, reason: 'glob', matched };
  // Continue: a rule that says neither way and has no globs applies everywhere.
  if (file.kind === 'continue' && file.alwaysApply === undefined && !file.globs) return { file, reason: 'always' };
  // Copilot without applyTo, Cursor's agent-requested and manual rules: never added on their own.
  return undefined;
}

/**
 * The instruction files of `files` that apply to a request whose files in play are `inPlayPaths`
 * (workspace-relative), of the kinds `enabledKinds`, with those whose paths are in `excluded` set apart.
 *
 * AGENTS.md and CLAUDE.md: the one at the root always, and for each file in play the nearest one in the
 * folders above it. `.github/copilot-instructions.md`: always. Rule files: `alwaysApply: true`, a glob
 * that matches every file, or a glob matching a file in play; a Continue rule with neither globs nor
 * `alwaysApply` applies always. Order: repository-wide files first, nested ones by depth, rules by path.
 */
export function applicableInstructions(
  files: readonly InstructionFile[],
  inPlayPaths: readonly string[],
  enabledKinds: readonly InstructionKind[],
  excluded: readonly string[] = [],
): ApplicableInstructions {
  const enabled = new Set(enabledKinds);
  const inPlay = [...new Set(inPlayPaths.filter((p) => p && !p.split('/').includes('..')))];
  const out: AppliedInstruction[] = [];
  for (const kind of ['agents', 'claude'] as const) {
    if (!enabled.has(kind)) continue;
    const ofKind = files.filter((f) => f.kind === kind);
    for (const f of ofKind) if (parentDir(f.path) === '') out.push({ file: f, reason: 'always' });
    const nearest = new Map<string, AppliedInstruction>();
    for (const p of inPlay) {
      // The deepest file of this kind in a folder above the file in play.
      let best: InstructionFile | undefined;
      for (const f of ofKind) {
        const dir = parentDir(f.path);
        if (dir !== '' && isAncestor(dir, p) && (!best || dir.length > parentDir(best.path).length)) best = f;
      }
      if (best && !nearest.has(best.path)) nearest.set(best.path, { file: best, reason: 'nearest', matched: p });
    }
    out.push(...[...nearest.values()].sort((a, b) => a.file.path.split('/').length - b.file.path.split('/').length || a.file.path.localeCompare(b.file.path)));
  }
  if (enabled.has('copilot')) for (const f of files) if (f.kind === 'copilot') out.push({ file: f, reason: 'always' });
  const rules: AppliedInstruction[] = [];
  for (const f of files) {
    if ((f.kind === 'copilotInstructions' || f.kind === 'cursor' || f.kind === 'continue') && enabled.has(f.kind)) {
      const a = ruleApplies(f, inPlay);
      if (a) rules.push(a);
    }
  }
  out.push(...rules.sort((a, b) => a.file.path.localeCompare(b.file.path)));
  const skip = new Set(excluded);
  const kept = out.filter((a) => a.file.body.length > 0);
  return { applied: kept.filter((a) => !skip.has(a.file.path)), excluded: kept.filter((a) => skip.has(a.file.path)), all: kept };
}

/**
 * The system section that carries the applied files: a short lead, then each file under a header that
 * names it, so the model can tell where each instruction comes from. `undefined` when none applies.
 */
export function renderInstructions(applied: readonly AppliedInstruction[]): string | undefined {
  if (applied.length === 0) return undefined;
  const sections = applied.map(({ file }) => `## Instructions from ${file.path}\n\n${file.body}`);
  return ['# Project instructions', 'The workspace gives these instructions for the files in this conversation. Follow them.', ...sections].join('\n\n');
}
