import { ConversationNotFoundError } from '../errors';
import { Emitter, type ArborEvent } from '../emitter';
import type { Disposable, Logger } from '../files';
import type { ConversationStorage } from '../storage/storage';
import { ConversationManager } from './conversationManager';
import { importConversation, type ImportedConversation } from './importConversation';
import type { ConversationManagerOptions, CreateConversationOptions } from './managerTypes';

/** What `OpenConversations.create` takes besides the shared manager options. */
export type NewConversationOptions = Omit<CreateConversationOptions, keyof ConversationManagerOptions>;

/** What every manager `OpenConversations` opens is built with, except the store (it adds its own). */
export type OpenManagerOptions = Omit<ConversationManagerOptions, 'storage'>;

/** How `OpenConversations` reaches the store and builds managers. */
export interface OpenConversationsOptions {
  /** The store every manager writes to, and whose `onDidChange` tells of other processes' writes. */
  storage: ConversationStorage;
  /** Read each time a manager is opened, so a settings change reaches the next one. */
  managerOptions: () => OpenManagerOptions | Promise<OpenManagerOptions>;
  logger?: Logger;
}

/**
 * The conversations a window has open: one `ConversationManager` per conversation id, shared by
 * every view of it, kept in step with writes other processes make to the same store. When the store
 * reports a change, the open manager re-reads it (`reload()`), except while an operation runs on
 * that conversation (`whileBusy`): then the change is checked again when the operation ends, so a
 * manager is never re-read under a running stream.
 */
export class OpenConversations implements Disposable {
  private readonly managers = new Map<string, Promise<ConversationManager>>();
  /** Operations running per conversation; changes seen meanwhile are re-checked when they end. */
  private readonly busy = new Map<string, number>();
  private readonly staleWhileBusy = new Set<string>();
  private readonly managerSubscriptions = new Map<string, Disposable>();
  private readonly storageSubscription?: Disposable;
  private readonly changeEmitter: Emitter<string>;
  private disposed = false;

  /**
   * Fires a conversation id once per change: a change made through an open manager, one another
   * process made (after the open manager re-read it), or one to a conversation not open here.
   */
  readonly onDidChange: ArborEvent<string>;

  constructor(private readonly options: OpenConversationsOptions) {
    this.changeEmitter = new Emitter<string>((error) => options.logger?.warn(`An onDidChange listener failed: ${String(error)}`));
    this.onDidChange = this.changeEmitter.event;
    this.storageSubscription = options.storage.onDidChange?.((id) => this.onStorageChanged(id));
  }

  /** Whether a manager of the conversation is open (or opening). */
  isOpen(conversationId: string): boolean {
    return this.managers.has(conversationId);
  }

  /** Starts a new conversation in the store and keeps its manager open. */
  async create(init: NewConversationOptions = {}): Promise<ConversationManager> {
    const manager = await ConversationManager.create({ ...(await this.managerOptions()), ...init });
    this.adopt(manager);
    return manager;
  }

  /**
   * Imports a parsed conversation file (see `importConversation`: a taken id becomes a copy), keeps
   * its manager open and announces the new conversation.
   */
  async import(obj: unknown): Promise<ImportedConversation> {
    const imported = await importConversation(obj, await this.managerOptions());
    this.adopt(imported.manager);
    this.changeEmitter.fire(imported.manager.conversationId);
    return imported;
  }

  /** The open manager of a stored conversation, opened on first use (`ConversationNotFoundError` if there is none). */
  get(conversationId: string): Promise<ConversationManager> {
    let cached = this.managers.get(conversationId);
    if (!cached) {
      const opening = this.managerOptions().then((o) => ConversationManager.resume(conversationId, o));
      cached = opening;
      opening.then(
        (m) => this.track(m),
        () => {
          if (this.managers.get(conversationId) === opening) this.managers.delete(conversationId);
        },
      );
      this.managers.set(conversationId, opening);
    }
    return cached;
  }

  /** Keeps a manager made elsewhere (a fork, an import) open as its conversation's manager. */
  adopt(manager: ConversationManager): void {
    this.track(manager);
    this.managers.set(manager.conversationId, Promise.resolve(manager));
  }

  /** Closes a conversation's manager (e.g. after it was deleted) and announces the change. */
  forget(conversationId: string): void {
    this.managers.delete(conversationId);
    this.staleWhileBusy.delete(conversationId);
    this.untrack(conversationId);
    this.changeEmitter.fire(conversationId);
  }

  /**
   * Runs `work` with the conversation marked busy: a change the store reports meanwhile (possibly
   * this process's own write) does not re-read the manager under it, and is checked when the work ends.
   */
  async whileBusy<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    this.busy.set(conversationId, (this.busy.get(conversationId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.busy.get(conversationId) ?? 1) - 1;
      if (left > 0) this.busy.set(conversationId, left);
      else {
        this.busy.delete(conversationId);
        if (this.staleWhileBusy.delete(conversationId)) this.onStorageChanged(conversationId);
      }
    }
  }

  /** Runs `work` on a conversation's manager while it is marked busy (every change should go through here). */
  withManager<T>(conversationId: string, work: (manager: ConversationManager) => Promise<T>): Promise<T> {
    return this.whileBusy(conversationId, async () => work(await this.get(conversationId)));
  }

  /** Stops following the store and the managers; the managers themselves stay usable by whoever holds them. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.storageSubscription?.dispose();
    for (const id of [...this.managerSubscriptions.keys()]) this.untrack(id);
    this.managers.clear();
    this.staleWhileBusy.clear();
    this.changeEmitter.dispose();
  }

  private async managerOptions(): Promise<ConversationManagerOptions> {
    return { ...(await this.options.managerOptions()), storage: this.options.storage };
  }

  /**
   * The store reports this process's own writes too, which the manager already announced: only a
   * change the manager did not make (a conversation not open here, one deleted, one another process
   * changed) is announced, so one write redraws each view once, not twice.
   */
  private onStorageChanged(conversationId: string): void {
    void this.sync(conversationId).then((announce) => {
      if (announce && !this.disposed) this.changeEmitter.fire(conversationId);
    });
  }

  /**
   * Re-reads an open manager after the store changed, unless an operation is running (then it is
   * checked again when the operation ends). Resolves whether the change still needs announcing:
   * `false` when the manager already showed it, announced it itself by reloading, or the check waits.
   */
  private async sync(conversationId: string): Promise<boolean> {
    const cached = this.managers.get(conversationId);
    if (!cached) return true;
    if (this.deferWhileBusy(conversationId)) return false;
    let manager: ConversationManager;
    try {
      manager = await cached;
    } catch {
      // It failed to open (and is no longer cached): nothing here shows it.
      return true;
    }
    if (this.deferWhileBusy(conversationId)) return false;
    try {
      // Fires the manager's own onDidChange ('reloaded') when anything differs, which is announced from there.
      await manager.reload();
      return false;
    } catch (error) {
      if (error instanceof ConversationNotFoundError) {
        if (this.managers.get(conversationId) === cached) {
          this.managers.delete(conversationId);
          this.untrack(conversationId);
        }
      } else {
        this.options.logger?.warn(`Could not reload conversation ${conversationId} after a change from another window`, error);
      }
      return true;
    }
  }

  private deferWhileBusy(conversationId: string): boolean {
    if (!this.busy.has(conversationId)) return false;
    this.staleWhileBusy.add(conversationId);
    return true;
  }

  private track(manager: ConversationManager): void {
    this.untrack(manager.conversationId);
    if (this.disposed) return;
    this.managerSubscriptions.set(
      manager.conversationId,
      manager.onDidChange((e) => this.changeEmitter.fire(e.conversationId)),
    );
  }

  private untrack(conversationId: string): void {
    this.managerSubscriptions.get(conversationId)?.dispose();
    this.managerSubscriptions.delete(conversationId);
  }
}
