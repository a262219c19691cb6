import { ContextLengths } from './llm/contextBudget';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LoggingMiddleware, modelKey, sameModel, RedactionMiddleware } from '../core/index';
import type {
  ConversationStorage,
  ImportedConversation,
  ConversationManager,
  ConversationMiddleware,
  PromptFolderLibrary,
  LLMProvider,
  OpenManagerOptions,
  PromptBuilder,
  WorkspaceIndex,
} from '../core/index';
import { Settings } from './base/constants';
import { modelMetadata } from './conversations/conversationModel';
import { systemPromptMetadata } from './conversations/conversationSystemPrompt';
import { DelegatingPromptBuilder, DelegatingProvider } from './llm/delegates';
import { Disposable } from './base/lifecycle';
import { OutputChannelLogger } from './base/logger';
import { ApiKeyStore } from './base/secrets';
import { languageTable, type LanguageTable } from './base/languageTable';
import type { ArborSettings } from './settings/settings';
import { readArborSettings } from './settings/workspaceSettingsGuard';
import { VscodeWorkspaceFiles } from './base/vscodeFiles';
import { ToolServices } from './tools/toolServices';
import { CodeApply } from './apply/codeApply';
import { WorkspaceFileReader } from './workspace/workspaceFileReader';
import { WorkspaceServices } from './workspace/workspaceServices';
import { WorkspaceInstructions } from './prompts/workspaceInstructions';
import { configuredProvider } from './llm/configuredProvider';
import { RoutingProvider } from './llm/routingProvider';
import { VscodeLmProvider } from './llm/vscodeLmProvider';
import { ForeignPromptStore } from './prompts/foreignPrompts';
import { ActiveStore } from './stores/activeStore';
import { TeamStorePasswordStore } from './stores/teamStorePassword';
import type { ToolHostServices } from './tools/toolHostServices';
import type { WorkspaceHostServices } from './workspace/workspaceHostServices';
import type { PromptServices } from './prompts/promptServices';
import type { OnboardingServices } from './onboarding/onboardingServices';
import type { StoreServices } from './stores/storeServices';
import type { CheckpointServices } from './checkpoints/checkpointServices';
import type { ApplyServices } from './apply/applyServices';
import type { McpServices } from './mcp/mcpServices';
import type { ChatServices } from './chat/chatServices';
import type { TreeServices } from './tree/treeServices';
import type { CommandServices } from './commands/commandServices';
import type { ImportServices } from './imports/importServices';

/**
 * Everything the extension's features share, built once in `activate()` and loaded lazily: the
 * conversation store and the open conversations over it (`ActiveStore`, in stores/), the model
 * provider (rebuilt when settings or the key change), the prompt library and builder, and the
 * workspace index. Each room of src/host sees it through its own narrow interface, all implemented here.
 */
export class Services
  extends Disposable
  implements ToolHostServices, WorkspaceHostServices, PromptServices, OnboardingServices, StoreServices, CheckpointServices, ApplyServices, McpServices, ChatServices, TreeServices, CommandServices, ImportServices
{
  readonly logger: OutputChannelLogger;
  readonly apiKeys: ApiKeyStore;
  /** The team store's password (secret storage). */
  readonly teamStorePassword: TeamStorePasswordStore;
  readonly files = new VscodeWorkspaceFiles();
  readonly workspaceFiles: WorkspaceFileReader;
  /** The tools chats may offer, and the user's grants. */
  readonly tools: ToolServices;
  /** Apply on code blocks: the diff review and its commands (registered by `activate`). */
  readonly codeApply: CodeApply;
  /** The workspace's instruction files (AGENTS.md, rules), cached and watched. */
  readonly instructions: WorkspaceInstructions;
  /** VS Code's own language models (`vscode.lm`), answering the `vscode:` model ids. */
  readonly vscodeLm: VscodeLmProvider;
  /** Copilot's, Continue's and Claude Code's prompt files of the workspace, for the `/` menu. */
  readonly foreignPrompts: ForeignPromptStore;

  private readonly _onDidChangeSettings = this._register(new vscode.EventEmitter<ArborSettings>());
  /** Fires after the `arbor.*` settings or the API key changed (the provider is rebuilt lazily). */
  readonly onDidChangeSettings = this._onDidChangeSettings.event;
  private readonly _onDidChangeTrust = this._register(new vscode.EventEmitter<boolean>());
  /** Fires when the workspace becomes trusted (prompts and indexing turn on). */
  readonly onDidChangeTrust = this._onDidChangeTrust.event;
  /** Fires with a conversation id after it changed, in this window or (on the next poll) in another. */
  readonly onDidChangeConversation: vscode.Event<string>;
  /** Fires after the store was switched (local ↔ team, another address or password): every view re-reads it. */
  readonly onDidSwitchStore: vscode.Event<void>;
  private readonly _onDidChangeIndexSettings = this._register(new vscode.EventEmitter<void>());
  /** Fires when the retrieval settings changed and the index was dropped, to be rebuilt. */
  readonly onDidChangeIndexSettings = this._onDidChangeIndexSettings.event;
  /** The prompt library, its builder and the workspace index. */
  private readonly workspace: WorkspaceServices;
  /** Fires when the prompt library was (re)opened, e.g. after the folder setting changed or trust was granted. */
  readonly onDidLoadLibrary: vscode.Event<PromptFolderLibrary | undefined>;

  private current: ArborSettings;
  /** The conversation store and the open conversations over it. */
  private readonly store: ActiveStore;
  private providerPromise?: Promise<LLMProvider>;
  private lastEditor?: vscode.TextEditor;
  private languageTableCache?: LanguageTable;
  private readonly llm: DelegatingProvider;
  /** The models' context lengths, as the provider lists them. */
  readonly contextLengths = new ContextLengths();
  private readonly middleware: ConversationMiddleware[];
  private readonly promptBuilderProxy: DelegatingPromptBuilder;

  constructor(private readonly context: vscode.ExtensionContext) {
    super();
    this.logger = new OutputChannelLogger('Arbor');
    this.middleware = [new RedactionMiddleware(), new LoggingMiddleware(this.logger)];
    this.apiKeys = new ApiKeyStore(context.secrets);
    this.teamStorePassword = new TeamStorePasswordStore(context.secrets);
    this.tools = new ToolServices(context.workspaceState, context.globalState, (message) => this.logger.warn(message));
    this.codeApply = new CodeApply(this);
    this.vscodeLm = this._register(new VscodeLmProvider(this.logger, () => ({ maxAnswerChars: this.current.maxAnswerChars, maxAnswerMs: this.current.maxAnswerSeconds * 1000 })));
    // A file picked by hand is read even when the index's rules leave it out (the reader marks it so),
    // never when the engine refuses it (secrets, .git): the same adapter prompts read through.
    this.workspaceFiles = new WorkspaceFileReader(this.files, () => this.folderPaths(), () => this.workspace.filesAdapter(), (p) => this.languages().languageOf(p));
    this.workspace = new WorkspaceServices({
      files: this.files,
      logger: this.logger,
      settings: () => this.current,
      trusted: () => this.trusted,
      folders: () => this.folderPaths(),
      promptsFolder: () => this.promptsFolderPath(),
      storageDir: () => this.storageDir(),
    });
    this.onDidLoadLibrary = this.workspace.onDidLoadLibrary;
    this.foreignPrompts = this._register(
      new ForeignPromptStore({ files: this.files, folders: () => this.folderPaths(), trusted: () => this.trusted, warn: (m, err) => this.logger.warn(m, err) }),
    );
    this.current = this.readSettings();
    this.instructions = new WorkspaceInstructions({
      files: this.files,
      logger: this.logger,
      folders: () => this.folderPaths(),
      trusted: () => this.trusted,
      enabledKinds: () => this.current.instructionsEnabled,
    });
    this.llm = new DelegatingProvider(
      () => this.provider(),
      () => ({ name: this.current.provider, model: this.current.model }),
    );
    this.promptBuilderProxy = new DelegatingPromptBuilder(
      () => this.promptBuilder(),
      () =>
        this.trusted
          ? 'Workspace prompts need an open folder: open a folder that has a prompts/ folder.'
          : 'Workspace prompts are off in Restricted Mode: trust this workspace to use them.',
    );
    this.lastEditor = vscode.window.activeTextEditor;
    this._register(this.logger);
    this._register(this.apiKeys);
    this._register(this.teamStorePassword);
    this._register(this.workspace);
    this._register(this.instructions);
    // Disposal runs newest first: the store closes after the watchers, subscriptions and open conversations that use it.
    this.store = this._register(
      new ActiveStore({ context, logger: this.logger, teamStorePassword: this.teamStorePassword, settings: () => this.current, managerOptions: () => this.managerOptions() }),
    );
    this.onDidChangeConversation = this.store.onDidChangeConversation;
    this.onDidSwitchStore = this.store.onDidSwitchStore;
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(Settings.section)) return;
        const before = this.current;
        this.current = this.readSettings();
        this.providerPromise = undefined;
        if (before.promptsFolder !== this.current.promptsFolder) this.workspace.reopenLibrary();
        // The team store's settings matter only while it is in use (a Move opens it from them when asked).
        const store = (x: ArborSettings) => (x.teamStore.kind === 'postgres' ? JSON.stringify(x.teamStore) : 'local');
        if (store(before) !== store(this.current)) this.store.switchStore();
        const rag = (x: ArborSettings) => JSON.stringify([x.ragInclude, x.ragExclude, x.ragMaxFileBytes]);
        if (rag(before) !== rag(this.current)) {
          this.workspace.reopenIndex();
          this._onDidChangeIndexSettings.fire();
        }
        this._onDidChangeSettings.fire(this.current);
      }),
    );
    this._register(
      this.apiKeys.onDidChange(() => {
        this.providerPromise = undefined;
        this._onDidChangeSettings.fire(this.current);
      }),
    );
    this._register(
      this.teamStorePassword.onDidChange(() => {
        if (!this.usesTeamStore) return;
        this.store.switchStore();
        // Open chats ask for their conversation again (a chat that could not load retries with the new password).
        this._onDidChangeSettings.fire(this.current);
      }),
    );
    this._register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.workspace.reopenLibrary();
        this._onDidChangeTrust.fire(true);
      }),
    );
    this._register(vscode.extensions.onDidChange(() => (this.languageTableCache = undefined)));
    this._register(
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e) this.lastEditor = e;
      }),
    );
  }

  /** VS Code's table of languages by file name, built on first use and again when extensions change. */
  private languages(): LanguageTable {
    this.languageTableCache ??= languageTable(vscode.extensions.all.map((e) => e.packageJSON));
    return this.languageTableCache;
  }

  /** The validated settings. */
  get settings(): ArborSettings {
    return this.current;
  }

  /** Whether the workspace is trusted; when not, prompts and indexing are off (restricted mode). */
  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  /** The text editor the user worked in last (the chat panel takes focus from it). */
  get lastTextEditor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active) return active;
    if (this.lastEditor && vscode.window.visibleTextEditors.includes(this.lastEditor)) return this.lastEditor;
    return this.lastEditor && !this.lastEditor.document.isClosed ? this.lastEditor : vscode.window.visibleTextEditors[0];
  }

  /** The extension's installed files (for `dist/`). */
  get extensionUri(): vscode.Uri {
    return this.context.extensionUri;
  }

  /** Absolute paths of the workspace folders on disk. */
  folderPaths(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  /** The absolute prompts folder (in the first workspace folder), or `undefined` with no folder open. */
  promptsFolderPath(): string | undefined {
    const root = this.folderPaths()[0];
    return root ? path.join(root, this.current.promptsFolder) : undefined;
  }

  /**
   * Changes an `arbor.*` setting where the user keeps it: in the workspace when it is set there
   * (else the workspace value would hide the change), otherwise for the user.
   */
  async updateSetting(key: string, value: unknown): Promise<void> {
    const config = vscode.workspace.getConfiguration(Settings.section);
    const target = config.inspect(key)?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update(key, value, target);
  }

  /**
   * Makes `model` the model of chat `conversationId` (when given) and the default for new chats
   * (`arbor.model`). Returns whether the default was already that model, so nothing else announces it.
   */
  async selectModel(model: string, conversationId?: string): Promise<boolean> {
    if (conversationId) await this.withManager(conversationId, (m) => m.setMetadata(modelMetadata(model, this.current.provider)));
    const unchanged = sameModel(model, this.current.model);
    if (!unchanged) await this.updateSetting(Settings.model, modelKey(model));
    return unchanged;
  }

  /**
   * Makes `name` (a `prompts/system/` prompt, `''` for none) the system prompt of chat `conversationId` from
   * its next request, and the default for new chats (`arbor.systemPrompt`). Returns whether the default was already it.
   */
  async selectSystemPrompt(name: string, conversationId?: string): Promise<boolean> {
    if (conversationId) await this.withManager(conversationId, (m) => m.setMetadata(systemPromptMetadata(name)));
    const unchanged = name.trim() === this.current.systemPrompt;
    if (!unchanged) await this.updateSetting(Settings.systemPrompt, name.trim());
    return unchanged;
  }

  private readSettings(): ArborSettings {
    return readArborSettings(this.logger);
  }

  /** Whether the store has finished opening (the tree draws from its cached list until then). */
  get storageReady(): boolean {
    return this.store.storageReady;
  }

  /** Where conversations and the index live (see `ActiveStore.storageDir`). */
  storageDir(): string {
    return this.store.storageDir();
  }

  /** The extension's folder shared by every window (caches that are not any one workspace's). */
  globalStorageDir(): string {
    return this.context.globalStorageUri.fsPath;
  }

  /** Whether conversations live in the team store (`arbor.storage.kind` is `postgres`). */
  get usesTeamStore(): boolean {
    return this.store.usesTeamStore;
  }

  /** The conversation store of the settings (the local sql.js file or the team store), opened on first use. */
  storage(): Promise<ConversationStorage> {
    return this.store.storage();
  }

  /** Reads changes other windows made (the tree and open chats then refresh). */
  pollStorage(): Promise<void> {
    return this.store.pollStorage();
  }

  /**
   * The model provider of the current settings and key, routing VS Code's models (`vscode:` ids) to
   * `vscodeLm` and every other model to the configured provider.
   */
  provider(): Promise<LLMProvider> {
    this.providerPromise ??= configuredProvider(this.current, this.apiKeys).then((configured) => new RoutingProvider(configured, this.vscodeLm));
    return this.providerPromise;
  }

  /** The prompt library of the workspace's prompts folder; `undefined` when untrusted or no folder is open. */
  promptLibrary(): Promise<PromptFolderLibrary | undefined> {
    return this.workspace.promptLibrary();
  }

  /** The prompt builder over the library, with the `workspace` (index) and `files` retrieval adapters. */
  promptBuilder(): Promise<PromptBuilder | undefined> {
    return this.workspace.promptBuilder();
  }

  /** The workspace index (opened, not yet updated); `undefined` when untrusted or no folder is open. */
  workspaceIndex(): Promise<WorkspaceIndex | undefined> {
    return this.workspace.workspaceIndex();
  }

  /** The options every manager gets (the store is added by `OpenConversations`): the delegating provider and builder, and the context window. */
  private managerOptions(): OpenManagerOptions {
    return {
      llm: this.llm,
      promptBuilder: this.promptBuilderProxy,
      // Keys and tokens in what is sent are masked (the stored text is kept); the log gets sizes, not text.
      middleware: this.middleware,
      cacheRagResults: true,
      reuseRagOnBranch: true,
      maxHistory: this.current.maxHistory,
      maxContextTokens: this.current.maxTokens,
      keepToolOutputTokens: this.current.keepToolOutputTokens,
      maxImageBytes: this.current.imagesMaxBytes,
    };
  }

  /** Starts a new, empty conversation. */
  createConversation(metadata: Record<string, unknown> = {}): Promise<ConversationManager> {
    return this.store.createConversation(metadata);
  }

  /** The manager of a stored conversation, shared by every view of it (`ConversationNotFoundError` if gone). */
  manager(conversationId: string): Promise<ConversationManager> {
    return this.store.manager(conversationId);
  }

  /** Imports a parsed conversation file as a new conversation (a copy under a new id when its id is taken). */
  importConversation(obj: unknown): Promise<ImportedConversation> {
    return this.store.importConversation(obj);
  }

  /** Adopts a manager made elsewhere (a fork). */
  adopt(manager: ConversationManager): void {
    this.store.adopt(manager);
  }

  /** Forgets a conversation's manager (after it was deleted); views redraw. */
  forget(conversationId: string): void {
    this.store.forget(conversationId);
  }

  /** Runs `work` with the conversation marked busy (see `OpenConversations.whileBusy`). */
  whileBusy<T>(conversationId: string, work: () => Promise<T>): Promise<T> {
    return this.store.whileBusy(conversationId, work);
  }

  /** Runs `work` on a conversation's manager while it is marked busy (every change goes through here). */
  withManager<T>(conversationId: string, work: (manager: ConversationManager) => Promise<T>): Promise<T> {
    return this.store.withManager(conversationId, work);
  }
}
