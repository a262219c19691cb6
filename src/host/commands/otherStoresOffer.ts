/**
 * History that follows the folder. VS Code keeps an extension's workspace storage per workspace
 * identity (a folder alone, the same folder in a multi-root workspace, a `.code-workspace` file, a
 * second code-server window), so a workspace of the same folders can start with an empty store while
 * its conversations sit in another. At start, when this workspace's local store has no conversation,
 * the stores of its folders are looked for, and the Conversations view offers them once, above the
 * list: Open Them Here (copied in, ids kept, the sources only read) or Dismiss. In an untrusted
 * workspace nothing is read before the user asks. Arbor also writes beside its store which folders it
 * belongs to, since not every host writes VS Code's `workspace.json`.
 */
import * as vscode from 'vscode';
import { writeArborIdentity, type OtherStore } from '../../core/index';
import type { CommandDeps } from './commandDeps';
import { Commands, Settings } from '../base/constants';
import { describeFolders, findStoresOfFolders, formatSize, mergeStores } from './otherStoreCommands';
import { hasMessages, otherStoresOffer, untrustedOtherStoresOffer } from '../tree/treeModel';

/** Set in the workspace's state once the offer was answered (opened, looked for or dismissed). */
export const OFFER_ANSWERED_KEY = 'arbor.otherStoresOffer.answered';

/** `arbor.otherWorkspaces.offer`: whether the offer is made at all (read at start). */
const OTHER_WORKSPACES_OFFER_SETTING = 'otherWorkspaces.offer';

const OFFER_COMMANDS = { open: Commands.openOtherStoresOffer, dismiss: Commands.dismissOtherStoresOffer };

/** Registers the offer's answers, records this store's folders, and looks for other stores in the background. */
export function registerOtherStoresOffer(context: vscode.ExtensionContext, deps: Pick<CommandDeps, 'services' | 'tree'>): void {
  const { services, tree } = deps;
  let offered: { stores: OtherStore[] } | 'untrusted' | undefined;
  const answer = async () => {
    offered = undefined;
    tree.provider.setOffer(undefined);
    await context.workspaceState.update(OFFER_ANSWERED_KEY, true);
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.openOtherStoresOffer, async () => {
      const was = offered;
      await answer();
      if (was === 'untrusted') await vscode.commands.executeCommand(Commands.findOtherWorkspaceConversations);
      else if (was) await mergeStores(deps, was.stores);
    }),
    vscode.commands.registerCommand(Commands.dismissOtherStoresOffer, answer),
  );

  const recordFolders = () => {
    // Beside the store (in `<id>` even when this window was given `<id>-1`).
    const dir = context.storageUri ? services.storageDir() : undefined;
    const folders = services.folderPaths();
    if (!dir || folders.length === 0) return Promise.resolve();
    const workspaceFile = vscode.workspace.workspaceFile?.scheme === 'file' ? vscode.workspace.workspaceFile.fsPath : undefined;
    return writeArborIdentity(dir, { folders, ...(workspaceFile ? { workspaceFile } : {}) }).catch((err) => services.logger.warn('Could not record which folders the conversation store belongs to', err));
  };
  context.subscriptions.push(vscode.workspace.onDidChangeWorkspaceFolders(() => void recordFolders()));

  void (async () => {
    await recordFolders();
    const folderCount = services.folderPaths().length;
    if (services.usesTeamStore || !context.storageUri || folderCount === 0 || context.workspaceState.get<boolean>(OFFER_ANSWERED_KEY)) return;
    if (!vscode.workspace.getConfiguration(Settings.section).get<boolean>(OTHER_WORKSPACES_OFFER_SETTING, true)) return;
    const storage = await services.storage();
    if ((await storage.listConversations({ limit: 100 })).some(hasMessages)) return;
    if (!services.trusted) {
      offered = 'untrusted';
      tree.provider.setOffer(untrustedOtherStoresOffer(folderCount, OFFER_COMMANDS));
      return;
    }
    const stores = await findStoresOfFolders(services);
    services.logger.info(`Other workspaces of ${folderCount === 1 ? 'this folder' : 'these folders'}: ${stores.length ? stores.map((s) => `${s.path} (${s.conversations})`).join(', ') : 'no store with conversations'}`);
    if (stores.length === 0) return;
    offered = { stores };
    tree.provider.setOffer(otherStoresOffer(stores.map((s) => ({ where: describeFolders(s), conversationIds: s.conversationIds, size: formatSize(s.size), lastUsed: s.lastUsed })), folderCount, OFFER_COMMANDS));
  })().catch((err) => services.logger.warn('Could not look for conversations from other workspaces', err));
}
