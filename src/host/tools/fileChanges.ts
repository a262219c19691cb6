/**
 * What the tools that change files share: the `FileWriter` they read and write through (in VS Code a
 * `WorkspaceEdit`, so Undo works and an open editor's unsaved text is what gets edited; in tests and
 * without an editor, Node's `fs`), the check that a change still applies when it is written, and the
 * record a result carries of each file it changed (`metadata.fileChanges`), from which file
 * checkpoints are kept. Pure (no `vscode`).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { headAndTail, InvalidArgumentError, InvalidOperationError, looksBinary, type ProposedChange, type ToolOutput } from '../../core/index';
import type { WorkspaceToolEnv } from './workspaceAccess';
import type { FileChangePreview } from './offeredTool';
import type { WriteTarget } from './writeAccess';

/** One file's new text, to be written over the text the change was computed from. */
export interface FileWrite {
  abs: string;
  /** What the model and the user read. */
  shown: string;
  /** The text the change was computed from; `undefined`: the file is created. */
  before: string | undefined;
  after: string;
}

/** How a write ended. */
export interface WriteOutcome {
  /**
   * False when the file was open with unsaved changes: the change is applied in the editor and left
   * unsaved, so the file on disk does not have it yet.
   */
  saved: boolean;
}

/** Reads and writes the text of files for the tools that change them. */
export interface FileWriter {
  /**
   * The text a change starts from: an open editor's text (unsaved changes included) when the file is
   * open, else the file on disk as UTF-8; `undefined` when there is no file. Rejects with
   * `NotTextFileError` for a file that is not UTF-8 text.
   */
  readText(abs: string): Promise<string | undefined>;
  /**
   * Writes `after` (creating the file and its folders when `before` is undefined). Rejects with
   * `StaleFileError`, writing nothing, when the file no longer holds `before` (or exists, for a create).
   */
  write(change: FileWrite): Promise<WriteOutcome>;
}

/** What the tools that change files need: the workspace tools' env and a writer. */
export interface EditToolEnv extends WorkspaceToolEnv {
  readonly writer: FileWriter;
}

/** A file that cannot be edited as text. */
export class NotTextFileError extends InvalidArgumentError {
  constructor(
    readonly abs: string,
    readonly why: 'binary' | 'encoding',
  ) {
    super(why === 'binary' ? `"${abs}" is a binary file; only text files can be edited.` : `"${abs}" is not UTF-8 text; only UTF-8 files can be edited.`);
  }
}

/** The file changed between the proposal and the write; nothing was written. */
export class StaleFileError extends InvalidOperationError {
  constructor(readonly shown: string, created: boolean) {
    super(
      created
        ? `"${shown}" was created by someone else while this call waited; nothing was written. Read it, then edit it with edit_file (or replace it with create_file and overwrite: true).`
        : `"${shown}" changed while this call waited (edited in the editor or on disk); nothing was written. Read it again with read_file and redo the change on its current text.`,
    );
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of UTF-8 bytes (a byte-order mark kept), or `NotTextFileError`. */
export function decodeText(abs: string, bytes: Uint8Array): string {
  if (looksBinary(bytes)) throw new NotTextFileError(abs, 'binary');
  try {
    return decoder.decode(bytes);
  } catch {
    throw new NotTextFileError(abs, 'encoding');
  }
}

/** A `FileWriter` on Node's `fs`: for tests, and for files no editor has open. */
export const nodeFileWriter: FileWriter = {
  async readText(abs) {
    let bytes: Uint8Array;
    try {
      bytes = await fs.readFile(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'ENOENT') return undefined;
      throw err;
    }
    return decodeText(abs, bytes);
  },
  async write(change) {
    const current = await this.readText(change.abs);
    if (current !== change.before) throw new StaleFileError(change.shown, change.before === undefined);
    if (change.before === undefined) {
      await fs.mkdir(path.dirname(change.abs), { recursive: true });
      try {
        await fs.writeFile(change.abs, change.after, { flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException)?.code === 'EEXIST') throw new StaleFileError(change.shown, true);
        throw err;
      }
    } else {
      await fs.writeFile(change.abs, change.after);
    }
    return { saved: true };
  },
};

/**
 * The text of a file a tool is about to change, by the writer (so an open editor's unsaved text
 * counts); `undefined` when there is none. Refuses a folder, a file over the read limit, and a file
 * that is not UTF-8 text, naming it as the model knows it.
 */
export async function currentText(env: EditToolEnv, target: WriteTarget, maxBytes: number): Promise<string | undefined> {
  const st = await env.files.stat(target.real);
  if (st?.type === 'directory') throw new InvalidArgumentError(`"${target.shown}" is a folder, not a file.`);
  if (st && st.type !== 'file') throw new InvalidArgumentError(`"${target.shown}" is not a regular file.`);
  if (st && st.size > maxBytes) throw new InvalidArgumentError(`"${target.shown}" is ${st.size} bytes, more than Arbor edits (${maxBytes}).`);
  try {
    return await env.writer.readText(target.abs);
  } catch (err) {
    if (err instanceof NotTextFileError) {
      throw new InvalidArgumentError(
        err.why === 'binary' ? `"${target.shown}" is a binary file; only text files can be edited.` : `"${target.shown}" is not UTF-8 text, so Arbor does not edit it (it could not write it back unchanged).`,
      );
    }
    throw err;
  }
}

/** A change about to be written: the proposal and where it goes. */
export interface PreparedFileChange extends ProposedChange {
  target: WriteTarget;
}


/** The card's view of a prepared change. */
export function previewOf(change: PreparedFileChange): FileChangePreview {
  const { target, diff } = change;
  const preview: FileChangePreview = { path: target.abs, shown: target.shown, before: change.before, after: change.after, diff: diff.unified, added: diff.added, removed: diff.removed };
  if (target.askReason) preview.askReason = target.askReason;
  return preview;
}

/**
 * One file a tool changed, as its result's `metadata.fileChanges` keeps it: the text before and after
 * (for file checkpoints) and their SHA-256 hashes (hex, of the UTF-8 text), so a store can keep each
 * version once and drop the texts from the metadata.
 */
export interface FileChangeRecord {
  /** Absolute path. */
  path: string;
  /** Workspace-relative (absolute outside). */
  shown: string;
  /** `null`: the change created the file. */
  before: string | null;
  after: string;
  beforeHash: string | null;
  afterHash: string;
  added: number;
  removed: number;
  /** False when the change was left unsaved in an editor that had unsaved changes. */
  saved: boolean;
}

/** SHA-256 (hex) of a text's UTF-8 bytes. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Most characters of a diff a result shows the model. */
export const RESULT_DIFF_CHARS = 4000;

/**
 * Writes a prepared change and words the result: `summary` first (what was done), then the notes,
 * then the diff unless `showDiff` is false (its middle left out past `RESULT_DIFF_CHARS`), with
 * `modifiedFiles` and `metadata.fileChanges`.
 */
export async function writeChange(
  env: EditToolEnv,
  change: PreparedFileChange,
  summary: string,
  { notes = [], showDiff = true }: { notes?: readonly string[]; showDiff?: boolean } = {},
): Promise<ToolOutput> {
  const { target } = change;
  const outcome = await env.writer.write({ abs: target.abs, shown: target.shown, before: change.before, after: change.after });
  const record: FileChangeRecord = {
    path: target.abs,
    shown: target.shown,
    before: change.before ?? null,
    after: change.after,
    beforeHash: change.before === undefined ? null : textHash(change.before),
    afterHash: textHash(change.after),
    added: change.diff.added,
    removed: change.diff.removed,
    saved: outcome.saved,
  };
  const lines = [summary, ...notes];
  if (!outcome.saved) {
    lines.push(`${target.shown} is open in an editor with unsaved changes: the change is applied there but not saved, so the file on disk (what read_file and commands see) does not have it until the user saves.`);
  }
  if (showDiff && change.diff.unified) lines.push(headAndTail(change.diff.unified, RESULT_DIFF_CHARS, (n) => `[… ${n} characters of the diff left out; read the file to see the result …]`));
  return { content: lines.join('\n'), modifiedFiles: [target.shown], metadata: { fileChanges: [record] } };
}
