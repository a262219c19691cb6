import * as vscode from 'vscode';
import { ConversationNotFoundError } from '../../core/index';
import type { Attachment } from '../../shared/protocol';
import { ChatController } from './chatController';
import { Views } from '../base/constants';
import { managerTitle } from '../conversations/conversationRules';
import { Disposable, toDisposable } from '../base/lifecycle';
import { activeIndexIn, chatTabs, focusGroup, openTabAt, showTab } from './restoredTabs';
import type { ChatServices } from './chatServices';
import { candidateTabs, tabLabel, unclaimedTabs } from './tabClaims';
import { buildChatHtml, createNonce } from './webviewHtml';

/** What a chat is opened with. */
export interface OpenChatOptions {
  /** Context to put in the input (Ask About Selection). */
  attachments?: Attachment[];
  text?: string;
  /** Branch from Here at this node: the next message starts a new branch there (see `ChatController.startBranch`). */
  branchFrom?: string;
  /** Show the branch through this node. */
  switchTo?: string;
  /** Scroll to this message and highlight it (it must be on the branch shown, e.g. `switchTo`'s node). */
  reveal?: string;
  /** Open beside the active editor instead of in the active group. */
  beside?: boolean;
}

/** How long a shown tab may take to become a chat (a restored one gets its panel first) before the next is tried. */
const RESTORE_WAIT_MS = 15_000;

/**
 * The chat tabs: one `WebviewPanel` per conversation (opening an open one reveals it), several
 * side by side, restored after a window reload by the panel serializer from the webview's state.
 * A restored tab in the background gets its panel only once shown, so opening (or renaming) a
 * conversation first looks for such a tab and shows it, instead of opening a second tab.
 */
export class ChatPanels extends Disposable {
  private readonly controllers = new Map<string, ChatController>();
  private activeId?: string;
  private readonly _onDidChangeActive = this._register(new vscode.EventEmitter<string | undefined>());
  /** Fires with the conversation id of the chat tab that became active (or `undefined`). */
  readonly onDidChangeActive = this._onDidChangeActive.event;
  private readonly _onDidRestore = this._register(new vscode.EventEmitter<string | undefined>());
  /** Fires after the serializer handled a restored tab: with its conversation, or `undefined` when it was dropped. */
  readonly onDidRestore = this._onDidRestore.event;

  constructor(private readonly services: ChatServices) {
    super();
    // Stops listening; the tabs themselves stay, so VS Code restores them on the next start.
    this._register(
      toDisposable(() => {
        for (const c of [...this.controllers.values()]) c.dispose();
      }),
    );
  }

  /** The conversation of the chat tab used last, if it is still open. */
  get activeConversationId(): string | undefined {
    return this.activeId && this.controllers.has(this.activeId) ? this.activeId : undefined;
  }

  /** The open chat of a conversation. */
  get(conversationId: string): ChatController | undefined {
    return this.controllers.get(conversationId);
  }

  /** Opens (or reveals) a conversation's chat; with no id, starts a new conversation. */
  async open(conversationId?: string, options: OpenChatOptions = {}): Promise<ChatController> {
    const id = conversationId ?? (await this.services.createConversation()).conversationId;
    await this.services.manager(id);
    let controller = this.controllers.get(id) ?? (conversationId ? await this.showRestored(id) : undefined);
    if (controller) {
      controller.panel.reveal(undefined, false);
    } else {
      const column = options.beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
      const panel = vscode.window.createWebviewPanel(Views.chatPanel, 'Arbor', { viewColumn: column, preserveFocus: false }, this.webviewOptions());
      controller = this.adopt(panel, id);
    }
    if (options.branchFrom !== undefined) await controller.startBranch(options.branchFrom);
    else if (options.switchTo !== undefined) await controller.switchTo(options.switchTo);
    if (options.reveal !== undefined) await controller.showMessage(options.reveal);
    if (options.attachments?.length || options.text) controller.attach(options.attachments ?? [], options.text);
    return controller;
  }

  private webviewOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableFindWidget: true,
      localResourceRoots: [vscode.Uri.joinPath(this.services.extensionUri, 'dist')],
    };
  }

  /**
   * Shows the restored tab of a conversation whose panel VS Code has not created yet (it does so
   * when the tab is first shown), trying the tabs labelled with its title (`title`, else its
   * current one) first; with `putBack`, only those, and each group then shows the tab it showed
   * before. Returns its controller, or `undefined` when no restored tab holds it.
   */
  async showRestored(conversationId: string, options: { title?: string; putBack?: boolean } = {}): Promise<ChatController | undefined> {
    const putBack = options.putBack ?? false;
    const label = tabLabel(options.title ?? managerTitle(await this.services.manager(conversationId)));
    const before = new Map<number, number | undefined>();
    const tried = new Set<string>();
    for (;;) {
      const held = [...this.controllers.values()].map((c) => ({ column: c.panel.viewColumn, title: c.panel.title, visible: c.panel.visible }));
      const next = candidateTabs(unclaimedTabs(chatTabs(), held), label, putBack).find((t) => !tried.has(`${t.column}:${t.index}`));
      if (!next) break;
      tried.add(`${next.column}:${next.index}`);
      if (!before.has(next.column)) before.set(next.column, activeIndexIn(next.column));
      if (!(await focusGroup(next.column))) continue;
      const shown = this.nextShown(conversationId, next.label);
      await openTabAt(next.index);
      if ((await shown) === conversationId) {
        if (putBack) for (const [column, index] of before) if (index !== undefined) await showTab(column, index);
        return this.controllers.get(conversationId);
      }
    }
    // Not found: the groups show what they showed before the search.
    for (const [column, index] of before) if (index !== undefined) await showTab(column, index);
    return undefined;
  }

  /**
   * The conversation of the chat tab shown next, the one labelled `label`: restored by the serializer,
   * or one with a panel already (it becomes the active chat); `undefined` when no chat shows in time.
   * A chat of another label that becomes active meanwhile is not that tab but one whose restore was
   * still under way (on a busy machine the tab in front can get its panel only now), and is passed over.
   */
  private nextShown(wanted: string, label: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const subs: vscode.Disposable[] = [];
      const done = (id: string | undefined) => {
        clearTimeout(timer);
        for (const sub of subs) sub.dispose();
        resolve(id);
      };
      const seen = (id: string | undefined) => {
        const panel = id === undefined || id === wanted ? undefined : this.controllers.get(id)?.panel;
        if (panel && panel.title !== label) return;
        done(id);
      };
      const timer = setTimeout(() => done(undefined), RESTORE_WAIT_MS);
      subs.push(
        this.onDidRestore(seen),
        this.onDidChangeActive((id) => id && seen(id)),
      );
    });
  }

  /**
   * Takes a tab VS Code restored after a reload: its conversation gets it, unless that conversation
   * already has a tab (opened before this one was shown), which then stays the only one.
   */
  restore(panel: vscode.WebviewPanel, conversationId: string | undefined): void {
    const existing = conversationId ? this.controllers.get(conversationId) : undefined;
    if (!conversationId || existing) {
      panel.dispose();
      existing?.panel.reveal(undefined, false);
    } else {
      this.adopt(panel, conversationId);
    }
    this._onDidRestore.fire(existing ? undefined : conversationId);
  }

  /** Wires a panel (new or restored) to a controller for `conversationId`. */
  adopt(panel: vscode.WebviewPanel, conversationId: string): ChatController {
    panel.webview.options = this.webviewOptions();
    panel.iconPath = vscode.Uri.joinPath(this.services.extensionUri, 'media', 'arbor.svg');
    panel.webview.html = this.html(panel.webview);
    const controller = new ChatController(panel, conversationId, this.services);
    this.controllers.set(conversationId, controller);
    this.setActive(conversationId);
    const viewState = panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) this.setActive(conversationId);
    });
    controller.onDidDispose(() => {
      viewState.dispose();
      if (this.controllers.get(conversationId) === controller) this.controllers.delete(conversationId);
      if (this.activeId === conversationId) this.setActive(undefined);
      if (!this.isDisposed) void this.dropIfEmpty(conversationId);
    });
    void controller.postState();
    return controller;
  }

  /** A chat closed before its first message leaves no empty conversation behind in the sidebar. */
  private async dropIfEmpty(conversationId: string): Promise<void> {
    try {
      const manager = await this.services.manager(conversationId);
      if (manager.nodeCount > 1) return;
      const storage = await this.services.storage();
      await storage.deleteConversation(conversationId);
      this.services.forget(conversationId);
    } catch (err) {
      this.services.logger.debug(`Could not remove the empty conversation ${conversationId}`, err);
    }
  }

  private setActive(id: string | undefined): void {
    if (this.activeId === id) return;
    this.activeId = id;
    this._onDidChangeActive.fire(id);
  }

  private html(webview: vscode.Webview): string {
    const dist = vscode.Uri.joinPath(this.services.extensionUri, 'dist');
    const uri = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(dist, ...parts)).toString();
    return buildChatHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: uri('webview', 'main.js'),
      styles: [{ href: uri('codicons', 'codicon.css'), id: 'vscode-codicon-stylesheet' }, { href: uri('webview', 'main.css') }],
      title: 'Arbor',
    });
  }

  /** Closes the chat of a deleted conversation. */
  close(conversationId: string): void {
    this.controllers.get(conversationId)?.panel.dispose();
  }
}

/** Registers the chat panels and the serializer that restores them after a reload. */
export function registerChatPanels(context: vscode.ExtensionContext, deps: { services: ChatServices }): ChatPanels {
  const panels = new ChatPanels(deps.services);
  context.subscriptions.push(
    panels,
    vscode.window.registerWebviewPanelSerializer(Views.chatPanel, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
        const id = state && typeof state === 'object' ? (state as { conversationId?: unknown }).conversationId : undefined;
        if (typeof id !== 'string' || !id) {
          panels.restore(panel, undefined);
          return;
        }
        try {
          await deps.services.manager(id);
          panels.restore(panel, id);
        } catch (err) {
          if (!(err instanceof ConversationNotFoundError)) deps.services.logger.error(`Could not restore chat ${id}`, err);
          panels.restore(panel, undefined);
        }
      },
    }),
  );
  return panels;
}
