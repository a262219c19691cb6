/**
 * File checkpoints in the host: what a node changed is recorded in the store (an accepted Apply on its
 * answer, an `edit_file` or `create_file` on its tool result), and Restore Files to Here brings the
 * workspace's files to how they were after a node: it judges every stored row with the edit tools'
 * guard (`restorePlan.ts`: rows it refuses are named and left out, the rest goes on), asks by name for
 * files changed outside Arbor since and for files the guard asks about, shows what would change as a
 * multi-file diff, checks every file again right before writing, and writes the rest as one
 * `WorkspaceEdit`. Moving in the tree never touches files by itself.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConversationManager, FileChange } from '../../core/index';
import { PROPOSED_SCHEME, Views } from '../base/constants';
import type { CheckpointServices } from './checkpointServices';
import { MAX_CHECKPOINT_FILE_BYTES, planRestore, recheckRestore, type CurrentFile, type RestoreEnv, type RestoreItem } from './restorePlan';

const encoder = new TextEncoder();

/** A file change as a tool result's metadata or an Apply reports it: absolute path and texts. */
export interface TextFileChange {
  abs: string;
  before: string | null;
  after: string | null;
}

/**
 * The store's form of text changes: workspace-relative paths with `/`, the name of the folder each is
 * in (Restore puts it back there, not into whichever folder comes first), contents as bytes. Files
 * outside every folder are not recorded.
 */
export function toFileChanges(changes: readonly TextFileChange[]): FileChange[] {
  return changes.flatMap((c) => {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(c.abs));
    if (!folder || folder.uri.scheme !== 'file') return [];
    const rel = path.relative(folder.uri.fsPath, c.abs).split(path.sep).join('/');
    if (!rel || path.isAbsolute(rel) || rel.split('/')[0] === '..') return [];
    return [{ path: rel, folder: path.basename(folder.uri.fsPath), before: c.before === null ? null : encoder.encode(c.before), after: c.after === null ? null : encoder.encode(c.after) }];
  });
}

export { MAX_CHECKPOINT_FILE_BYTES } from './restorePlan';

/** Records what `nodeId` changed; a failure is logged (the change itself is done and stays). */
export async function recordChanges(services: CheckpointServices, manager: ConversationManager, nodeId: string, changes: readonly TextFileChange[]): Promise<void> {
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

/** The edit tools' guard's view of the host (its folders, files and rules) and the text of open editors, for Restore and Apply. */
export function guardEnv(services: CheckpointServices): RestoreEnv {
  return {
    folders: () => services.folderPaths(),
    files: services.files,
    exclude: () => services.settings.ragExclude,
    openText: (abs) => openDocument(abs)?.getText(),
  };
}

function openDocument(abs: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && d.uri.fsPath === abs);
}

const decoder = new TextDecoder();
const files = (n: number) => (n === 1 ? '1 file' : `${n} files`);

/** What the diff shows for a side: the text (no byte-order mark, as an editor shows it), or a line saying why not. */
function shownText(bytes: Uint8Array | null, current?: CurrentFile): string {
  if (current?.kind === 'large') return `(${current.size.toLocaleString('en-US')} bytes now: too large for Arbor to read; Restore replaces it whole)`;
  if (current?.kind === 'binary') return `(binary content, ${current.size.toLocaleString('en-US')} bytes)`;
  if (bytes === null) return '';
  return bytes.includes(0) ? `(binary content, ${bytes.byteLength.toLocaleString('en-US')} bytes)` : decoder.decode(bytes);
}

/** The files that need the user's tick (changed outside Arbor since, or asked by name); the chosen ones, or undefined when the pick is dismissed. */
async function pickAsked(items: RestoreItem[]): Promise<RestoreItem[] | undefined> {
  if (items.length === 0) return [];
  const asks = items.some((i) => i.asks.length > 0);
  const picked = await vscode.window.showQuickPick(
    items.map((i) => ({
      label: i.path,
      description: i.ours ? 'needs your OK' : 'changed outside Arbor since',
      detail: [...i.asks, ...(i.current.kind === 'large' ? [`It is ${i.current.size.toLocaleString('en-US')} bytes now, more than Arbor reads; restoring replaces it whole.`] : [])].join(' ') || undefined,
      picked: false,
      item: i,
    })),
    {
      canPickMany: true,
      title: asks ? 'Restore these files too? Each needs your OK, for the reason shown' : 'These files changed outside Arbor since: restore them too?',
      placeHolder: 'Tick the files to restore as well; the others are left alone',
    },
  );
  return picked?.map((p) => p.item);
}

/** Restore Files to Here: see the file's header and `restorePlan.ts`. */
export async function restoreFilesTo(services: CheckpointServices, manager: ConversationManager, nodeId: string): Promise<void> {
  const env = guardEnv(services);
  if (env.folders().length === 0) {
    void vscode.window.showInformationMessage('Open the workspace folder the conversation changed files in, then restore its files.');
    return;
  }
  const plan = await planRestore(env, manager, nodeId);
  for (const r of plan.refused) services.logger.warn(r.reason);
  const leftOut = plan.refused.length > 0 ? ` Left out: ${plan.refused.map((r) => r.reason).join(' ')}` : '';
  if (plan.items.length === 0) {
    if (leftOut) void vscode.window.showWarningMessage(`Nothing was restored.${leftOut}`);
    else void vscode.window.showInformationMessage('The files are already as they were after this message: nothing to restore.');
    return;
  }
  const asked = await pickAsked(plan.items.filter((i) => !i.ours || i.asks.length > 0));
  if (!asked) return;
  const chosen = [...plan.items.filter((i) => i.ours && i.asks.length === 0), ...asked];
  if (chosen.length === 0) {
    void vscode.window.showInformationMessage('No file was chosen: nothing was restored.');
    return;
  }
  const stamp = Date.now();
  const proposed = chosen.map((p, i) => {
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${p.path}`, query: `restore=${stamp}-${i}` });
    services.codeApply.setContent(uri, shownText(p.wanted));
    return uri;
  });
  const left = chosen.map((p, i) => {
    if (p.current.kind === 'text') return vscode.Uri.file(p.target.abs);
    const uri = proposed[i].with({ query: `now=${stamp}-${i}` });
    services.codeApply.setContent(uri, shownText(null, p.current));
    return uri;
  });
  await focusBesideChat();
  await vscode.commands.executeCommand(
    'vscode.changes',
    `Restore ${files(chosen.length)} to after this message`,
    chosen.map((p, i) => [vscode.Uri.file(p.target.abs), left[i], proposed[i]]),
  );
  const answer = await vscode.window.showInformationMessage(
    `Restore ${chosen.map((p) => p.path).join(', ')} to how ${chosen.length === 1 ? 'it was' : 'they were'} after this message?${leftOut}`,
    'Restore',
    'Cancel',
  );
  [...proposed, ...left].forEach((uri) => uri.scheme === PROPOSED_SCHEME && services.codeApply.setContent(uri, undefined));
  if (answer !== 'Restore') return;
  // Judged again now: a file edited or a folder swapped for a link while the question was shown is left alone.
  const { ready, skipped } = await recheckRestore(env, chosen);
  for (const s of skipped) services.logger.warn(s.reason);
  if (ready.length > 0) await writeRestore(ready);
  const notes = skipped.length > 0 ? ` ${skipped.map((s) => s.reason).join(' ')}` : '';
  if (ready.length === 0) void vscode.window.showWarningMessage(`Nothing was restored.${notes}`);
  else if (notes) void vscode.window.showWarningMessage(`Restored ${files(ready.length)} to how they were after this message.${notes}`);
  else void vscode.window.showInformationMessage(`Restored ${files(ready.length)} to how they were after this message (Undo in an editor takes a file back).`);
}

/** Writes checked items as one `WorkspaceEdit` (Undo takes it back), stored bytes as they are for a created or non-text file. */
async function writeRestore(items: RestoreItem[]): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  const saved: vscode.Uri[] = [];
  for (const p of items) {
    const uri = vscode.Uri.file(p.target.abs);
    const text = p.wanted && !p.wanted.includes(0) ? decoder.decode(p.wanted) : null;
    if (p.wanted === null) edit.deleteFile(uri, { ignoreIfNotExists: true });
    else if (p.current.kind === 'absent') edit.createFile(uri, { contents: p.wanted, ignoreIfExists: false });
    else if (p.current.kind !== 'text' || text === null) edit.createFile(uri, { contents: p.wanted, overwrite: true });
    else {
      const doc = openDocument(p.target.abs) ?? (await vscode.workspace.openTextDocument(uri));
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
      saved.push(uri);
    }
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('VS Code refused to restore the files: one may be read-only, or changed or created meanwhile.');
  for (const uri of saved) {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty) await doc.save();
  }
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

/** Shows what `nodeId` did to `filePath` (a chip of its message): the content before and after, side by side. */
export async function openFileChange(services: CheckpointServices, manager: ConversationManager, nodeId: string, filePath: string): Promise<void> {
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
