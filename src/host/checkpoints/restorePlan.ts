/**
 * What Restore Files to Here would do, decided without VS Code: for each file changed on the way to a
 * node, where it goes, what it holds now and what it held after the node. A stored checkpoint row is
 * untrusted input (a teammate can rewrite the team store's rows with the SQL their grants allow, and a
 * store file can be copied from anywhere), so every row goes through the guard of the edit tools
 * (`checkWriteTarget`) again: a path that is not a plain workspace-relative path, one that leads
 * through a symbolic link out of the workspace, one in `.git` and a secret file are refused by name and
 * left out while the rest of the restore goes on; a file outside the retrieval rules, a protected file
 * and a file whose workspace folder is not open here are restored only when the user ticks it, named
 * with the reason. Right before writing, `recheckRestore` judges every file again and leaves out one
 * that changed since the dialog showed it. Pure (no `vscode`).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checkCheckpointPath, InvalidArgumentError, looksBinary, SymlinkLoopError, toLf, WorkspaceAccessError, type FileState, type RecordedFileChange } from '../../core/index';
import type { WorkspaceToolEnv } from '../tools/workspaceAccess';
import { checkWriteTarget, type WriteTarget } from '../tools/writeAccess';
import { chooseFolder } from './restoreFolders';

/**
 * Most bytes of one version of a file a checkpoint keeps: the store lives in memory and every
 * checkpoint of it writes it whole, so a generated or data file of many megabytes is not recorded
 * (its change stays done; Restore Files to Here does not know it).
 */
export const MAX_CHECKPOINT_FILE_BYTES = 2_000_000;

/**
 * Largest current file Restore reads to compare: no version Arbor records is larger (see
 * `MAX_CHECKPOINT_FILE_BYTES`), so a larger file is known by its size alone to differ from every one.
 */
export const MAX_RESTORE_READ_BYTES = 2 * MAX_CHECKPOINT_FILE_BYTES;

/** The conversation's side of a restore (a `ConversationManager` is one). */
export interface RestoreSource {
  readonly currentNodeId: string;
  getFilesStateAt(nodeId: string): Promise<FileState[]>;
  getFileChangesByNode(): Promise<Record<string, RecordedFileChange[]>>;
  getFileContent(hash: string): Promise<Uint8Array | null>;
}

/** What Restore needs from the host: the edit tools' view of the workspace, and the text of open editors. */
export interface RestoreEnv extends Pick<WorkspaceToolEnv, 'folders' | 'files' | 'exclude' | 'secretPatterns'> {
  /** The text of an editor open on `abs` (unsaved changes included), `undefined` when none is. */
  openText?(abs: string): string | undefined;
}

/** What a file holds now, as Restore saw it. */
export type CurrentFile =
  | { kind: 'absent' }
  | { kind: 'text'; text: string }
  | { kind: 'binary'; hash: string; size: number }
  /** Over `MAX_RESTORE_READ_BYTES`: not read, known by size and modification time. */
  | { kind: 'large'; size: number; mtimeMs: number };

/** One file Restore would write. */
export interface RestoreItem {
  /** The path as stored: workspace-relative, with `/`. */
  path: string;
  /** The checked place it is written: never through a link out of the workspace, never `.git` or a secret. */
  target: WriteTarget;
  /** What the file holds now, as the dialog shows it. */
  current: CurrentFile;
  /** Its bytes after the node (a byte-order mark kept); null: it did not exist then, so restore deletes it. */
  wanted: Uint8Array | null;
  /** What it holds now is a version Arbor wrote or found in this conversation (else it changed outside Arbor). */
  ours: boolean;
  /** Why the user must tick this file by name (each names it and why); empty for an ordinary file. */
  asks: string[];
}

/** A stored row Restore will not write, and why (a sentence naming it). */
export interface RestoreRefusal {
  path: string;
  reason: string;
}

/** What Restore would write, and what it refuses. */
export interface RestorePlan {
  items: RestoreItem[];
  refused: RestoreRefusal[];
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Text as compared: no byte-order mark (an editor's text never has one), line endings as `\n`. */
export function comparable(text: string): string {
  return toLf(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/** Bytes as UTF-8 text (a byte-order mark kept), null when they are binary. */
function textOf(bytes: Uint8Array): string | null {
  if (looksBinary(bytes)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A guard's refusal as a sentence; other errors are the host's and pass. */
function refusalOf(err: unknown): string {
  if (err instanceof WorkspaceAccessError || err instanceof SymlinkLoopError || err instanceof InvalidArgumentError) return err.message;
  throw err;
}

/** What `target` holds now: an open editor's text, else the disk's, not read past `MAX_RESTORE_READ_BYTES`. */
export async function readCurrent(env: RestoreEnv, target: WriteTarget): Promise<CurrentFile> {
  const st = await env.files.stat(target.real);
  if (!st) return { kind: 'absent' };
  if (st.type !== 'file') throw new InvalidArgumentError(`"${target.shown}" is ${st.type === 'directory' ? 'a folder' : 'not a regular file'} now, so Restore leaves it alone.`);
  if (st.size > MAX_RESTORE_READ_BYTES) return { kind: 'large', size: st.size, mtimeMs: st.mtimeMs };
  const open = env.openText?.(target.abs);
  if (open !== undefined) return { kind: 'text', text: open };
  const bytes = await env.files.readFile(target.real);
  const text = textOf(bytes);
  return text === null ? { kind: 'binary', hash: sha256(bytes), size: bytes.byteLength } : { kind: 'text', text };
}

/** Whether the file already holds `wanted` (text compared without BOM and line endings). */
function holds(current: CurrentFile, wanted: Uint8Array | null): boolean {
  if (wanted === null || current.kind === 'absent') return wanted === null && current.kind === 'absent';
  if (current.kind === 'large') return false;
  if (current.kind === 'binary') return current.hash === sha256(wanted);
  const text = textOf(wanted);
  return text !== null && comparable(text) === comparable(current.text);
}

/** The versions of each path Arbor wrote or found in this conversation, on any branch: exact hashes, and (lazily) comparable texts' hashes. */
class KnownVersions {
  private readonly exact = new Map<string, Set<string>>();
  private readonly loose = new Map<string, Promise<Set<string>>>();
  constructor(
    byNode: Record<string, RecordedFileChange[]>,
    private readonly content: (hash: string) => Promise<Uint8Array | null>,
  ) {
    for (const changes of Object.values(byNode)) {
      for (const c of changes) {
        const set = this.exact.get(c.path) ?? new Set<string>();
        if (c.before) set.add(c.before.hash);
        if (c.after) set.add(c.after.hash);
        this.exact.set(c.path, set);
      }
    }
  }

  /** Whether `current` is one of them: byte for byte, or as text but for a BOM and line endings (an editor keeps the file's CRLF when the model wrote LF). */
  async has(filePath: string, current: CurrentFile): Promise<boolean> {
    const hashes = this.exact.get(filePath) ?? new Set<string>();
    if (current.kind === 'binary') return hashes.has(current.hash);
    if (current.kind !== 'text') return false;
    if (hashes.has(sha256(current.text))) return true;
    let loose = this.loose.get(filePath);
    if (!loose) {
      loose = (async () => {
        const set = new Set<string>();
        for (const hash of hashes) {
          const bytes = await this.content(hash);
          const text = bytes && textOf(bytes);
          if (text !== null && text !== undefined) set.add(sha256(comparable(text)));
        }
        return set;
      })();
      this.loose.set(filePath, loose);
    }
    return (await loose).has(sha256(comparable(current.text)));
  }
}

/** The files as they were after `nodeId`, and for a file first changed after it on the way to the current node, as it was before that change. */
async function statesAt(source: RestoreSource, nodeId: string): Promise<FileState[]> {
  const atNode = await source.getFilesStateAt(nodeId);
  const covered = new Set(atNode.map((f) => f.path));
  for (const later of await source.getFilesStateAt(source.currentNodeId)) {
    if (!covered.has(later.path)) atNode.push({ ...later, hash: later.originalHash, nodeId });
  }
  return atNode;
}

/**
 * Checks a stored row and finds where it goes: a refusal (a sentence naming the row) for a path the
 * recorder would refuse, a folder that cannot be told, or a place the edit tools never write.
 */
async function placeOf(env: RestoreEnv, state: FileState): Promise<{ target: WriteTarget; asks: string[] } | { refusal: string }> {
  try {
    checkCheckpointPath(state.path, 'The stored path');
  } catch (err) {
    return { refusal: `The checkpoint row "${state.path}" is not a workspace-relative path, so Restore does not write it (the store may have been edited by hand): ${refusalOf(err)}` };
  }
  const place = chooseFolder(env.folders(), state.path, state.folder);
  if ('refusal' in place) return place;
  try {
    const target = await checkWriteTarget(env, path.join(place.folder, ...state.path.split('/')));
    const asks = [...place.asks];
    if (target.askReason) asks.push(`${target.shown}: Restore ${target.askReason}.`);
    if (target.protectedReason) asks.push(`${target.shown} is protected: ${target.protectedReason}.`);
    return { target, asks };
  } catch (err) {
    return { refusal: `Restore does not write "${state.path}": ${refusalOf(err)}` };
  }
}

/**
 * What restoring the files to how they were after `nodeId` would write, and which stored rows it
 * refuses (see the file's header). Files that already hold what they held then are left out.
 */
export async function planRestore(env: RestoreEnv, source: RestoreSource, nodeId: string): Promise<RestorePlan> {
  const states = await statesAt(source, nodeId);
  const known = new KnownVersions(await source.getFileChangesByNode(), (hash) => source.getFileContent(hash));
  const plan: RestorePlan = { items: [], refused: [] };
  const claimed = new Map<string, string>();
  for (const state of states) {
    const place = await placeOf(env, state);
    if ('refusal' in place) {
      plan.refused.push({ path: state.path, reason: place.refusal });
      continue;
    }
    const { target, asks } = place;
    // Two rows that land on one file (through a link, or by case on a case-blind disk) would fight.
    const key = target.real.toLowerCase();
    const first = claimed.get(key);
    if (first !== undefined) {
      plan.refused.push({ path: state.path, reason: `Restore does not write "${state.path}": it is the same file as "${first}" (through a link or by letter case), which Restore writes already.` });
      continue;
    }
    claimed.set(key, state.path);
    const wanted = state.hash === null ? null : await source.getFileContent(state.hash);
    if (state.hash !== null && wanted === null) {
      plan.refused.push({ path: state.path, reason: `Restore does not write "${state.path}": its content after this message is not in the store (or not visible to you).` });
      continue;
    }
    let current: CurrentFile;
    try {
      current = await readCurrent(env, target);
    } catch (err) {
      plan.refused.push({ path: state.path, reason: refusalOf(err) });
      continue;
    }
    if (holds(current, wanted)) continue;
    const ours = current.kind === 'absent' ? state.originalHash === null : await known.has(state.path, current);
    plan.items.push({ path: state.path, target, current, wanted, ours, asks });
  }
  return plan;
}

/** Whether a file still holds what the dialog showed. */
function same(a: CurrentFile, b: CurrentFile): boolean {
  switch (a.kind) {
    case 'absent':
      return b.kind === 'absent';
    case 'text':
      return b.kind === 'text' && a.text === b.text;
    case 'binary':
      return b.kind === 'binary' && a.hash === b.hash;
    case 'large':
      return b.kind === 'large' && a.size === b.size && a.mtimeMs === b.mtimeMs;
  }
}

/** The items still right to write, and those left out (a sentence each). */
export interface RecheckedRestore {
  ready: RestoreItem[];
  skipped: RestoreRefusal[];
}

/**
 * Judges the chosen files again right before writing, as the edit tools do: a path whose place
 * changed meanwhile (a folder swapped for a link) goes through the guard again, and a file that
 * changed since the dialog showed it (an edit while it was open) is left out, so nothing the user did
 * not see is overwritten.
 */
export async function recheckRestore(env: RestoreEnv, items: readonly RestoreItem[]): Promise<RecheckedRestore> {
  const result: RecheckedRestore = { ready: [], skipped: [] };
  for (const item of items) {
    let target: WriteTarget;
    let now: CurrentFile;
    try {
      target = await checkWriteTarget(env, item.target.abs);
      now = await readCurrent(env, target);
    } catch (err) {
      result.skipped.push({ path: item.path, reason: `Restore did not write "${item.path}": ${refusalOf(err)}` });
      continue;
    }
    if (target.real !== item.target.real) {
      result.skipped.push({ path: item.path, reason: `Restore did not write "${item.path}": it leads to ${target.real} now, not where the dialog showed (${item.target.real}).` });
    } else if (!same(item.current, now)) {
      result.skipped.push({ path: item.path, reason: `Restore did not write "${item.path}": it changed while the dialog was open, so it was left as it is now. Restore again to see the new difference.` });
    } else {
      result.ready.push({ ...item, target });
    }
  }
  return result;
}

/**
 * Writes rechecked items with Node's `fs`, where no editor is (tests, the command line): deletes,
 * creates (with their folders) and replaces, each with the stored bytes (a byte-order mark kept).
 * The extension writes through one `WorkspaceEdit` instead, so Undo takes it back.
 */
export async function writeRestoreWithFs(items: readonly RestoreItem[]): Promise<void> {
  for (const item of items) {
    if (item.wanted === null) {
      await fs.rm(item.target.abs, { force: true });
    } else {
      await fs.mkdir(path.dirname(item.target.abs), { recursive: true });
      await fs.writeFile(item.target.abs, item.wanted);
    }
  }
}
