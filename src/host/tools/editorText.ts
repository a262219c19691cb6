/**
 * The text `get_diagnostics` and `get_selection` give the model, from plain data the editor tools read
 * out of VS Code. Pure (no `vscode`), so the wording and the caps are tested without an editor.
 */
import { capOutput } from '../../core/index';

/** A diagnostic's severity, as the Problems panel names it. */
export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** One problem of the Problems panel. */
export interface DiagnosticEntry {
  /** Shown path (workspace-relative). */
  path: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  severity: Severity;
  message: string;
  source?: string;
  code?: string;
}

/** Problems listed by default; the rest are counted. */
export const MAX_DIAGNOSTICS = 200;
/** Most characters of selected text returned. */
export const MAX_SELECTION_CHARS = 20_000;

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Problems sorted by severity, path and position, as `path:line:col severity: message (source code)` lines under a count. */
export function formatDiagnostics(entries: readonly DiagnosticEntry[], scope?: string, max = MAX_DIAGNOSTICS): string {
  const where = scope ? ` in ${scope}` : ' in the workspace';
  if (entries.length === 0) return `No problems${where} (the Problems panel is empty for the workspace files Arbor may read).`;
  const sorted = [...entries].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || a.column - b.column);
  const counts = (['error', 'warning', 'info', 'hint'] as const).map((s) => [s, entries.filter((e) => e.severity === s).length] as const).filter(([, n]) => n > 0);
  const files = new Set(entries.map((e) => e.path)).size;
  const head = `${counts.map(([s, n]) => plural(n, s)).join(', ')}${where} (${plural(files, 'file')}):`;
  const lines = sorted.slice(0, max).map((e) => {
    const origin = [e.source, e.code].filter(Boolean).join(' ');
    const message = e.message.replace(/\s*\n\s*/g, ' ');
    return `${e.path}:${e.line}:${e.column} ${e.severity}: ${message}${origin ? ` (${origin})` : ''}`;
  });
  if (sorted.length > max) lines.push(`[… ${sorted.length - max} more not shown; ask for one file or folder with path.]`);
  return [head, ...lines].join('\n');
}

/** What `get_selection` knows of the editor. */
export interface SelectionInfo {
  /** The active editor's document, or undefined when no text editor is open. */
  active?: {
    /** Shown path (workspace-relative, absolute outside, or `untitled:…`). */
    path: string;
    language: string;
    /** 1-based lines and columns. */
    start: { line: number; column: number };
    end: { line: number; column: number };
    /** The selected text; undefined when nothing is selected or it may not be shown. */
    text?: string;
    /** Why the text is not shown (a secret or ignored file, a file outside the workspace). */
    withheld?: string;
  };
  /** Shown paths of the open editors' documents, the active one included. */
  openEditors: readonly string[];
}

/** The active editor, its selection and the open editors, for the model. */
export function formatSelection(info: SelectionInfo): string {
  const open = info.openEditors.length ? `Open editors (${info.openEditors.length}): ${info.openEditors.join(', ')}` : 'No editors are open.';
  const a = info.active;
  if (!a) return `No text editor is active.\n${open}`;
  const empty = a.start.line === a.end.line && a.start.column === a.end.column;
  const range = empty
    ? `cursor at line ${a.start.line}, column ${a.start.column}, nothing selected`
    : `selection from line ${a.start.line}, column ${a.start.column} to line ${a.end.line}, column ${a.end.column}`;
  const parts = [`Active editor: ${a.path} (${a.language}), ${range}.`];
  if (a.withheld) parts.push(a.withheld);
  else if (!empty && a.text !== undefined) {
    parts.push(`Selected text:\n${capOutput(a.text, MAX_SELECTION_CHARS)}`);
  }
  parts.push(open);
  return parts.join('\n');
}
