/**
 * File checkpoints in the host: what a node changed is recorded in the store (an accepted Apply on its
 * answer, an `edit_file` or `create_file` on its tool result), and Restore Files to Here brings the
 * workspace's files to how they were after a node: it shows what would change as a multi-file diff,
 * leaves files changed outside Arbor since alone unless the user ticks them, and writes the rest as one
 * `WorkspaceEdit`. Moving in the tree never touches files by itself.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationManager, FileChange, FileState } from '../../core/index';
import { PROPOSED_SCHEME, Views } from '../constants';
import type { Services } from '../services';
import { textHash } from '../tools/fileChanges';

const encoder = new TextEncoder();

/** A file change as a tool result's metadata or an Apply reports it: absolute path and texts. */
export interface TextFileChange {
  abs: string;
  before: string | null;
  after: string | null;
}

/** The store's form of text changes: workspace-relative paths with `/`, contents as bytes. */
export function toFileChanges(changes: readonly TextFileChange[]): FileChange[] {
  return changes
    .map((c) => ({ path: vscode.workspace.asRelativePath(c.abs, false).split(path.sep).join('/'), before: c.before === null ? null : encoder.encode(c.before), after: c.after === null ? null : encoder.encode(c.after) }))
    .filter((c) => !path.isAbsolute(c.path) && !c.path.startsWith('..'));
}

/**
 * Most bytes of one version of a file a checkpoint keeps: the store lives in memory and every
 * checkpoint of it writes it whole, so a generated or data file of many megabytes is not recorded
 * (its change stays done; Restore Files to Here does not know it).
 */
export const MAX_CHECKPOINT_FILE_BYTES = 2_000_000;

/** Records what `nodeId` changed; a failure is logged (the change itself is done and stays). */
export async function recordChanges(services: Services, manager: ConversationManager, nodeId: string, changes: readonly TextFileChange[]): Promise<void> {
  const tooLarge = (c: FileChange) => Math.max(c.before?.byteLength ?? 0, c.after?.byteLength ?? 0) > MAX_CHECKPOINT_FILE_BYTES;
  const all = toFileChanges(changes);
  for (const c of all.filter(tooLarge)) {
    services.logger.warn(`Not recording ${c.path} in the file checkpoint of message ${nodeId}: a version of it passes ${MAX_CHECKPOINT_FILE_BYTES.toLocaleString('en-US')} bytes. Restore Files to Here leaves it as it is.`);
  }
  const files = all.filter((c) => !tooLarge(c));
  if (files.length === 0) return;
  try {
    await manager.recordFileChanges(nodeId, files);
  } catch (err) {
    services.logger.warn(`Could not record the file checkpoint of message ${nodeId}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One file Restore would write: what it holds now, what it held after the node, and whether Arbor made what it holds now. */
interface RestorePlan {
  state: FileState;
  uri: vscode.Uri;
  current: string | null;
  target: string | null;
  /** What the file holds now is what Arbor last wrote on the current path (else it changed outside Arbor). */
  ours: boolean;
}

/** Restore Files to Here: see the file's header. */
export async function restoreFilesTo(services: Services, manager: ConversationManager, nodeId: string): Promise<void> {
  const folder = services.folderPaths()[0];
  if (!folder) {
    void vscode.window.showInformationMessage('Open the workspace folder the conversation changed files in, then restore its files.');
    return;
  }
  const decoder = new TextDecoder();
  const content = async (hash: string | null) => (hash === null ? null : decoder.decode((await manager.getFileContent(hash)) ?? new Uint8Array()));
  // The files as they were after the node; a file first changed after it (on the path to where the
  // reader is) goes back to how it was before that first change, or away if that change created it.
  const atNode = await manager.getFilesStateAt(nodeId);
  const covered = new Set(atNode.map((f) => f.path));
  for (const later of await manager.getFilesStateAt(manager.currentNodeId)) {
    if (!covered.has(later.path)) atNode.push({ ...later, hash: later.originalHash, nodeId });
  }
  // Every version of each file Arbor wrote or found in this conversation, on any branch: a file that
  // holds one of them now was last changed by Arbor; anything else was changed outside it since.
  const known = new Map<string, Set<string>>();
  for (const changes of Object.values(await manager.getFileChangesByNode())) {
    for (const c of changes) {
      const set = known.get(c.path) ?? new Set<string>();
      if (c.before) set.add(c.before.hash);
      if (c.after) set.add(c.after.hash);
      known.set(c.path, set);
    }
  }
  const plans: RestorePlan[] = [];
  for (const state of atNode) {
    const uri = vscode.Uri.file(path.join(folder, state.path));
    const current = await readText(uri);
    const target = await content(state.hash);
    if (current === target) continue;
    const ours = current === null ? state.originalHash === null : (known.get(state.path)?.has(textHash(current)) ?? false);
    plans.push({ state, uri, current, target, ours });
  }
  if (plans.length === 0) {
    void vscode.window.showInformationMessage('The files are already as they were after this message: nothing to restore.');
    return;
  }
  const outside = plans.filter((p) => !p.ours);
  let chosen = plans.filter((p) => p.ours);
  if (outside.length > 0) {
    const picked = await vscode.window.showQuickPick(
      outside.map((p) => ({ label: p.state.path, description: 'changed outside Arbor since', picked: false, plan: p })),
      { canPickMany: true, title: 'These files changed outside Arbor since: restore them too?', placeHolder: 'Tick the files to restore as well; the others are left alone' },
    );
    if (!picked) return;
    chosen = [...chosen, ...picked.map((p) => p.plan)];
  }
  if (chosen.length === 0) {
    void vscode.window.showInformationMessage('No file was chosen: nothing was restored.');
    return;
  }
  const proposed = chosen.map((p, i) => {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${p.state.path}`, query: `restore=${Date.now()}-${i}` });
    services.codeApply.setContent(uri, p.target ?? '');
    return uri;
  });
  await focusBesideChat();
  await vscode.commands.executeCommand(
    'vscode.changes',
    `Restore ${chosen.length === 1 ? '1 file' : `${chosen.length} files`} to after this message`,
    chosen.map((p, i) => [p.uri, p.current === null ? proposed[i].with({ query: 'empty' }) : p.uri, proposed[i]]),
  );
  const answer = await vscode.window.showInformationMessage(
    `Restore ${chosen.map((p) => p.state.path).join(', ')} to how ${chosen.length === 1 ? 'it was' : 'they were'} after this message?`,
    'Restore',
    'Cancel',
  );
  proposed.forEach((uri) => services.codeApply.setContent(uri, undefined));
  if (answer !== 'Restore') return;
  const edit = new vscode.WorkspaceEdit();
  for (const p of chosen) {
    if (p.target === null) edit.deleteFile(p.uri, { ignoreIfNotExists: true });
    else if (p.current === null) edit.createFile(p.uri, { contents: encoder.encode(p.target) });
    else {
      const doc = await vscode.workspace.openTextDocument(p.uri);
      edit.replace(p.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), p.target);
    }
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code refused to restore the files: one may be read-only or open with changes it cannot replace.');
  for (const p of chosen) {
    if (p.target === null) continue;
    const doc = await vscode.workspace.openTextDocument(p.uri);
    if (doc.isDirty) await doc.save();
  }
  void vscode.window.showInformationMessage(`Restored ${chosen.length === 1 ? '1 file' : `${chosen.length} files`} to how they were after this message (Undo in an editor takes a file back).`);
}

const FOCUS_GROUP_COMMANDS = ['First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth'].map((n) => `workbench.action.focus${n}EditorGroup`);

/**
 * The multi-file diff opens in the active editor group (its command takes no column): when a group
 * shows a chat, another group (a new one to the right when there is none) takes the focus first, so
 * the chat stays in view beside the diff, as with Apply. The focus is always set, never skipped on
 * the host's view of which group is active: that view lags behind a click in the chat, and a diff
 * opened on a stale one covered the chat.
 */
async function focusBesideChat(): Promise<void> {
  const showsChat = (g: vscode.TabGroup) => {
    const input = g.activeTab?.input;
    return input instanceof vscode.TabInputWebview && input.viewType.endsWith(Views.chatPanel);
  };
  const groups = vscode.window.tabGroups.all;
  if (!groups.some(showsChat)) return;
  const other = groups.find((g) => !showsChat(g));
  const command = other ? FOCUS_GROUP_COMMANDS[other.viewColumn - 1] : 'workbench.action.newGroupRight';
  if (command) await vscode.commands.executeCommand(command);
}

/** A file's text as VS Code has it (an open editor's, else the disk's); null when it does not exist. */
async function readText(uri: vscode.Uri): Promise<string | null> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return null;
  }
}

/** Shows what `nodeId` did to `filePath` (a chip of its message): the content before and after, side by side. */
export async function openFileChange(services: Services, manager: ConversationManager, nodeId: string, filePath: string): Promise<void> {
  const change = (await manager.getFileChanges(nodeId)).find((c) => c.path === filePath);
  if (!change) {
    void vscode.window.showInformationMessage(`This message has no recorded change of ${filePath}.`);
    return;
  }
  const decoder = new TextDecoder();
  const text = async (hash: string | undefined) => (hash === undefined ? '' : decoder.decode((await manager.getFileContent(hash)) ?? new Uint8Array()));
  const stamp = `${nodeId}-${Date.now()}`;
  const before = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${filePath}`, query: `before=${stamp}` });
  const after = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${filePath}`, query: `after=${stamp}` });
  services.codeApply.setContent(before, await text(change.before?.hash));
  services.codeApply.setContent(after, await text(change.after?.hash));
  await vscode.commands.executeCommand('vscode.diff', before, after, `${filePath}: the change of this message (${change.kind})`, { preview: true });
}
