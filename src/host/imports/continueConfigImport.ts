import * as vscode from 'vscode';
import { describeSetting, fromContinueConfig, type ContinueModelChoice, type ImportedSetting } from '../../core/index';
import type { CommandDeps } from '../commands/commandDeps';
import type { ImportServices } from './importServices';

/**
 * Imports a Continue `config.yaml`/`config.json`: the user picks one of its chat models, sees exactly
 * the settings it sets (in user settings) and confirms; a literal API key in the file is offered to
 * Arbor's key store (SecretStorage), never written to settings. Says what was set, or why nothing was.
 */
export async function importContinueConfig(deps: CommandDeps<ImportServices>, obj: unknown, name: string): Promise<void> {
  const { choices, skipped } = fromContinueConfig(obj);
  const notes = skipped.length ? `\n\nLeft out:\n${skipped.map((s) => `• ${s}`).join('\n')}` : '';
  if (choices.length === 0) {
    void vscode.window.showWarningMessage(`${name} has no chat model Arbor can use (Ollama, or an OpenAI-compatible server).${notes}`, { modal: true });
    return;
  }
  const choice = choices.length === 1 ? choices[0] : await pickModel(choices, name);
  if (!choice) return;
  const lines = choice.settings.map(describeSetting);
  const overridden = choice.settings.filter((s) => workspaceOverrides(s.key)).map((s) => s.key);
  const overrideNote = overridden.length ? `\n\nThis workspace's own settings override ${overridden.join(', ')}: they stay as they are.` : '';
  const confirm = 'Set in User Settings';
  const answer = await vscode.window.showInformationMessage(
    `Use "${choice.label}" from ${name} as Arbor's model?`,
    { modal: true, detail: `These user settings will be set:\n${lines.join('\n')}${overrideNote}${notes}` },
    confirm,
  );
  if (answer !== confirm) return;
  for (const setting of choice.settings) await writeSetting(setting);
  const keyStored = choice.apiKey ? await offerKey(deps, choice, name) : false;
  void vscode.window.showInformationMessage(
    `Arbor now uses ${choice.model} (${choice.provider}) from ${name}: set ${lines.join(', ')}${keyStored ? '; the API key is in the key store' : ''}.`,
  );
}

async function pickModel(choices: ContinueModelChoice[], name: string): Promise<ContinueModelChoice | undefined> {
  const picked = await vscode.window.showQuickPick(
    choices.map((choice) => ({ label: choice.label, description: `${choice.provider} · ${choice.model}`, detail: choice.settings.map(describeSetting).join(' · '), choice })),
    { title: `Import Model Settings from ${name}`, placeHolder: 'The chat model Arbor should use (the settings it sets are listed under each)', matchOnDetail: true },
  );
  return picked?.choice;
}

/** Whether the workspace sets `key` itself (so a user setting would not take effect here). */
function workspaceOverrides(key: string): boolean {
  const inspected = vscode.workspace.getConfiguration().inspect(key);
  return inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined;
}

async function writeSetting(setting: ImportedSetting): Promise<void> {
  const config = vscode.workspace.getConfiguration();
  let value = setting.value;
  if (setting.merge) {
    const current = config.inspect<Record<string, unknown>>(setting.key)?.globalValue;
    value = { ...(current && typeof current === 'object' ? current : {}), ...(value as Record<string, unknown>) };
  }
  await config.update(setting.key, value, vscode.ConfigurationTarget.Global);
}

async function offerKey(deps: CommandDeps<ImportServices>, choice: ContinueModelChoice, name: string): Promise<boolean> {
  const store = 'Store Key';
  const answer = await vscode.window.showWarningMessage(
    `${name} holds an API key for "${choice.label}". Store it in Arbor's key store?`,
    { modal: true, detail: 'It goes to VS Code\'s secret storage (the OS keychain), never into settings, and replaces the key stored now. Arbor sends it to the OpenAI-compatible server in arbor.openai.baseUrl.' },
    store,
  );
  if (answer !== store || !choice.apiKey) return false;
  await deps.services.apiKeys.set(choice.apiKey);
  return true;
}
