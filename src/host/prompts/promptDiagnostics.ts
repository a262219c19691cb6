import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileSystemPromptLibrary, PromptDiagnostic } from '../../core/index';
import type { PromptServices } from './promptServices';

/** Wait after activation before loading the prompt library for its diagnostics. */
const LOAD_DELAY_MS = 1500;

function toDiagnostic(d: PromptDiagnostic): vscode.Diagnostic {
  const line = Math.max(0, d.line - 1);
  const column = Math.max(0, d.column - 1);
  const diag = new vscode.Diagnostic(
    new vscode.Range(line, column, line, column + 200),
    d.message,
    d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  diag.source = 'Arbor prompts';
  return diag;
}

/**
 * Prompt files with problems show in the Problems panel at their line, and update live as the files
 * change (the library watches its folder and fires `onDidChange` after each reload).
 */
export function registerPromptDiagnostics(context: vscode.ExtensionContext, deps: { services: PromptServices }): void {
  const { services } = deps;
  const collection = vscode.languages.createDiagnosticCollection('arbor-prompts');
  let librarySub: { dispose(): void } | undefined;
  const publish = (library: FileSystemPromptLibrary | undefined) => {
    collection.clear();
    if (!library) return;
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const d of library.diagnostics()) {
      const file = path.join(library.promptDir, d.file);
      const list = byFile.get(file) ?? [];
      list.push(toDiagnostic(d));
      byFile.set(file, list);
    }
    collection.set([...byFile].map(([file, list]) => [vscode.Uri.file(file), list]));
  };
  const attach = (library: FileSystemPromptLibrary | undefined) => {
    librarySub?.dispose();
    librarySub = library?.onDidChange(() => publish(library));
    publish(library);
  };
  const timer = setTimeout(() => {
    if (services.trusted && services.promptsFolderPath()) void services.promptLibrary().then(attach, () => undefined);
  }, LOAD_DELAY_MS);
  context.subscriptions.push(collection, services.onDidLoadLibrary(attach), {
    dispose: () => {
      clearTimeout(timer);
      librarySub?.dispose();
    },
  });
}
