/**
 * The built-in tools that read the editor: `get_diagnostics` (the Problems panel) and `get_selection`
 * (the active editor, its selection and the open editors). Thin: VS Code's data goes through the
 * workspace rules (`WorkspaceAccess`) and is worded by `editorText.ts`.
 */
import * as vscode from 'vscode';
import { defineTool, isInside } from '../../core/index';
import { formatDiagnostics, formatSelection, type DiagnosticEntry, type SelectionInfo, type Severity } from './editorText';
import type { OfferedTool } from './offeredTool';
import { refusalText, WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

const SEVERITIES: Record<vscode.DiagnosticSeverity, Severity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function codeOf(code: vscode.Diagnostic['code']): string | undefined {
  if (code === undefined) return undefined;
  return typeof code === 'object' ? String(code.value) : String(code);
}

/** The `get_diagnostics` tool: problems of the workspace files the rules let a model see. */
export function diagnosticsTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<{ path?: string }>({
    name: 'get_diagnostics',
    description:
      'The problems VS Code reports (the Problems panel: compiler errors, lint warnings) for the workspace files, errors first, as `path:line:column severity: message (source code)`. ' +
      'Give `path` (a file or a folder, relative to the workspace folder) to see only its problems. Problems of ignored and secret files are not shown.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'A workspace file or folder. Default: the whole workspace.' } },
      additionalProperties: false,
    },
    readOnly: true,
    async run(input) {
      const access = new WorkspaceAccess(env);
      const scope = input.path?.trim() ? await access.checkWorkspacePath(input.path) : undefined;
      const entries: DiagnosticEntry[] = [];
      for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
        if (uri.scheme !== 'file' || diagnostics.length === 0) continue;
        const abs = uri.fsPath;
        if (scope && !isInside(scope.abs, abs)) continue;
        if (!(await access.allows(abs))) continue;
        const shown = access.shownPath(abs);
        for (const d of diagnostics) {
          entries.push({
            path: shown,
            line: d.range.start.line + 1,
            column: d.range.start.character + 1,
            severity: SEVERITIES[d.severity] ?? 'info',
            message: d.message,
            ...(d.source ? { source: d.source } : {}),
            ...(codeOf(d.code) ? { code: codeOf(d.code) } : {}),
          });
        }
      }
      return formatDiagnostics(entries, scope?.shown);
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}

/** The document a tab shows, if it shows one. */
function tabUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputNotebook || input instanceof vscode.TabInputCustom) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}

/**
 * Why the active document's text may not be given to the model, or `undefined` when it may: files by
 * the same rules as `read_file` (outside the workspace it points to `read_file`, which asks the user);
 * unsaved new documents are the user's own text; other kinds (output, git views) are not shared.
 */
async function withheldReason(access: WorkspaceAccess, doc: vscode.TextDocument, shown: string, start: number, end: number): Promise<string | undefined> {
  if (doc.uri.scheme === 'untitled') return undefined;
  if (doc.uri.scheme !== 'file') return `Its text is not shared (a ${doc.uri.scheme}: document, not a workspace file).`;
  const reason = await access.skipReason(doc.uri.fsPath);
  if (reason === 'outside') return `Its text is not shared here because the file is outside the workspace; read it with read_file (path "${shown}", startLine ${start}, endLine ${end}) and the user will be asked.`;
  return reason ? `Its text is not shared: ${refusalText(shown, reason)}` : undefined;
}

/** The `get_selection` tool: the editor the user worked in last, its selection, and the open editors. */
export function selectionTool(env: WorkspaceToolEnv, activeEditor: () => vscode.TextEditor | undefined): OfferedTool {
  const tool = defineTool<Record<string, never>>({
    name: 'get_selection',
    description:
      'What the user is looking at in the editor: the active file, its language, the selected range (1-based lines and columns) and the selected text, plus the paths of all open editors. ' +
      'Use it when the user says "this", "here" or "the selected code". The text of secret, ignored or outside files is not shared.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    readOnly: true,
    async run() {
      const access = new WorkspaceAccess(env);
      const shownOf = (uri: vscode.Uri) => (uri.scheme === 'file' ? access.shownPath(uri.fsPath) : uri.toString(true));
      const openEditors = [...new Set(vscode.window.tabGroups.all.flatMap((g) => g.tabs).map(tabUri).filter((u): u is vscode.Uri => !!u).map(shownOf))];
      const editor = activeEditor();
      const info: SelectionInfo = { openEditors };
      if (editor && !editor.document.isClosed) {
        const doc = editor.document;
        const sel = editor.selection;
        const path = shownOf(doc.uri);
        const withheld = sel.isEmpty ? undefined : await withheldReason(access, doc, path, sel.start.line + 1, sel.end.line + 1);
        info.active = {
          path,
          language: doc.languageId,
          start: { line: sel.start.line + 1, column: sel.start.character + 1 },
          end: { line: sel.end.line + 1, column: sel.end.character + 1 },
          ...(withheld ? { withheld } : { text: doc.getText(sel) }),
        };
      }
      return formatSelection(info);
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}
