/**
 * "Find Conversations from Other Workspaces": the stores VS Code left under other workspace identities
 * of the current folders (folder alone, a `.code-workspace`, code-server's `-1` window) listed with
 * their size and last use, and the picked ones merged into the current store (ids kept, the sources
 * only read). The offer made at start when this workspace's store is empty (`otherStoresOffer.ts`)
 * uses the same search and merge.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findOtherStores, mergeStoreInto, SqlJsConversationStorage, type ConversationStorage, type CopyReport, type OtherStore } from '../../core/index';
import type { CommandDeps } from './commandDeps';
import { Commands } from '../base/constants';
import { toErrorView } from '../chat/errorView';
import type { CommandServices } from './commandServices';
import { STORE_FILE } from '../stores/storeOpening';

/** The search's memory of each store's ids, in the global storage folder (see `StoreIdsCache`). */
const OTHER_STORES_CACHE_FILE = 'other-stores-cache.json';

/** Registers `arbor.findOtherWorkspaceConversations`. */
export function registerOtherStoreCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand(Commands.findOtherWorkspaceConversations, () => findAndMerge(deps)));
}

/** The stores other workspaces of the current folders left, most recently used first (the sources only read). */
export function findStoresOfFolders(services: CommandServices): Promise<OtherStore[]> {
  const currentStoreDir = services.storageDir();
  return findOtherStores({
    storageRoot: path.dirname(path.dirname(currentStoreDir)),
    currentStoreDir,
    folders: services.folderPaths(),
    storeFile: STORE_FILE,
    idsCacheFile: path.join(services.globalStorageDir(), OTHER_STORES_CACHE_FILE),
    wasmPath: wasmPathOf(services),
    logger: services.logger,
  });
}

function wasmPathOf(services: CommandServices): string {
  return vscode.Uri.joinPath(services.extensionUri, 'dist', 'sql-wasm.wasm').fsPath;
}

async function findAndMerge(deps: CommandDeps): Promise<void> {
  const { services } = deps;
  const folders = services.folderPaths();
  if (!vscode.workspace.workspaceFolders?.length || folders.length === 0) {
    void vscode.window.showInformationMessage('Arbor: open a folder first; conversations from other workspaces are found by the folders they belong to.');
    return;
  }
  if (!services.trusted) {
    const read = await vscode.window.showWarningMessage(
      'This workspace is not trusted. Read the Arbor conversation stores that other workspaces of these folders left in VS Code\'s workspace storage?',
      { modal: true, detail: 'They are only read; nothing is copied until you pick them.' },
      'Read Them',
    );
    if (read !== 'Read Them') return;
  }
  let found: OtherStore[];
  try {
    found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Arbor: looking for conversations from other workspaces' }, () => findStoresOfFolders(services));
  } catch (err) {
    services.logger.error('Could not look for other workspaces\' stores', err);
    void vscode.window.showErrorMessage(`Arbor: could not look for conversations from other workspaces: ${toErrorView(err).message}`);
    return;
  }
  if (found.length === 0) {
    void vscode.window.showInformationMessage(`Arbor: no other workspace of ${folders.length === 1 ? 'this folder' : 'these folders'} has conversations.`);
    return;
  }
  const picks = await vscode.window.showQuickPick(
    found.map((store) => ({ label: describeFolders(store), description: `${store.conversations} conversation${store.conversations === 1 ? '' : 's'} · ${formatSize(store.size)} · last used ${store.lastUsed.toLocaleString()}`, detail: store.path, store })),
    { canPickMany: true, title: 'Conversations from other workspaces', placeHolder: 'Pick the stores to open here (their conversations are copied into this workspace\'s store; they stay as they are)', ignoreFocusOut: true },
  );
  if (!picks?.length) return;
  await mergeStores(deps, picks.map((p) => p.store));
}

/** Copies the conversations of `stores` into the current store (ids kept, none twice) and says what happened. */
export async function mergeStores(deps: Pick<CommandDeps, 'services' | 'tree'>, stores: OtherStore[]): Promise<void> {
  const { services } = deps;
  const wasmPath = wasmPathOf(services);
  const total: CopyReport = { copied: [], skipped: [], failed: [] };
  const unreadable: string[] = [];
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Arbor: opening conversations from other workspaces' }, async (progress) => {
    const target = await services.storage();
    for (const [i, store] of stores.entries()) {
      progress.report({ message: `${describeFolders(store)} (${i + 1} of ${stores.length})` });
      let source: ConversationStorage | undefined;
      try {
        source = await SqlJsConversationStorage.open(store.path, { readOnly: true, wasmPath, logger: services.logger });
        const report = await mergeStoreInto(source, target);
        total.copied.push(...report.copied);
        total.skipped.push(...report.skipped);
        total.failed.push(...report.failed);
      } catch (err) {
        services.logger.error(`Could not merge the conversation store ${store.path}`, err);
        unreadable.push(`${store.path}: ${toErrorView(err).message}`);
      } finally {
        await source?.close().catch((err) => services.logger.warn(`Could not close ${store.path}`, err));
      }
    }
  });
  deps.tree.provider.refresh();
  const copied = total.copied.length;
  const exists = total.skipped.filter((s) => s.reason === 'exists').length;
  const parts = [`${copied} conversation${copied === 1 ? '' : 's'} opened here.`];
  if (exists) parts.push(`${exists} ${exists === 1 ? 'was' : 'were'} here already.`);
  if (total.failed.length) parts.push(`${total.failed.length} could not be copied: ${toErrorView(total.failed[0].error).message}`);
  if (unreadable.length) parts.push(`Could not read ${unreadable.join('; ')}.`);
  const message = `Arbor: ${parts.join(' ')} The other stores were left as they were.`;
  if (total.failed.length || unreadable.length) void vscode.window.showErrorMessage(message);
  else void vscode.window.showInformationMessage(message);
}

/** The folders (and workspace file) a store was made for, in a few words. */
export function describeFolders(store: OtherStore): string {
  const names = store.folders.map((f) => path.basename(f));
  const where = store.workspaceFile ? `${path.basename(store.workspaceFile)}: ${names.join(', ')}` : names.length ? names.join(', ') : 'this folder, another window';
  return where;
}

/** Bytes in B, KB or MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
