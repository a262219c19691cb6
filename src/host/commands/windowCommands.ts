/**
 * "Arbor: Raise the Context Window…": for the active chat's Ollama model, a QuickPick of larger `num_ctx`
 * sizes up to the model's trained length, each with the memory it costs; the choice is kept for that model
 * in the user's `arbor.contextLength` (never the workspace's: a repository does not choose how much of this
 * machine's memory a model takes), which the provider reads for its next request.
 */
import * as vscode from 'vscode';
import { isVscodeModelId, modelKey, type OllamaModelContext } from '../../core/index';
import { Commands, Settings } from '../base/constants';
import { conversationModel } from '../conversations/conversationModel';
import { ollamaProviderFor, windowChoices, windowPickTitle, withContextLength, type WindowChoice } from '../llm/windowRaise';
import type { CommandDeps } from './commandDeps';

const SETTING = `${Settings.section}.${Settings.contextLength}`;

/** Registers the command that raises the active chat's model's window. */
export function registerWindowCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(vscode.commands.registerCommand(Commands.raiseContextWindow, () => raiseContextWindow(deps)));
}

async function openSetting(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openSettings', SETTING);
}

/** Says where a window that Arbor cannot raise comes from, with a button to the setting that corrects Arbor's number. */
async function explainWindow(message: string): Promise<void> {
  if ((await vscode.window.showInformationMessage(message, 'Open Setting')) === 'Open Setting') await openSetting();
}

async function raiseContextWindow(deps: CommandDeps): Promise<void> {
  const { services } = deps;
  const chatId = deps.panels.activeConversationId;
  const model = chatId ? conversationModel((await services.manager(chatId)).getMetadata() as Record<string, unknown>, services.settings) : services.settings.model;
  const ollama = ollamaProviderFor(await services.provider(), model);
  if (!ollama) {
    const where = isVscodeModelId(model)
      ? `${model} is one of VS Code's models: its window is the one VS Code reports, and Arbor cannot change it.`
      : `${modelKey(model)} runs on an OpenAI-compatible server, which sets its window; Arbor cannot raise it.`;
    return explainWindow(`${where} Only Ollama's window (num_ctx) is chosen by Arbor. If Arbor's number for the model is wrong, correct it in ${SETTING}.`);
  }
  let facts: OllamaModelContext;
  let current: number;
  try {
    [facts, current] = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `Asking Ollama about ${modelKey(model)}` }, async () => {
      const shown = await ollama.modelContext(model);
      return [shown, (await ollama.contextLength(model)).tokens] as const;
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`Ollama could not show ${modelKey(model)}, so Arbor cannot tell how large a window it takes: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const max = facts.trainedTokens;
  if (max === undefined) {
    return explainWindow(`Ollama does not say how long a context ${modelKey(model)} was trained for, so Arbor does not offer sizes. Its window is ${current.toLocaleString('en-US')} tokens; set another for it in ${SETTING}.`);
  }
  const choices = windowChoices(facts, current);
  if (choices.length === 0) {
    void vscode.window.showInformationMessage(`${modelKey(model)} already runs with a window of ${current.toLocaleString('en-US')} tokens, the most it was trained for (${max.toLocaleString('en-US')}).`);
    return;
  }
  const items = choices.map((c): vscode.QuickPickItem & { choice: WindowChoice } => ({ label: c.label, description: c.description, detail: c.detail, choice: c }));
  const picked = await vscode.window.showQuickPick(items, {
    title: windowPickTitle(model, facts, current),
    placeHolder: `A larger window for ${modelKey(model)}, kept in your user settings (${SETTING})`,
    matchOnDetail: true,
  });
  if (!picked) return;
  await rememberWindow(model, picked.choice.tokens);
}

/** Writes `tokens` for `model` into the user's `arbor.contextLength`, and warns when the workspace's own entry hides it. */
async function rememberWindow(model: string, tokens: number): Promise<void> {
  const config = vscode.workspace.getConfiguration(Settings.section);
  const inspected = config.inspect<Record<string, unknown>>(Settings.contextLength);
  await config.update(Settings.contextLength, withContextLength(inspected?.globalValue, model, tokens), vscode.ConfigurationTarget.Global);
  const hidden = [inspected?.workspaceValue, inspected?.workspaceFolderValue].some((entries) => Object.keys(entries ?? {}).some((name) => modelKey(name) === modelKey(model)));
  const size = tokens.toLocaleString('en-US');
  if (hidden) {
    void vscode.window.showWarningMessage(`Saved ${size} tokens for ${modelKey(model)} in your user settings, but this workspace's ${SETTING} names the model too, and the workspace's entry wins.`);
    return;
  }
  void vscode.window.showInformationMessage(`${modelKey(model)} gets a window of ${size} tokens from its next request (${SETTING} in your user settings). Ollama reloads the model to change it.`);
}
