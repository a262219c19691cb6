/**
 * Old versions of prompt files, for the diff a prompt message's version chip opens: a read-only
 * document scheme whose documents hold a file's text at a git blob id (read with `git cat-file`), and
 * the command that shows it beside the working file.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isForeignPromptPath, type PromptRef } from '../../core/index';
import { readGitBlob } from '../base/gitBlob';
import type { PromptServices } from './promptServices';

/** The URI scheme of old prompt versions: `arbor-prompt-version:/<prompts folder>/<path>?blob=<id>&cwd=<folder>`. */
export const PROMPT_VERSION_SCHEME = 'arbor-prompt-version';

/** Serves old prompt versions, read-only, from git. */
class PromptVersionProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const cwd = query.get('cwd') ?? '';
    return readGitBlob(cwd, { path: uri.path.replace(/^\//, ''), blobId: query.get('blob') ?? '' });
  }
}

/** Registers the `arbor-prompt-version:` documents (read-only: VS Code offers no save for a content provider). */
export function registerPromptVersions(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PROMPT_VERSION_SCHEME, new PromptVersionProvider()));
}

/**
 * Opens the diff between the version of a prompt file that rendered a message (its git blob) and the
 * file now. Reads the old version first so a missing git, repository or blob is said plainly instead
 * of showing an empty editor.
 */
export async function openPromptVersionDiff(services: PromptServices, ref: PromptRef): Promise<void> {
  // Another tool's prompt file recorded its path in the workspace folder, the library's in the prompts folder.
  const foreign = isForeignPromptPath(ref.path);
  const folder = foreign ? services.folderPaths()[0] : services.promptsFolderPath();
  if (!folder) {
    void vscode.window.showErrorMessage('Open the workspace folder that holds the prompts to compare prompt versions.');
    return;
  }
  const file = path.join(folder, ...ref.path.split('/'));
  const shown = foreign ? ref.path : `${services.settings.promptsFolder}/${ref.path}`;
  // Git runs in the workspace folder: the prompts folder itself may be gone.
  const cwd = services.folderPaths()[0] ?? folder;
  try {
    await readGitBlob(cwd, { path: shown, blobId: ref.gitBlobId });
  } catch (err) {
    void vscode.window.showErrorMessage((err as Error).message);
    return;
  }
  const left = vscode.Uri.from({ scheme: PROMPT_VERSION_SCHEME, path: `/${shown}`, query: new URLSearchParams({ blob: ref.gitBlobId, cwd }).toString() });
  const right = vscode.Uri.file(file);
  const short = ref.gitBlobId.slice(0, 7);
  if (!(await services.files.stat(file))) {
    // The file is gone: show the version alone.
    await vscode.window.showTextDocument(left, { preview: true });
    void vscode.window.showInformationMessage(`${shown} no longer exists; showing version ${short} that rendered the message.`);
    return;
  }
  await vscode.commands.executeCommand('vscode.diff', left, right, `${path.basename(ref.path)} (${short}) ↔ working file`, { preview: true });
}
