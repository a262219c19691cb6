import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ArborError,
  ROOT_NODE_ID,
  conversationsToImport,
  detectImportFormat,
  isContinueConfigName,
  parseContinueConfigText,
  parseConversationJson,
  readConversationMetadata,
  type ConversationManager,
  type ConversationMetadata,
  type ImportFormat,
  type ImportedConversation,
} from '../../core/index';
import type { CommandDeps } from '../commands/commandDeps';
import type { ImportServices } from './importServices';
import { Commands } from '../base/constants';
import { importContinueConfig } from './continueConfigImport';
import { chatTitle } from '../conversations/conversationRules';
import { pickCopilotSessions } from './copilotChatImport';
import { firstLine } from '../base/labels';

/**
 * `arbor.importConversation`: files from the open dialog, or the URIs given (a drop on the tree); it
 * reads Arbor/dataknobs JSON, Meton sessions, ChatGPT's `conversations.json`, Continue sessions and
 * Copilot Chat sessions, and takes a Continue `config.yaml`/`config.json` as model settings.
 * `arbor.importCopilotChats`: this workspace's Copilot Chat sessions, picked from a list.
 */
export function registerImportCommands(context: vscode.ExtensionContext, deps: CommandDeps<ImportServices>): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.importConversation, async (arg?: unknown) => {
      const given = (Array.isArray(arg) ? arg : [arg]).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
      await importFiles(deps, given.length > 0 ? given : await askForFiles());
    }),
    vscode.commands.registerCommand(Commands.importCopilotChats, async (arg?: unknown) => {
      const given = (Array.isArray(arg) ? arg : [arg]).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
      await importFiles(deps, given.length > 0 ? given : await pickCopilotSessions(context));
    }),
  );
}

async function importFiles(deps: CommandDeps<ImportServices>, uris: readonly vscode.Uri[] | undefined): Promise<void> {
  let lastId: string | undefined;
  for (const uri of uris ?? []) lastId = (await importFile(deps, uri)) ?? lastId;
  if (lastId) await deps.panels.open(lastId);
}

function askForFiles(): Thenable<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog({
    canSelectMany: true,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    filters: {
      'Conversations (Arbor, dataknobs, Meton, ChatGPT, Continue, Copilot Chat)': ['json'],
      'Continue model configuration': ['yaml', 'yml', 'json'],
      'All files': ['*'],
    },
    openLabel: 'Import',
    title: 'Import Conversation',
  });
}

const FORMAT_NAMES: Record<ImportFormat, string> = {
  arbor: 'Arbor',
  meton: 'Meton',
  chatgpt: 'ChatGPT',
  continueSession: 'Continue',
  continueSessionIndex: 'Continue',
  continueConfig: 'Continue',
  copilot: 'Copilot Chat',
};

/** Imports one file, selects what it made in the tree and says what happened; resolves the last conversation's id, or `undefined` after showing why not. */
async function importFile(deps: CommandDeps<ImportServices>, uri: vscode.Uri): Promise<string | undefined> {
  const name = uri.scheme === 'file' ? vscode.workspace.asRelativePath(uri) : path.posix.basename(uri.path);
  const baseName = path.posix.basename(uri.path);
  let imported;
  let format: ImportFormat;
  try {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    // A YAML file can only be Continue's configuration; a JSON one says what it is by its shape.
    const yaml = /\.ya?ml$/i.test(baseName);
    const obj = yaml || isContinueConfigName(baseName) ? parseContinueConfigText(text, baseName) : parseConversationJson(text);
    if (yaml || detectImportFormat(obj) === 'continueConfig') {
      await importContinueConfig(deps, obj, name);
      return undefined;
    }
    const fileTime = new Date((await vscode.workspace.fs.stat(uri)).mtime).toISOString();
    const found = conversationsToImport(obj, { fileTime });
    format = found.format;
    imported = await storeAll(deps, found.conversations, name);
  } catch (error) {
    // Arbor's own errors explain the file's problem; anything else (unreadable file, store failure) is logged too.
    if (!(error instanceof ArborError)) deps.services.logger.error(`Could not import ${uri.toString()}`, error);
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`Could not import "${name}" as a conversation: ${reason}`);
    return undefined;
  }
  let summary = '';
  for (const { manager } of imported) summary = await nameUntitled(deps, manager);
  const copies = imported.filter((i) => i.copyOf !== undefined);
  const last = imported[imported.length - 1];
  if (!last) {
    void vscode.window.showWarningMessage(`"${name}" holds no conversations to import.`);
    return undefined;
  }
  if (imported.length > 1) {
    const copyNote = copies.length ? ` (${copies.length} under new ids: conversations with their ids were already here, or their ids were names every JavaScript object has)` : '';
    void vscode.window.showInformationMessage(`Imported ${imported.length} ${FORMAT_NAMES[format]} conversations from ${name}${copyNote}.`);
  } else {
    const count = last.manager.nodeCount - 1;
    void vscode.window.showInformationMessage(
      last.newIdReason === 'reserved'
        ? `Imported "${summary}" from ${name} under a new id: its id (${last.copyOf}) is a name every JavaScript object has, which Arbor does not use as an id.`
        : last.copyOf !== undefined
        ? `Imported "${summary}" from ${name} as a copy: a conversation with its id (${last.copyOf}) is already here, so the copy has a new id.`
        : `Imported "${summary}" from ${name} (${count} message${count === 1 ? '' : 's'}).`,
    );
  }
  await deps.tree.revealConversation(last.manager.conversationId);
  return last.manager.conversationId;
}

/** Stores the conversations of one file, with a progress notification when there are many (a ChatGPT export). */
async function storeAll(deps: CommandDeps<ImportServices>, conversations: unknown[], name: string): Promise<ImportedConversation[]> {
  const out: ImportedConversation[] = [];
  const run = async (progress?: vscode.Progress<{ message?: string; increment?: number }>) => {
    for (const conversation of conversations) {
      out.push(await deps.services.importConversation(conversation));
      progress?.report({ message: `${out.length} of ${conversations.length}`, increment: 100 / conversations.length });
    }
    return out;
  };
  if (conversations.length < 10) return run();
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Importing ${name}` }, run);
}

/** The conversation's title; one without (a Meton session) is named by its first question, as the list names a chat of this window. */
async function nameUntitled(deps: CommandDeps<ImportServices>, manager: ConversationManager): Promise<string> {
  const metadata = manager.getMetadata() as Record<string, unknown>;
  const firstMessages = manager.getChildren(ROOT_NODE_ID);
  const title = firstLine(chatTitle(metadata, firstMessages), 60);
  if (!readConversationMetadata(metadata, 'title')?.trim() && firstMessages.some((n) => n.message.role === 'user')) {
    await deps.services.withManager(manager.conversationId, (m) => m.setMetadata({ title } satisfies ConversationMetadata));
  }
  return title;
}
