/**
 * Fills a foreign prompt: form fields, the active editor's values, the text of files it reads in place,
 * and the text typed beside the form. Pure: the caller reads the editor and the files.
 */
import { posix as posixPath } from 'node:path';
import type { EditorVariable, ForeignPrompt } from './foreignTypes';

/** The active editor and workspace at send time; absent values fill as empty text. */
export interface ForeignEditorContext {
  /** The selected text ('' when nothing is selected). */
  selection?: string;
  /** Absolute path of the active file. */
  filePath?: string;
  /** The active file's whole text (Continue's `{{{ currentFile }}}`). */
  fileText?: string;
  /** Absolute path of the workspace folder. */
  workspaceFolder?: string;
}

/** What a render needs besides the prompt. */
export interface ForeignRenderInput {
  /** The form's values by field name (empty ones count as not given). */
  values: Readonly<Record<string, string>>;
  /** The text typed beside the form. */
  typed: string;
  editor: ForeignEditorContext;
  /** Text of the files the prompt reads in place (`inlineFiles`), by workspace-relative path. */
  fileTexts?: Readonly<Record<string, string>>;
}

/** The message a foreign prompt became. */
export interface ForeignRenderResult {
  text: string;
  /** Required fields left empty (the message is still rendered, with those left empty). */
  missing: string[];
}

/** The value of one editor variable, the way VS Code names them for tasks and launch configs. */
export function editorValue(variable: EditorVariable, editor: ForeignEditorContext): string {
  const file = editor.filePath ?? '';
  const folder = editor.workspaceFolder ?? '';
  switch (variable) {
    case 'selection':
    case 'selectedText':
      return editor.selection ?? '';
    case 'file':
      return file;
    case 'fileBasename':
      return file ? posixPath.basename(file.replace(/\\/g, '/')) : '';
    case 'fileBasenameNoExtension': {
      const base = file ? posixPath.basename(file.replace(/\\/g, '/')) : '';
      const dot = base.lastIndexOf('.');
      return dot > 0 ? base.slice(0, dot) : base;
    }
    case 'fileDirname':
      return file ? posixPath.dirname(file.replace(/\\/g, '/')) : '';
    case 'workspaceFolder':
      return folder;
    case 'workspaceFolderBasename':
      return folder ? posixPath.basename(folder.replace(/\\/g, '/')) : '';
    case 'currentFileText':
      return editor.fileText ?? '';
  }
}

/**
 * Renders `prompt`. The typed text fills the prompt's `typedParam` field when that field is empty
 * (Claude's `$ARGUMENTS`, Continue's `{{{ input }}}`); otherwise it follows the rendered prompt after a
 * blank line, so nothing typed is lost. Claude's `$ARGUMENTS` left empty takes the positional fields'
 * values, joined by spaces.
 */
export function renderForeignPrompt(prompt: ForeignPrompt, input: ForeignRenderInput): ForeignRenderResult {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.values)) if (typeof value === 'string' && value.trim() !== '') values[name] = value;
  const typed = input.typed.trim();
  let typedUsed = false;
  if (prompt.typedParam && values[prompt.typedParam] === undefined) {
    const positional = prompt.params.filter((p) => p.name !== prompt.typedParam && values[p.name] !== undefined).map((p) => values[p.name]);
    const fill = typed || (prompt.source === 'claude' ? positional.join(' ') : '');
    if (fill) values[prompt.typedParam] = fill;
    typedUsed = typed !== '';
  }
  const missing = prompt.params.filter((p) => p.required && values[p.name] === undefined).map((p) => p.name);
  let text = '';
  for (const s of prompt.segments) {
    if (s.kind === 'text') text += s.text;
    else if (s.kind === 'param') text += values[s.name] ?? '';
    else if (s.kind === 'editor') text += editorValue(s.variable, input.editor);
    else text += input.fileTexts?.[s.path] ?? '';
  }
  text = text.trim();
  if (typed && !typedUsed) text = text ? `${text}\n\n${typed}` : typed;
  return { text, missing };
}
