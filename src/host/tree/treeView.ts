import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { JOURNAL_SUFFIX } from '../../core/index';
import type { ConversationNode, ConversationSummary } from '../../core/index';
import type { ActivationClock } from '../base/activationTiming';
import { Commands, TreeItemContext, Views } from '../base/constants';
import { toErrorView } from '../chat/errorView';
import { roleIcon } from '../base/labels';
import { teamStoreFailure } from '../stores/teamStoreErrors';
import { Disposable, toDisposable } from '../base/lifecycle';
import { STORE_FILE } from '../stores/storeOpening';
import type { TreeServices } from './treeServices';
import { readSummaryCache, SUMMARY_CACHE_FILE, writeSummaryCache } from '../stores/summaryCache';
import { jsonUrisOf } from '../base/uriList';
import { buildRuns, conversationEntry, hasMessages, type ConversationEntry, type OfferEntry, type RunEntry, type TreeEntry, type ViewEntry } from './treeModel';

/** How many conversations the tree lists. */
const LIST_LIMIT = 200;

interface LoadedConversation {
  nodes: ConversationNode[];
  currentNodeId: string;
  runs: RunEntry[];
}

/**
 * The Conversations tree: conversations newest first, each expanding into its runs and forks
 * (shaped by `treeModel.ts`). It refreshes whenever any conversation changes, in this window or,
 * through the store's poll, in another.
 */
export class ConversationsTreeProvider extends Disposable implements vscode.TreeDataProvider<ViewEntry> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<ViewEntry | undefined>());
  private readonly _onDidChangeMessage = this._register(new vscode.EventEmitter<string | undefined>());
  /** Fires with what the view should say instead of the list (the team store unreachable), `undefined` once it lists again. */
  readonly onDidChangeMessage = this._onDidChangeMessage.event;
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly loaded = new Map<string, LoadedConversation>();
  private readonly parents = new Map<string, TreeEntry>();
  private conversations: ConversationEntry[] = [];
  private lastCached?: string;
  private refreshTimer?: ReturnType<typeof setTimeout>;
  private offer?: OfferEntry;

  constructor(private readonly services: TreeServices, private readonly clock?: ActivationClock) {
    super();
    this._register(
      services.onDidChangeConversation((id) => {
        this.loaded.delete(id);
        this.scheduleRefresh();
      }),
    );
    // Another store (local ↔ team, another address or password): its conversations replace the list.
    this._register(services.onDidSwitchStore(() => this.refresh()));
    this._register(toDisposable(() => this.refreshTimer && clearTimeout(this.refreshTimer)));
  }

  /** Shows `offer` above the conversations (undefined removes it). */
  setOffer(offer: OfferEntry | undefined): void {
    this.offer = offer;
    this._onDidChangeTreeData.fire(undefined);
  }

  /** Reloads everything now. */
  refresh(): void {
    this.loaded.clear();
    this._onDidChangeTreeData.fire(undefined);
  }

  /** Redraws the conversation list (not the loaded message trees). */
  refreshList(): void {
    this._onDidChangeTreeData.fire(undefined);
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this._onDidChangeTreeData.fire(undefined);
    }, 60);
  }

  getTreeItem(entry: ViewEntry): vscode.TreeItem {
    if (entry.kind === 'offer') {
      const item = new vscode.TreeItem(entry.label, entry.children.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.id = `offer:${entry.command ?? 'row'}`;
      item.description = entry.description;
      item.tooltip = entry.tooltip;
      item.iconPath = new vscode.ThemeIcon(entry.icon);
      item.contextValue = TreeItemContext.offer;
      if (entry.command) item.command = { command: entry.command, title: entry.label };
      return item;
    }
    if (entry.kind === 'conversation') {
      const item = new vscode.TreeItem(entry.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `conversation:${entry.conversationId}`;
      item.description = entry.description;
      item.tooltip = entry.tooltip;
      item.iconPath = new vscode.ThemeIcon('comment-discussion');
      item.contextValue = TreeItemContext.conversation;
      item.command = { command: Commands.openConversation, title: 'Open', arguments: [entry] };
      return item;
    }
    const state =
      entry.children.length === 0
        ? vscode.TreeItemCollapsibleState.None
        : entry.onCurrentPath
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(entry.label, state);
    // A step row's node is also in its run's item: its id must differ from a run that starts there.
    item.id = `${entry.step ? 'step' : 'node'}:${entry.conversationId}:${entry.firstNodeId}`;
    item.description = entry.description;
    item.tooltip = entry.tooltip;
    // A bookmark shows as the item's icon, so bookmarked messages stand out in a long tree.
    item.iconPath = new vscode.ThemeIcon(entry.bookmarks > 0 ? 'bookmark' : entry.step ? stepIcon(entry.step.state) : roleIcon(entry.role), entry.isCurrent ? new vscode.ThemeColor('charts.green') : undefined);
    item.contextValue =
      (entry.isCurrent ? TreeItemContext.currentNode : TreeItemContext.node) +
      (entry.firstBookmarked ? TreeItemContext.bookmarked : '') +
      (entry.firstNote !== undefined ? TreeItemContext.noted : '') +
      (entry.step ? TreeItemContext.step : '');
    item.command = { command: Commands.openConversation, title: 'Open', arguments: [entry] };
    return item;
  }

  async getChildren(entry?: ViewEntry): Promise<ViewEntry[]> {
    if (!entry) {
      this.clock?.treeRequested();
      try {
        const summaries = await this.listRoot();
        const now = Date.now();
        this.conversations = summaries.filter(hasMessages).map((s) => conversationEntry(s, now));
        return this.offer ? [this.offer, ...this.conversations] : this.conversations;
      } catch (err) {
        this.services.logger.error('Could not list conversations', err);
        void vscode.window.showErrorMessage(`Arbor could not open its conversation store: ${err instanceof Error ? err.message : String(err)}`);
        return [];
      } finally {
        this.clock?.treeRendered();
      }
    }
    if (entry.kind === 'offer') return entry.children;
    if (entry.kind === 'conversation') {
      const loaded = await this.load(entry.conversationId);
      for (const run of loaded?.runs ?? []) this.parents.set(run.firstNodeId + '\u0000' + run.conversationId, entry);
      return loaded?.runs ?? [];
    }
    for (const child of entry.children) this.parents.set(child.firstNodeId + '\u0000' + child.conversationId, entry);
    return entry.children;
  }

  /**
   * The conversations, newest first. Before the store has opened, the list cached beside it is shown
   * at once and the store opens in the background, then the tree refreshes with the real list.
   */
  private async listRoot(): Promise<ConversationSummary[]> {
    // The cached list is the local store's: the team store's list is always read from the server.
    const cacheFile = this.services.usesTeamStore ? undefined : path.join(this.services.storageDir(), SUMMARY_CACHE_FILE);
    if (cacheFile && !this.services.storageReady) {
      // No store file yet means no conversations yet: nothing to wait for.
      const cached = (await readSummaryCache(cacheFile)) ?? ((await this.storeExists()) ? undefined : []);
      if (cached) {
        this.services.storage().then(
          () => this._onDidChangeTreeData.fire(undefined),
          (err) => this.services.logger.error('Could not open the conversation store', err),
        );
        return cached;
      }
    }
    let list: ConversationSummary[];
    try {
      const storage = await this.services.storage();
      list = await storage.listConversations({ sortBy: 'updatedAt', sortOrder: 'desc', limit: LIST_LIMIT });
    } catch (err) {
      if (!teamStoreFailure(err)) throw err;
      // The view says why it is empty, and how to try again; nothing local is shown in its place.
      this.services.logger.error('Could not list the team store\'s conversations', err);
      this._onDidChangeMessage.fire(`${toErrorView(err).message} Then run "Arbor: Refresh" (the view's refresh button) to try again.`);
      return [];
    }
    this._onDidChangeMessage.fire(undefined);
    const serialized = JSON.stringify(list);
    if (cacheFile && serialized !== this.lastCached) {
      this.lastCached = serialized;
      writeSummaryCache(cacheFile, list).catch((err) => this.services.logger.debug('Could not write the conversation list cache', err));
    }
    return list;
  }

  private async storeExists(): Promise<boolean> {
    const base = path.join(this.services.storageDir(), STORE_FILE);
    // Node's fs directly: the storage folder is always local, and this is on the first render's path.
    const found = await Promise.all([base, `${base}${JOURNAL_SUFFIX}`].map((f) => fs.stat(f).then(() => true, () => false)));
    return found.some(Boolean);
  }

  getParent(entry: ViewEntry): ViewEntry | undefined {
    if (entry.kind === 'offer') return entry.command && this.offer?.children.includes(entry) ? this.offer : undefined;
    if (entry.kind === 'conversation') return undefined;
    return this.parents.get(entry.firstNodeId + '\u0000' + entry.conversationId);
  }

  /** The nodes of a conversation as last loaded for the tree. */
  async load(conversationId: string): Promise<LoadedConversation | undefined> {
    const cached = this.loaded.get(conversationId);
    if (cached) return cached;
    const storage = await this.services.storage();
    const state = await storage.loadConversation(conversationId);
    if (!state) return undefined;
    const loaded = { nodes: state.nodes, currentNodeId: state.currentNodeId, runs: buildRuns(conversationId, state.nodes, state.currentNodeId) };
    this.loaded.set(conversationId, loaded);
    return loaded;
  }
}

/** What the tree registration gives the commands. */
export interface TreeViewHandle {
  provider: ConversationsTreeProvider;
  view: vscode.TreeView<ViewEntry>;
  /** Redraws the list and selects a conversation in it (without taking the focus). */
  revealConversation(conversationId: string): Promise<void>;
}

/**
 * Drops on the Conversations view: `.json` files dragged from the Explorer (or the OS) arrive as a
 * `text/uri-list`, and are handed to the Import Conversation command.
 */
class ImportOnDrop implements vscode.TreeDragAndDropController<TreeEntry> {
  readonly dropMimeTypes = ['text/uri-list', 'application/vnd.code.uri-list'];
  readonly dragMimeTypes: string[] = [];

  async handleDrop(_target: TreeEntry | undefined, data: vscode.DataTransfer): Promise<void> {
    const list = (await data.get('text/uri-list')?.asString()) ?? (await data.get('application/vnd.code.uri-list')?.asString()) ?? '';
    const uris = jsonUrisOf(list).map((u) => vscode.Uri.parse(u, true));
    if (uris.length === 0) {
      if (list.trim()) void vscode.window.showInformationMessage('Only .json conversation files can be dropped here to import them.');
      return;
    }
    await vscode.commands.executeCommand(Commands.importConversation, uris);
  }
}

/** Registers the Conversations tree view. */
export function registerTreeView(context: vscode.ExtensionContext, deps: { services: TreeServices; clock?: ActivationClock }): TreeViewHandle {
  const provider = new ConversationsTreeProvider(deps.services, deps.clock);
  const view = vscode.window.createTreeView(Views.conversations, {
    treeDataProvider: provider,
    showCollapseAll: true,
    // Several conversations can be selected and deleted at once.
    canSelectMany: true,
    dragAndDropController: new ImportOnDrop(),
  });
  // Relative times ("5 min ago") age; redraw the list now and then while it is visible.
  const clockTimer = setInterval(() => {
    if (view.visible) provider.refreshList();
  }, 60_000);
  context.subscriptions.push(provider, view, { dispose: () => clearInterval(clockTimer) });
  context.subscriptions.push(provider.onDidChangeMessage((message) => (view.message = message)));
  const revealConversation = async (conversationId: string) => {
    provider.refreshList();
    const entry = (await provider.getChildren()).find((e) => e.kind === 'conversation' && e.conversationId === conversationId);
    if (entry) await view.reveal(entry, { select: true, focus: false });
  };
  return { provider, view, revealConversation };
}

/** The icon of a tool step row: how its call ended. */
function stepIcon(state: string): string {
  return state === 'done' ? 'tools' : state === 'denied' ? 'circle-slash' : state === 'cancelled' ? 'debug-stop' : 'warning';
}
