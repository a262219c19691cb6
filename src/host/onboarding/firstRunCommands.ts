/**
 * The buttons of the first-run choice (see firstRun.ts): each points Arbor at a model server and
 * leaves the chat's Retry to send the message that failed.
 */
import * as vscode from 'vscode';
import { Commands, Settings } from '../base/constants';
import { modelMetadata } from '../conversations/conversationModel';
import { TOUR_MODEL, baseUrlProblem, ollamaSteps, tourServerScript } from './firstRun';
import type { OnboardingServices } from './onboardingServices';
import { DEFAULT_OLLAMA_HOST } from '../settings/settings';
import { TourServer } from './tourServer';

/** The chat whose error offered the choice. */
export interface FirstRunContext {
  services: OnboardingServices;
  conversationId: string;
}

let tour: TourServer | undefined;
// The launcher also stops when the extension host's pipe to it closes; this covers a clean exit.
process.once('exit', () => tour?.dispose());

/**
 * Starts the bundled fake model server (offered under `npm start` only) and makes it the model server
 * of this chat and of new ones: Ollama's wire format at its address, its model.
 */
export async function startTour({ services, conversationId }: FirstRunContext): Promise<void> {
  const script = tourServerScript();
  if (!script) {
    void vscode.window.showErrorMessage('Arbor: the fake model server comes with `npm start` in a clone of Arbor\'s repository; it is not part of the installed extension.');
    return;
  }
  tour ??= new TourServer(script);
  let address: string;
  try {
    address = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Arbor: starting the fake model server' }, () => tour!.start());
  } catch (err) {
    void vscode.window.showErrorMessage(`Arbor: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  await services.updateSetting(Settings.provider, 'ollama');
  await services.updateSetting(Settings.ollamaHost, address);
  // The chat's own model, under the provider just set (the settings snapshot may not have caught up yet).
  await services.withManager(conversationId, (m) => m.setMetadata(modelMetadata(TOUR_MODEL, 'ollama')));
  await services.updateSetting(Settings.model, TOUR_MODEL);
  void vscode.window.showInformationMessage(
    `Arbor now asks the fake model server at ${address}: it echoes your messages (try [[slow]] or [[xss]] in one). Press Retry in the chat. It stops with this VS Code; "Use Ollama…" or "Arbor: Select Model" switch back.`,
  );
}

/** Makes Ollama the model server, offering its default address when another is set, and says how to install and start it. */
export async function useOllama({ services }: FirstRunContext): Promise<void> {
  await services.updateSetting(Settings.provider, 'ollama');
  const host = services.settings.ollamaHost;
  const actions = host.replace(/\/+$/, '') === DEFAULT_OLLAMA_HOST ? [] : [`Use ${DEFAULT_OLLAMA_HOST}`];
  const pick = await vscode.window.showInformationMessage(ollamaSteps(host, services.settings.model), { modal: false }, 'Open Download Page', ...actions);
  if (pick === 'Open Download Page') await vscode.env.openExternal(vscode.Uri.parse('https://ollama.com/download'));
  else if (pick && pick === actions[0]) await services.updateSetting(Settings.ollamaHost, DEFAULT_OLLAMA_HOST);
}

/**
 * Asks for an OpenAI-compatible server's base URL (arbor.openai.baseUrl) and makes it the model server,
 * then for its key (kept in secret storage; a local server may need none) and one of its models.
 */
export async function useOpenAICompatible({ services }: FirstRunContext): Promise<void> {
  const url = await vscode.window.showInputBox({
    title: 'OpenAI-compatible server (1/2)',
    prompt: 'The API\'s base URL (ending before /chat/completions). Next: its key, then one of its models.',
    value: services.settings.openaiBaseUrl,
    placeHolder: 'http://127.0.0.1:8000/v1',
    ignoreFocusOut: true,
    validateInput: baseUrlProblem,
  });
  if (url === undefined) return;
  const baseUrl = url.trim().replace(/\/+$/, '');
  await services.updateSetting(Settings.openaiBaseUrl, baseUrl);
  await services.updateSetting(Settings.provider, 'openai');
  const key = await vscode.window.showInputBox({
    title: 'OpenAI-compatible server (2/2)',
    prompt: `The API key for ${baseUrl}, kept in VS Code's secret storage (never in settings). Leave it empty if the server needs none.`,
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'sk-…',
  });
  if (key === undefined) return;
  if (key.trim()) await services.apiKeys.set(key.trim());
  await vscode.commands.executeCommand(Commands.selectModel);
}
