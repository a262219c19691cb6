import * as vscode from 'vscode';
import { isVscodeModelId } from '../../core/index';
import { assertNever, type ErrorActionCommand } from '../../shared/protocol';
import { Commands, EXTENSION_ID } from '../base/constants';
import { MissingApiKeyError } from './errorView';
import { startTour, useOllama, useOpenAICompatible, type FirstRunContext } from '../onboarding/firstRunCommands';
import type { ChatServices } from './chatServices';
import { missingApiKeyMessage } from '../settings/settings';

/** Runs the fix an error's button offers (the webview may ask for these commands only); `chat` is the chat that showed it. */
export async function runErrorAction(command: ErrorActionCommand, chat: FirstRunContext): Promise<void> {
  switch (command) {
    case 'arbor.setOpenAIKey':
      await vscode.commands.executeCommand(Commands.setOpenAIKey);
      return;
    case 'arbor.selectModel':
      await vscode.commands.executeCommand(Commands.selectModel);
      return;
    case 'arbor.chooseTools':
      await vscode.commands.executeCommand(Commands.chooseTools);
      return;
    case 'arbor.raiseContextWindow':
      await vscode.commands.executeCommand(Commands.raiseContextWindow);
      return;
    case 'arbor.openSettings':
      await vscode.commands.executeCommand('workbench.action.openSettings', `@ext:${EXTENSION_ID}`);
      return;
    case 'arbor.setTeamStorePassword':
      await vscode.commands.executeCommand(Commands.setTeamStorePassword);
      return;
    case 'arbor.firstRun.startTour':
      return startTour(chat);
    case 'arbor.firstRun.useOllama':
      return useOllama(chat);
    case 'arbor.firstRun.useOpenAICompatible':
      return useOpenAICompatible(chat);
    default:
      assertNever(command);
  }
}

/**
 * Fails before anything is sent when the chosen provider cannot answer yet (OpenAI's API without a key).
 * A VS Code model (`model` a `vscode:` id) needs no key: VS Code asks for its own consent.
 */
export async function checkReadyToSend(services: ChatServices, model?: string): Promise<void> {
  if (isVscodeModelId(model)) return;
  const message = missingApiKeyMessage(services.settings, !!(await services.apiKeys.get()));
  if (message) throw new MissingApiKeyError(`${message} Nothing was sent.`);
}
