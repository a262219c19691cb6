/**
 * Instruction files other coding assistants read (AGENTS.md, Copilot's, CLAUDE.md, Cursor's and
 * Continue's rules): what kinds there are, and one file parsed into its text and when it applies.
 * Pure: the text comes in, nothing is read here.
 */
import { parse as parseYaml } from 'yaml';
import { globProblem } from '../globSafety';
import { splitFrontMatter } from '../prompts/promptFile';
import { gitBlobId } from '../hashes';

/** The kinds of instruction file Arbor reads, as named in `arbor.instructions.enabled`. */
export const INSTRUCTION_KINDS = ['agents', 'copilot', 'copilotInstructions', 'claude', 'cursor', 'continue'] as const;

/**
 * `agents`: AGENTS.md; `copilot`: .github/copilot-instructions.md; `copilotInstructions`:
 * .github/instructions/*.instructions.md; `claude`: CLAUDE.md; `cursor`: .cursor/rules/*.mdc;
 * `continue`: .continue/rules/*.md.
 */
export type InstructionKind = (typeof INSTRUCTION_KINDS)[number];

/** Whether a value is one of `INSTRUCTION_KINDS`. */
export function isInstructionKind(value: unknown): value is InstructionKind {
  return typeof value === 'string' && (INSTRUCTION_KINDS as readonly string[]).includes(value);
}

/** One instruction file as read: its text without front matter, and the front matter's activation fields. */
export interface InstructionFile {
  kind: InstructionKind;
  /** Workspace-relative, `/` separators. */
  path: string;
  /** The text sent to the model (the body after any front matter), trimmed. */
  body: string;
  /** The git blob id of the file's bytes, so an answer can record which version it was made with. */
  gitBlobId: string;
  /** Copilot's `applyTo`, Cursor's and Continue's `globs`, as a list; absent when the file sets none. */
  globs?: string[];
  /** Cursor's and Continue's `alwaysApply`. */
  alwaysApply?: boolean;
  /** The front matter's `description` (Continue's `name` when there is no description). */
  description?: string;
  /** What is wrong with the front matter, in words a person can act on; the file still applies as far as it can be read. */
  problem?: string;
}

/** Kinds whose files carry front matter that says when they apply. */
const WITH_FRONT_MATTER: ReadonlySet<InstructionKind> = new Set(['copilotInstructions', 'cursor', 'continue']);

/** A glob field: a comma-separated string or a list of strings, as the tools accept both. */
function globList(value: unknown): string[] | undefined {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
  if (!items) return undefined;
  const globs = items.map((g) => g.trim()).filter(Boolean);
  return globs.length ? globs : undefined;
}

/** Parses one instruction file of `kind` at `path` from its bytes. */
export function parseInstructionFile(kind: InstructionKind, path: string, bytes: Uint8Array): InstructionFile {
  const text = new TextDecoder().decode(bytes).replace(/^\uFEFF/, '');
  const file: InstructionFile = { kind, path, body: text.trim(), gitBlobId: gitBlobId(bytes) };
  if (!WITH_FRONT_MATTER.has(kind)) return file;
  const split = splitFrontMatter(text);
  if (split.error) return { ...file, problem: `${path}: ${split.error}.` };
  if (split.frontMatter === undefined) return file;
  file.body = split.body.trim();
  let fields: unknown;
  try {
    fields = parseYaml(split.frontMatter);
  } catch (err) {
    return { ...file, problem: `${path}: the front matter is not valid YAML (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); fix it so its fields (applyTo, globs, alwaysApply) take effect.` };
  }
  if (fields === null || fields === undefined) return file;
  if (typeof fields !== 'object' || Array.isArray(fields)) {
    return { ...file, problem: `${path}: the front matter must be a mapping of fields (applyTo, globs, alwaysApply, description).` };
  }
  const f = fields as Record<string, unknown>;
  const globField = kind === 'copilotInstructions' ? 'applyTo' : 'globs';
  const listed = globList(f[globField]);
  const refused = listed?.map(globProblem).filter((p): p is string => p !== undefined) ?? [];
  const globs = listed?.filter((g) => globProblem(g) === undefined);
  if (refused.length) file.problem = `${path}: ${refused.join('; ')}. Write a simpler glob for \`${globField}\`.`;
  if (globs?.length) file.globs = globs;
  else if (refused.length) file.globs = [];
  else if (f[globField] !== undefined && f[globField] !== null && f[globField] !== '') {
    file.problem = `${path}: \`${globField}\` must be a glob, a comma-separated list of globs or a YAML list of them.`;
  }
  if (kind !== 'copilotInstructions' && f.alwaysApply !== undefined) {
    if (typeof f.alwaysApply === 'boolean') file.alwaysApply = f.alwaysApply;
    else file.problem = `${path}: \`alwaysApply\` must be true or false (without quotes), not ${JSON.stringify(f.alwaysApply)}.`;
  }
  const description = typeof f.description === 'string' && f.description.trim() ? f.description.trim() : kind === 'continue' && typeof f.name === 'string' && f.name.trim() ? f.name.trim() : undefined;
  if (description) file.description = description;
  return file;
}
