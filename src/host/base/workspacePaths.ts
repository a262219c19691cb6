/**
 * Workspace-relative paths for attachments, chips and `openFile`: resolving them safely inside the
 * workspace folders, and turning attached files into the text sent to the model. Pure.
 */
import * as path from 'node:path';
import type { Attachment } from '../../shared/protocol';

/**
 * The absolute path of a workspace-relative `relPath`, in the first folder that could hold it, or
 * `undefined` when it is absolute, uses `..` to leave the folder, or there is no folder.
 * A path may start with a folder's name (multi-root workspaces show paths that way).
 */
export function resolveInWorkspace(folders: readonly string[], relPath: string): string | undefined {
  const clean = relPath.replace(/\\/g, '/').trim();
  if (!clean || clean.startsWith('/') || /^[a-zA-Z]:/.test(clean) || clean.split('/').includes('..')) return undefined;
  if (folders.length === 0) return undefined;
  const named = folders.length > 1 ? folders.find((f) => clean.startsWith(`${path.basename(f)}/`)) : undefined;
  const folder = named ?? folders[0];
  const abs = path.resolve(folder, named ? clean.slice(path.basename(named).length + 1) : clean);
  return isInside(folder, abs) ? abs : undefined;
}

/** Whether `abs` is `folder` or below it. */
export function isInside(folder: string, abs: string): boolean {
  const rel = path.relative(folder, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `abs` relative to the folder that holds it, with `/` separators; `undefined` when outside them all. */
export function toWorkspaceRelative(folders: readonly string[], abs: string): string | undefined {
  for (const folder of folders) {
    if (isInside(folder, abs)) {
      const rel = path.relative(folder, abs).split(path.sep).join('/');
      return folders.length > 1 ? `${path.basename(folder)}/${rel}` : rel;
    }
  }
  return undefined;
}

/** Lines `startLine..endLine` (1-based, inclusive) of `text`; the whole text when no range is given. */
export function sliceLines(text: string, startLine?: number, endLine?: number): string {
  if (startLine === undefined) return text;
  const lines = text.split(/\r?\n/);
  const from = Math.max(1, startLine);
  const to = Math.min(lines.length, endLine ?? startLine);
  return lines.slice(from - 1, to).join('\n');
}

/** An attachment with its text read. */
export interface ResolvedAttachment extends Attachment {
  text: string;
}

function fence(text: string): string {
  let ticks = '```';
  while (text.includes(ticks)) ticks += '`';
  return ticks;
}

/** "src/a.ts (lines 3-9)". */
export function attachmentLabel(a: Attachment): string {
  if (a.startLine === undefined) return a.path;
  const end = a.endLine ?? a.startLine;
  return end === a.startLine ? `${a.path} (line ${a.startLine})` : `${a.path} (lines ${a.startLine}-${end})`;
}

/**
 * The user message sent to the model: the typed text, then each attachment in a fenced block
 * (with a fence longer than any backtick run inside, so the code cannot close it early).
 */
export function composeUserMessage(text: string, attachments: readonly ResolvedAttachment[]): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => {
    const f = fence(a.text);
    return `${a.kind === 'selection' ? 'Selection from' : 'File'} ${attachmentLabel(a)}:\n${f}${a.language ?? ''}\n${a.text}\n${f}`;
  });
  return [text.trim(), ...blocks].filter(Boolean).join('\n\n');
}
