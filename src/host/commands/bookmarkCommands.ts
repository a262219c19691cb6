import * as vscode from 'vscode';
import { BOOKMARKED, readNodeMetadata } from '../../core/index';
import { runOf, type CommandDeps } from './commandDeps';
import { Commands } from '../base/constants';
import { bookmarkUpdate, conversationTitle, noteUpdate } from '../conversations/conversationRules';
import { firstLine, roleIcon } from '../base/labels';

/** How many bookmarks Go to Bookmark lists. */
const BOOKMARK_LIMIT = 500;

interface BookmarkItem extends vscode.QuickPickItem {
  conversationId: string;
  nodeId: string;
}

/** A quick pick of every bookmarked message of every conversation; choosing one opens the chat at it. */
async function goToBookmark(deps: CommandDeps): Promise<void> {
  const storage = await deps.services.storage();
  const found = await storage.findMessages({ filterMetadata: BOOKMARKED, limit: BOOKMARK_LIMIT });
  if (found.length === 0) {
    void vscode.window.showInformationMessage('There are no bookmarks yet. Bookmark a message with the bookmark button on it in the chat, or with "Bookmark" on a message in the Conversations view.');
    return;
  }
  const items: BookmarkItem[] = found.map((match) => {
    const note = readNodeMetadata(match.metadata, 'note')?.trim();
    const text = readNodeMetadata(match.metadata, 'displayText') ?? match.content;
    return {
      label: `$(${roleIcon(match.role)}) ${firstLine(text, 80) || '(empty)'}`,
      description: conversationTitle(match.conversationMetadata),
      detail: note ? `$(note) ${firstLine(note, 120)}` : undefined,
      conversationId: match.conversationId,
      nodeId: match.nodeId,
    };
  });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Go to Bookmark',
    placeHolder: 'Which bookmarked message? (type to filter by text, conversation or note)',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked) await deps.panels.open(picked.conversationId, { switchTo: picked.nodeId, reveal: picked.nodeId });
}

/**
 * Bookmarks and notes: Go to Bookmark, and on a message item of the tree (its first message)
 * Bookmark, Remove Bookmark, Add Note… and Edit Note…. The chat has its own buttons for them.
 */
export function registerBookmarkCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { services } = deps;
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg(Commands.goToBookmark, () => goToBookmark(deps));

  const setBookmark = async (arg: unknown, bookmarked: boolean) => {
    const run = runOf(deps, arg);
    if (run) await services.withManager(run.conversationId, (m) => m.setNodeMetadata(run.firstNodeId, { ...bookmarkUpdate(bookmarked) }));
  };
  reg(Commands.bookmark, (arg?: unknown) => setBookmark(arg, true));
  reg(Commands.removeBookmark, (arg?: unknown) => setBookmark(arg, false));

  const editNote = async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    const note = await vscode.window.showInputBox({
      title: run.firstNote === undefined ? 'Add Note' : 'Edit Note',
      prompt: `Note on "${firstLine(run.label, 50)}": shown in the chat and here, never sent to the model. Empty removes it.`,
      value: run.firstNote ?? '',
    });
    if (note !== undefined) await services.withManager(run.conversationId, (m) => m.setNodeMetadata(run.firstNodeId, { ...noteUpdate(note) }));
  };
  reg(Commands.addNote, editNote);
  reg(Commands.editNote, editNote);
}
