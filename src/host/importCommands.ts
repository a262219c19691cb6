import * as path from 'node:path';
import * as vscode from 'vscode';
import { ArborError, ROOT_NODE_ID, parseConversationJson, readConversationMetadata, type ConversationMetadata } from '../core/index';
import type { CommandDeps } from './commandDeps';
import { Commands } from './constants';
import { chatTitle } from './conversationRules';
import { firstLine } from './labels';

/** The `arbor.importConversation` command: a file from the open dialog, or the URIs given (a drop on the tree). */
export function registerImportCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.importConversation, async (arg?: unknown) => {
      const given = (Array.isArray(arg) ? arg : [arg]).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
      const uris = given.length > 0 ? given : await askForFiles();
      let lastId: string | undefined;
      for (const uri of uris ?? []) lastId = (await importFile(deps, uri)) ?? lastId;
      if (lastId) await deps.panels.open(lastId);
    }),
  );
}

function askForFiles(): Thenable<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog({
    canSelectMany: true,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    filters: { 'Conversations (Arbor, dataknobs, Meton)': ['json'], 'All files': ['*'] },
    openLabel: 'Import',
    title: 'Import Conversation',
  });
}

/** Imports one file, selects it in the tree and says what happened; resolves its conversation id, or `undefined` after showing why not. */
async function importFile(deps: CommandDeps, uri: vscode.Uri): Promise<string | undefined> {
  const name = uri.scheme === 'file' ? vscode.workspace.asRelativePath(uri) : path.posix.basename(uri.path);
  let imported;
  try {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    imported = await deps.services.importConversation(parseConversationJson(text));
  } catch (error) {
    // Arbor's own errors explain the file's problem; anything else (unreadable file, store failure) is logged too.
    if (!(error instanceof ArborError)) deps.services.logger.error(`Could not import ${uri.toString()}`, error);
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`Could not import "${name}" as a conversation: ${reason}`);
    return undefined;
  }
  const { manager, copyOf } = imported;
  const metadata = manager.getMetadata() as Record<string, unknown>;
  const firstMessages = manager.getChildren(ROOT_NODE_ID);
  const title = firstLine(chatTitle(metadata, firstMessages), 60);
  // A Meton session has no title: name it by its first question, as the list names a chat of this window.
  if (!readConversationMetadata(metadata, 'title')?.trim() && firstMessages.some((n) => n.message.role === 'user')) {
    await deps.services.withManager(manager.conversationId, (m) => m.setMetadata({ title } satisfies ConversationMetadata));
  }
  const count = manager.nodeCount - 1;
  void vscode.window.showInformationMessage(
    copyOf !== undefined
      ? `Imported "${title}" from ${name} as a copy: a conversation with its id (${copyOf}) is already here, so the copy has a new id.`
      : `Imported "${title}" from ${name} (${count} message${count === 1 ? '' : 's'}).`,
  );
  await deps.tree.revealConversation(manager.conversationId);
  return manager.conversationId;
}
