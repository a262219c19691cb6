import * as vscode from 'vscode';
import { copyConversations, type ConversationStorage, type CopyReport } from '../../core/index';
import { conversationIdOf, targetsOf, type CommandDeps } from './commandDeps';
import { Commands, Settings } from '../base/constants';
import { toErrorView } from '../chat/errorView';
import { openOtherStore } from '../stores/storeOpening';

/** The team store's commands: the password (kept in secret storage), Move to Team Store and Copy to Local. */
export function registerTeamStoreCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { services } = deps;
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg(Commands.setTeamStorePassword, async () => {
    const password = await vscode.window.showInputBox({
      prompt: 'Password of your team store database role (kept in VS Code\'s secret storage, never in settings). Leave empty to remove it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (password === undefined) return;
    if (password === '') {
      await services.teamStorePassword.clear();
      void vscode.window.showInformationMessage('The team store password was removed from secret storage.');
      return;
    }
    await services.teamStorePassword.set(password);
    if (services.settings.teamStore.kind !== 'postgres') {
      const use = await vscode.window.showInformationMessage('The team store password is saved. Store conversations in the team store now?', 'Use Team Store');
      if (use) await services.updateSetting(Settings.storageKind, 'postgres');
    } else {
      void vscode.window.showInformationMessage('The team store password is saved.');
    }
  });

  // Per conversation from its context menu, or over the tree's multiple selection.
  const picked = (arg?: unknown, selected?: unknown): string[] => {
    const ids = targetsOf(deps, arg, selected).map((e) => e.conversationId);
    const one = ids.length > 0 ? ids : [conversationIdOf(deps, arg)].filter((id): id is string => id !== undefined);
    return [...new Set(one)];
  };
  reg(Commands.moveToTeamStore, (arg?: unknown, selected?: unknown) => transfer(deps, picked(arg, selected), 'move'));
  reg(Commands.copyToLocal, (arg?: unknown, selected?: unknown) => transfer(deps, picked(arg, selected), 'copy'));
}

/**
 * Moves conversations from the local store to the team store (deleting each local one only once its
 * team copy is stored), or copies them from the team store to the local one; ids are kept.
 */
async function transfer(deps: CommandDeps, ids: string[], mode: 'move' | 'copy'): Promise<void> {
  const { services } = deps;
  if (ids.length === 0) return;
  const toTeam = mode === 'move';
  if (toTeam === services.usesTeamStore) {
    void vscode.window.showInformationMessage(toTeam ? 'These conversations are in the team store already.' : 'These conversations are local already.');
    return;
  }
  let other: ConversationStorage | undefined;
  try {
    const current = await services.storage();
    other = await openOtherStore({
      settings: services.settings.teamStore,
      password: await services.teamStorePassword.get(),
      dir: services.storageDir(),
      wasmPath: vscode.Uri.joinPath(services.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
      logger: services.logger,
    });
    const target = other;
    // A chat being moved closes first, so nothing is written to the local copy while it moves.
    if (toTeam) for (const id of ids) deps.panels.close(id);
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: toTeam ? 'Moving to the team store' : 'Copying to the local store' },
      (progress) => copyConversations(current, target, ids, { move: toTeam, onProgress: (done, total) => progress.report({ message: `${done} of ${total}`, increment: 100 / total }) }),
    );
    if (toTeam) for (const id of report.copied) services.forget(id);
    showReport(report, toTeam);
  } catch (err) {
    services.logger.error(`Could not ${mode} conversations`, err);
    void vscode.window.showErrorMessage(`Arbor: ${toErrorView(err).message} Nothing was ${toTeam ? 'moved' : 'copied'}.`);
  } finally {
    await other?.close().catch((err) => services.logger.warn('Could not close the other store', err));
  }
}

function showReport(report: CopyReport, toTeam: boolean): void {
  const done = report.copied.length;
  const parts = [toTeam ? `${done} conversation${done === 1 ? '' : 's'} moved to the team store.` : `${done} conversation${done === 1 ? '' : 's'} copied to the local store.`];
  const exists = report.skipped.filter((s) => s.reason === 'exists').length;
  if (exists) parts.push(`${exists} left alone: the ${toTeam ? 'team' : 'local'} store already has a conversation with the same id.`);
  if (report.failed.length) {
    parts.push(`${report.failed.length} failed and ${toTeam ? 'stay local' : 'were not copied'}: ${toErrorView(report.failed[0].error).message}`);
    void vscode.window.showErrorMessage(`Arbor: ${parts.join(' ')}`);
  } else {
    void vscode.window.showInformationMessage(`Arbor: ${parts.join(' ')}`);
  }
}
