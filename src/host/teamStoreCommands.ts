import * as vscode from 'vscode';
import type { CommandDeps } from './commandDeps';
import { Commands, Settings } from './constants';

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
}
