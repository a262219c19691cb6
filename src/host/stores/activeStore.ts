/**
 * The conversation store this window uses (the local sql.js file or the team store, as the settings
 * say) and the open conversations over it (`OpenConversations`), wired to VS Code: opened on first use,
 * polled (the local file on file events, window focus and a timer; the team store reports through its
 * feed), closed and opened again when its settings or password change. `Services` holds one.
 */
import * as vscode from 'vscode';
import { OpenConversations, sharedStoreDir } from '../../core/index';
import type { ConversationManager, ConversationMetadata, ConversationStorage, ImportedConversation, OpenManagerOptions } from '../../core/index';
import { Disposable, toDisposable } from '../base/lifecycle';
import type { OutputChannelLogger } from '../base/logger';
import type { ArborSettings } from '../settings/settings';
import { openLocalStorage, openTeamStorage, type OpenedStore } from './storeOpening';
import type { TeamStorePasswordStore } from './teamStorePassword';

/** The open store and the open conversations over it. */
interface OpenStore extends OpenedStore {
  conversations: OpenConversations;
}

/** What the store reads from the extension. */
export interface ActiveStoreOptions {
  /** Where VS Code keeps the extension's files (the store's folder, the sql.js wasm). */
  context: Pick<vscode.ExtensionContext, 'storageUri' | 'globalStorageUri' | 'extensionUri'>;
  logger: OutputChannelLogger;
  /** The team store's password (secret storage). */
  teamStorePassword: TeamStorePasswordStore;
  /** The validated settings now (which store, and the team store's address). */
  settings(): ArborSettings;
  /** The options every manager gets (the store is added by `OpenConversations`). */
  managerOptions(): OpenManagerOptions;
}

/** See the file's header. */
export class ActiveStore extends Disposable {
  private readonly _onDidChangeConversation = this._register(new vscode.EventEmitter<string>());
  /** Fires with a conversation id after it changed, in this window or (on the next poll) in another. */
  readonly onDidChangeConversation = this._onDidChangeConversation.event;
  private readonly _onDidSwitchStore = this._register(new vscode.EventEmitter<void>());
  /** Fires after the store was switched (local ↔ team, another address or password): every view re-reads it. */
  readonly onDidSwitchStore = this._onDidSwitchStore.event;

  private storePromise?: Promise<OpenStore>;
  /** Set once the store has opened (a manager exists only after that). */
  private openConversations?: OpenConversations;

  constructor(private readonly options: ActiveStoreOptions) {
    super();
    // Disposal runs newest first: the store closes before its events go.
    this._register(toDisposable(() => void this.closeStore()));
  }

  /** Whether the store has finished opening (the tree draws from its cached list until then). */
  get storageReady(): boolean {
    return this.openConversations !== undefined;
  }

  /**
   * Where conversations and the index live: the workspace's storage folder, else the global one. A
   * window that VS Code gave a numbered sibling (`<id>-1`: another window or a lingering extension host
   * holds `<id>`) still uses `<id>`, which Arbor's store shares safely, so a reload never shows another store.
   */
  storageDir(): string {
    if (this.storageDirCache === undefined) {
      const given = this.options.context.storageUri?.fsPath;
      this.storageDirCache = given ? sharedStoreDir(given) : this.options.context.globalStorageUri.fsPath;
      if (given && this.storageDirCache !== given) this.options.logger.info(`VS Code gave this window ${given} (another window or extension host holds the first); the conversation store stays in ${this.storageDirCache}, shared safely.`);
    }
    return this.storageDirCache;
  }
  private storageDirCache: string | undefined;

  /** Whether conversations live in the team store (`arbor.storage.kind` is `postgres`). */
  get usesTeamStore(): boolean {
    return this.options.settings().teamStore.kind === 'postgres';
  }

  /** The conversation store of the settings (the local sql.js file or the team store), opened on first use. */
  storage(): Promise<ConversationStorage> {
    return this.openStore().then((s) => s.storage);
  }

  /** The open conversations over the store, made when it opens. */
  private conversations(): Promise<OpenConversations> {
    return this.openStore().then((s) => s.conversations);
  }

  private openStore(): Promise<OpenStore> {
    const { context, logger } = this.options;
    this.storePromise ??= (async () => {
      const { storage, poll, unwatch } = this.usesTeamStore
        ? await openTeamStorage(this.options.settings().teamStore, await this.options.teamStorePassword.get(), logger)
        : await openLocalStorage({
            dir: this.storageDir(),
            wasmPath: vscode.Uri.joinPath(context.extensionUri, 'dist', 'sql-wasm.wasm').fsPath,
            logger,
            poll: () => this.pollStorage(),
          });
      // The team store's feed reports other machines' writes through `storage.onDidChange`, which OpenConversations follows.
      const conversations = new OpenConversations({ storage, managerOptions: () => this.options.managerOptions(), logger });
      const forwarding = conversations.onDidChange((id) => this._onDidChangeConversation.fire(id));
      this.openConversations = conversations;
      return { storage, conversations, poll, unwatch: vscode.Disposable.from(unwatch, forwarding, conversations) };
    })();
    this.storePromise.catch(() => (this.storePromise = undefined));
    return this.storePromise;
  }

  /** Closes the open store (its watchers and open conversations first). */
  private async closeStore(): Promise<void> {
    const open = this.storePromise;
    this.storePromise = undefined;
    const store = await open?.catch(() => undefined);
    if (!store) return;
    // A store opened meanwhile (a view asked for it) keeps its own.
    if (this.openConversations === store.conversations) this.openConversations = undefined;
    store.unwatch.dispose();
    await store.storage.close().catch((err) => this.options.logger.warn('Could not close the conversation store', err));
  }

  /** The store's settings or password changed: close it, and let every view read the new one (which opens on first use). */
  switchStore(): void {
    void this.closeStore().then(() => this._onDidSwitchStore.fire());
  }

  /** Reads changes other windows made (the tree and open chats then refresh). */
  async pollStorage(): Promise<void> {
    // A store that failed to open has nothing to poll: the next use opens it again.
    const store = await this.storePromise?.catch(() => undefined);
    await store?.poll?.();
  }

  /** Starts a new, empty conversation. */
  async createConversation(metadata: Record<string, unknown> = {}): Promise<ConversationManager> {
    const untitled: ConversationMetadata = { title: '' };
    return (await this.conversations()).create({ metadata: { ...untitled, ...metadata } });
  }

  /** The manager of a stored conversation, shared by every view of it (`ConversationNotFoundError` if gone). */
  async manager(conversationId: string): Promise<ConversationManager> {
    return (await this.conversations()).get(conversationId);
  }

  /** Imports a parsed conversation file as a new conversation (a copy under a new id when its id is taken). */
  async importConversation(obj: unknown): Promise<ImportedConversation> {
    return (await this.conversations()).import(obj);
  }

  /** Adopts a manager made elsewhere (a fork). */
  adopt(manager: ConversationManager): void {
    // A manager exists only once the store has opened, so the open conversations exist too.
    this.openConversations?.adopt(manager);
  }

  /** Forgets a conversation's manager (after it was deleted); views redraw. */
  forget(conversationId: string): void {
    if (this.openConversations) this.openConversations.forget(conversationId);
    else this._onDidChangeConversation.fire(conversationId);
  }

  /** Runs `work` with the conversation marked busy (see `OpenConversations.whileBusy`). */
  async whileBusy<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    return (await this.conversations()).whileBusy(conversationId, work);
  }

  /** Runs `work` on a conversation's manager while it is marked busy (every change goes through here). */
  async withManager<T>(conversationId: string, work: (manager: ConversationManager) => Promise<T>): Promise<T> {
    return (await this.conversations()).withManager(conversationId, work);
  }
}
