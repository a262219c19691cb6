import * as path from 'node:path';
import * as vscode from 'vscode';
import { modelChoices, modelKey, VSCODE_MODEL_GROUP } from '../../core/index';
import { vscodeModelViews } from '../chat/chatModels';
import { chatToolPickerDeps, chooseTools } from '../chat/chatToolPicker';
import type { CommandDeps } from './commandDeps';
import { Commands, Settings } from '../base/constants';
import { conversationModel } from '../conversations/conversationModel';
import { newPromptTemplate, validatePromptName } from '../prompts/promptTemplate';

/** Settings, prompt and index commands: prompts folder, new prompt, API key, model, reindex, timing. */
export function registerGeneralCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { services } = deps;
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg(Commands.resetToolApprovals, async () => {
    const count = await services.tools.resetGrants();
    void vscode.window.showInformationMessage(
      count === 0
        ? 'There were no tool approvals to forget: every tool that asks still asks.'
        : `Arbor forgot ${count === 1 ? '1 tool approval' : `${count} tool approvals`} (in conversations, this workspace and always): those tools ask again.`,
    );
  });

  reg(Commands.openPromptsFolder, async () => {
    const dir = services.promptsFolderPath();
    if (!dir) {
      void vscode.window.showInformationMessage('Open a folder first: prompt templates live in its prompts/ folder.');
      return;
    }
    const uri = vscode.Uri.file(dir);
    const stat = await services.files.stat(dir);
    if (!stat) {
      const create = await vscode.window.showInformationMessage(`There is no ${services.settings.promptsFolder}/ folder yet. Create it with a sample prompt?`, 'Create');
      if (create !== 'Create') return;
      await vscode.commands.executeCommand(Commands.newPrompt, 'ask-workspace');
      return;
    }
    await vscode.commands.executeCommand('revealInExplorer', uri);
  });

  reg(Commands.newPrompt, async (presetName?: unknown) => {
    const dir = services.promptsFolderPath();
    if (!dir) {
      void vscode.window.showInformationMessage('Open a folder first: prompt templates live in its prompts/ folder.');
      return;
    }
    const name =
      typeof presetName === 'string'
        ? presetName
        : await vscode.window.showInputBox({ prompt: 'Name of the new prompt (used as /name in the chat)', placeHolder: 'review-code', validateInput: validatePromptName });
    if (!name) return;
    const file = vscode.Uri.file(path.join(dir, 'user', `${name}.md`));
    if (await services.files.stat(file.fsPath)) {
      await vscode.window.showTextDocument(file);
      return;
    }
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(file.fsPath)));
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(newPromptTemplate()));
    await vscode.window.showTextDocument(file);
  });

  reg(Commands.setOpenAIKey, async () => {
    const key = await vscode.window.showInputBox({
      prompt: 'OpenAI API key (kept in VS Code\'s secret storage, never in settings)',
      password: true,
      ignoreFocusOut: true,
      placeHolder: 'sk-…',
      validateInput: (v) => (v.trim().length >= 8 ? undefined : 'That is too short to be an API key.'),
    });
    if (!key) return;
    await services.apiKeys.set(key);
    if (services.settings.provider !== 'openai') {
      const use = await vscode.window.showInformationMessage('The key is saved. Use OpenAI for new answers now?', 'Use OpenAI');
      if (use) await services.updateSetting(Settings.provider, 'openai');
    } else {
      void vscode.window.showInformationMessage('The OpenAI API key is saved.');
    }
  });

  reg(Commands.clearApiKey, async () => {
    await services.apiKeys.clear();
    void vscode.window.showInformationMessage('The OpenAI API key was removed from secret storage.');
  });

  // The tools picker of the active chat (the chat's header has the same as a button).
  reg(Commands.chooseTools, async () => {
    const chatId = deps.panels.activeConversationId;
    if (!chatId) {
      void vscode.window.showInformationMessage('Open a chat first: the tools you choose are that chat\'s.');
      return;
    }
    await chooseTools(chatToolPickerDeps(services, chatId));
  });

  // Picks the active chat's model (and the default for new chats), or only the default when no chat is active.
  reg(Commands.selectModel, async () => {
    const chatId = deps.panels.activeConversationId;
    const current = chatId ? conversationModel((await services.manager(chatId)).getMetadata() as Record<string, unknown>, services.settings) : services.settings.model;
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem>();
    pick.placeholder = `Model for ${services.settings.provider} (now ${current}); type a name to use one not listed`;
    pick.busy = true;
    pick.items = [{ label: modelKey(current), description: 'current' }];
    pick.show();
    // VS Code's models, in their own group; each item's id is kept beside its label (the label is VS Code's name).
    const ids = new Map<vscode.QuickPickItem, string>();
    const vscodeGroup = vscodeModelViews(services, current).catch(() => []);
    services
      .provider()
      .then((p) => p.listModels())
      .catch((err: unknown) => {
        pick.placeholder = `Could not list models: ${err instanceof Error ? err.message : String(err)} Type a model name.`;
        return [];
      })
      .then(async (models) => {
        const group = await vscodeGroup;
        const choices = modelChoices(group.some((m) => m.id === current) ? '' : current, models.map((m) => m.id));
        const items: vscode.QuickPickItem[] = choices.models.map((id) => ({ label: id, description: id === choices.current ? 'current' : undefined }));
        if (group.length > 0) items.push({ label: VSCODE_MODEL_GROUP, kind: vscode.QuickPickItemKind.Separator });
        for (const m of group) {
          const item: vscode.QuickPickItem = { label: m.name, description: m.id === current ? `${m.description} · current` : m.description, detail: m.id };
          ids.set(item, m.id);
          items.push(item);
        }
        pick.items = items;
      })
      .finally(() => (pick.busy = false));
    const chosen = await new Promise<string | undefined>((resolve) => {
      pick.onDidAccept(() => {
        const item = pick.selectedItems[0];
        resolve(item ? (ids.get(item) ?? item.label) : pick.value.trim() || undefined);
      });
      pick.onDidHide(() => resolve(undefined));
    });
    pick.dispose();
    if (!chosen) return;
    await services.selectModel(chosen, chatId);
  });

  reg(Commands.reindexWorkspace, () => deps.indexing.update('notification'));

  reg(Commands.activationTiming, () => deps.clock.snapshot());
}
