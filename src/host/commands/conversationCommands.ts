import * as path from 'node:path';
import * as vscode from 'vscode';
import { exportJsonWithImages, markdownImages, type ConversationMetadata } from '../../core/index';
import { Commands } from '../base/constants';
import { conversationIdOf, targetOf, targetsOf, type CommandDeps } from './commandDeps';
import { fileAttachment, selectionAttachment } from '../chat/editorActions';
import { firstLine, roleIcon } from '../base/labels';
import { conversationTitle, managerTitle } from '../conversations/conversationRules';
import { hasMessages } from '../tree/treeModel';

function safeFileName(title: string): string {
  return (title.replace(/[^\w\- ]+/g, '').trim().replace(/\s+/g, '-').slice(0, 60) || 'conversation').toLowerCase();
}

async function pickConversation(deps: CommandDeps, placeHolder: string): Promise<string | undefined> {
  const active = deps.panels.activeConversationId;
  const storage = await deps.services.storage();
  const list = (await storage.listConversations({ sortBy: 'updatedAt', sortOrder: 'desc', limit: 200 })).filter((s) => hasMessages(s) || s.conversationId === active);
  if (list.length === 0) {
    void vscode.window.showInformationMessage('There are no conversations yet. Start one with "Arbor: New Conversation".');
    return undefined;
  }
  const items = list.map((s) => ({
    label: conversationTitle(s.metadata),
    description: s.conversationId === active ? 'active chat' : new Date(s.updatedAt).toLocaleString(),
    id: s.conversationId,
  }));
  items.sort((a, b) => Number(b.id === active) - Number(a.id === active));
  return (await vscode.window.showQuickPick(items, { placeHolder }))?.id;
}

async function exportConversation(deps: CommandDeps, id: string, format: 'markdown' | 'json'): Promise<void> {
  const manager = await deps.services.manager(id);
  const title = conversationTitle(manager.getMetadata() as Record<string, unknown>);
  let allBranches = false;
  if (format === 'markdown') {
    const scope = await vscode.window.showQuickPick(
      [
        { label: 'Current branch', description: 'the path to the current message', all: false },
        { label: 'All branches', description: 'every message of every branch', all: true },
      ],
      { placeHolder: 'Export which messages?' },
    );
    if (!scope) return;
    allBranches = scope.all;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${safeFileName(title)}.${format === 'markdown' ? 'md' : 'json'}`;
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: format === 'markdown' ? { Markdown: ['md'] } : { JSON: ['json'] },
    saveLabel: 'Export',
  });
  if (!target) return;
  let text: string;
  if (format === 'markdown') {
    // Images go beside the export, `<name>.images/<hash>.<ext>`, each once; the Markdown links to them.
    const imagesFolder = `${path.posix.basename(target.path).replace(/\.md$/i, '')}.images`;
    const { links, files } = await markdownImages(manager, imagesFolder);
    for (const file of files) await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(target, '..', file.relativePath), file.bytes);
    text = manager.exportMarkdown({ allBranches, images: links });
  } else {
    text = JSON.stringify(await exportJsonWithImages(manager), null, 2);
  }
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  const open = await vscode.window.showInformationMessage(`Exported "${firstLine(title, 40)}" to ${vscode.workspace.asRelativePath(target)}.`, 'Open');
  if (open) await vscode.window.showTextDocument(target);
}

/** Deletes conversations after one confirmation that names them, and closes their chats. */
async function deleteConversations(deps: CommandDeps, ids: string[]): Promise<void> {
  const storage = await deps.services.storage();
  const found = await storage.searchConversations({ conversationIds: ids, limit: ids.length });
  if (found.length === 0) return;
  const messages = found.reduce((sum, s) => sum + Math.max(0, s.nodeCount - 1), 0);
  const titles = found.map((s) => `"${firstLine(conversationTitle(s.metadata), 60)}"`);
  const shown = 10;
  const ok =
    (await vscode.window.showWarningMessage(
      found.length === 1 ? `Delete the conversation ${titles[0]}?` : `Delete ${found.length} conversations?`,
      {
        modal: true,
        detail: [
          ...(found.length === 1 ? [] : [titles.slice(0, shown).join('\n') + (found.length > shown ? `\n… and ${found.length - shown} more` : ''), '']),
          `All ${messages} messages on every branch are deleted. This cannot be undone.`,
        ].join('\n'),
      },
      'Delete',
    )) === 'Delete';
  if (!ok) return;
  for (const s of found) deps.panels.close(s.conversationId);
  const removed = await storage.removeConversations({ conversationIds: found.map((s) => s.conversationId) });
  for (const s of removed) deps.services.forget(s.conversationId);
}

/** Conversation-level commands: new, ask about selection, open, rename, fork, export, delete, search, refresh. */
export function registerConversationCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { services, panels } = deps;
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  reg(Commands.newConversation, async () => {
    await panels.open(undefined);
  });

  reg(Commands.askAboutSelection, async () => {
    const editor = vscode.window.activeTextEditor ?? services.lastTextEditor;
    // With nothing selected, the whole file of the editor is attached instead.
    const attachment = selectionAttachment(services, editor) ?? (editor ? fileAttachment(services, editor) : undefined);
    if (!attachment) {
      void vscode.window.showInformationMessage('Open a file and select some code first, then run "Arbor: Ask About Selection".');
      return;
    }
    await panels.open(undefined, { attachments: [attachment], beside: true });
  });

  reg(Commands.openConversation, async (arg?: unknown) => {
    const id = conversationIdOf(deps, arg) ?? (await pickConversation(deps, 'Open which conversation?'));
    if (id) await panels.open(id);
  });

  reg(Commands.renameConversation, async (arg?: unknown) => {
    const id = conversationIdOf(deps, arg);
    if (!id) return;
    const manager = await services.manager(id);
    const current = managerTitle(manager);
    const title = await vscode.window.showInputBox({ prompt: 'New title for the conversation', value: current, validateInput: (v) => (v.trim() ? undefined : 'The title cannot be empty.') });
    if (!title?.trim()) return;
    await services.withManager(id, (m) => m.setMetadata({ title: title.trim() } satisfies ConversationMetadata));
    // A tab restored after a reload and not shown since has no panel to retitle: give it one, then show what its group showed.
    if (!panels.get(id)) await panels.showRestored(id, { title: current, putBack: true });
  });

  reg(Commands.forkConversation, async (arg?: unknown) => {
    const t = targetOf(deps, arg);
    const id = conversationIdOf(deps, arg);
    if (!id) return;
    let upToNodeId = t?.kind === 'run' ? t.lastNodeId : undefined;
    if (upToNodeId === undefined) {
      // On a whole conversation: the branch being read (the usual wish), or every branch.
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'This branch', description: 'the messages from the start to the current one', all: false },
          { label: 'All branches', description: 'every message of every branch', all: true },
        ],
        { title: 'Fork into New Conversation', placeHolder: 'What the new conversation starts with' },
      );
      if (!picked) return;
      if (!picked.all) upToNodeId = (await services.manager(id)).currentNodeId;
    }
    const forkFrom = upToNodeId;
    const { fork, title } = await services.withManager(id, async (m) => ({
      fork: await m.fork(undefined, forkFrom !== undefined ? { upToNodeId: forkFrom } : {}),
      title: managerTitle(m),
    }));
    services.adopt(fork);
    await services.withManager(fork.conversationId, (m) => m.setMetadata({ title: `${title} (fork)` } satisfies ConversationMetadata));
    await panels.open(fork.conversationId);
  });

  reg(Commands.exportMarkdown, async (arg?: unknown) => {
    const id = conversationIdOf(deps, arg);
    if (id) await exportConversation(deps, id, 'markdown');
  });

  reg(Commands.exportJson, async (arg?: unknown) => {
    const id = conversationIdOf(deps, arg);
    if (id) await exportConversation(deps, id, 'json');
  });

  reg(Commands.exportConversation, async (arg?: unknown) => {
    const id = (typeof arg === 'string' ? arg : undefined) ?? (await pickConversation(deps, 'Export which conversation?'));
    if (!id) return;
    const format = await vscode.window.showQuickPick(
      [
        { label: 'Markdown', description: 'readable, one branch or all', format: 'markdown' as const },
        { label: 'JSON', description: 'the dataknobs conversation format, every branch', format: 'json' as const },
      ],
      { placeHolder: 'Export as' },
    );
    if (format) await exportConversation(deps, id, format.format);
  });

  reg(Commands.deleteConversation, async (arg?: unknown, selected?: unknown) => {
    const picked = targetsOf(deps, arg, selected).map((e) => e.conversationId);
    const ids = picked.length > 0 ? picked : [conversationIdOf(deps, arg)].filter((id): id is string => id !== undefined);
    if (ids.length > 0) await deleteConversations(deps, [...new Set(ids)]);
  });

  reg(Commands.searchConversations, () => searchConversations(deps));

  reg(Commands.refresh, async () => {
    await services.pollStorage();
    deps.tree.provider.refresh();
  });
}

interface SearchItem extends vscode.QuickPickItem {
  conversationId: string;
  nodeId: string;
}

/** A quick pick over the content of every message on every branch; choosing one opens the chat at it. */
async function searchConversations(deps: CommandDeps): Promise<void> {
  // The pick shows at once (so no keystroke is lost); the store is awaited by the first search.
  const pick = vscode.window.createQuickPick<SearchItem>();
  pick.placeholder = 'Search the messages of every conversation and branch';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let generation = 0;
  const search = async (query: string) => {
    const mine = ++generation;
    if (query.trim().length < 2) {
      pick.items = [];
      return;
    }
    pick.busy = true;
    try {
      const storage = await deps.services.storage();
      // One query returns the matching messages themselves; no conversation is loaded whole.
      const found = await storage.searchMessages(query, { limit: 200 });
      const needle = query.toLowerCase();
      const items: SearchItem[] = found.map((match) => {
        const text = match.content;
        const at = Math.max(0, text.toLowerCase().indexOf(needle));
        const lineStart = text.lastIndexOf('\n', at) + 1;
        const start = at - lineStart > 50 ? at - 20 : lineStart;
        return {
          label: `$(${roleIcon(match.role)}) ${start > lineStart ? '…' : ''}${firstLine(text.slice(start), 80)}`,
          alwaysShow: true,
          description: conversationTitle(match.conversationMetadata),
          detail: match.branchName ? `branch "${match.branchName}"` : undefined,
          conversationId: match.conversationId,
          nodeId: match.nodeId,
        };
      });
      if (mine === generation) pick.items = items;
    } finally {
      if (mine === generation) pick.busy = false;
    }
  };
  pick.onDidChangeValue((v) => void search(v));
  pick.onDidAccept(async () => {
    const chosen = pick.selectedItems[0];
    pick.hide();
    if (chosen) await deps.panels.open(chosen.conversationId, { switchTo: chosen.nodeId, reveal: chosen.nodeId });
  });
  pick.onDidHide(() => pick.dispose());
  pick.show();
}
