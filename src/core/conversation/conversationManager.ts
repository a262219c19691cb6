import { randomUUID } from 'node:crypto';
import { ConversationNotFoundError, InvalidArgumentError, InvalidOperationError } from '../errors';
import type { ChangeResult, ConversationChange, FileChange, FileState, NewNode, RecordedFileChange, StoredImage } from '../storage/storage';
import { checkImages, DEFAULT_MAX_IMAGE_BYTES, type CheckedImage } from '../images/imageInfo';
import { loadPathImages } from './messageImages';
import { buildAnswerNode } from './answerNode';
import { isCompaction, lastCompaction } from './compaction';
import { buildBranchSummary, buildCompaction, DEFAULT_KEEP_RECENT_TOKENS, keptBudget, type CompactOptions } from './compactor';
import type { UsageCounter } from './contextUsage';
import { validateContextWindowOptions } from './contextWindow';
import { ConversationReader } from './conversationReader';
import { ConversationTree, ROOT_NODE_ID } from './conversationTree';
import { copyNode } from './copies';
import { Emitter, type ArborEvent } from '../emitter';
import { fromDataknobsDict } from './exchange';
import { fromMetonSession, isMetonSession } from './metonImport';
import { collectCachedRag, renderMessage } from './messageRendering';
import { newConversationState } from './newConversation';
import { runResponseMiddleware } from './middleware/middleware';
import type {
  AddMessageOptions,
  CompleteOptions,
  ConversationChangeEvent,
  ConversationManagerOptions,
  CreateConversationOptions,
  ToolRunOptions,
} from './managerTypes';
import { checkAddMessage, mergedMetadata, visitedAlong } from './managerChecks';
import { prepareCall, type PreparedCall } from './preparedCall';
import { runToolsFrom, type ToolRunSteps } from './toolRuns';
import type { ToolRunResult } from '../tools/toolLoop';
import { repairToolPath, toolResultNode, unansweredToolCalls } from '../tools/toolResults';
import { SerialQueue } from '../serialQueue';
import { requireNewConversationId, requireRecord, requireString } from '../validation';
import { StreamingParents } from './streamingParents';
import { streamWithPartial } from './streamWithPartial';
import { drain, runStructured, type StructuredSteps } from '../structured/structuredRun';
import type { ConversationPromptBuilder } from '../promptContracts';
import type { ConversationNode, ConversationState, LLMMessage, LLMResponse, LLMStreamChunk, ToolDefinition } from '../types';

const clone = <T>(value: T): T => structuredClone(value);

/**
 * A conversation as a tree of messages: add messages, ask the model, branch from any node, and
 * every change is written to storage (one node at a time) before the method returns.
 */
export class ConversationManager extends ConversationReader {
  protected tree: ConversationTree;
  protected current: string;
  protected metadata: Record<string, unknown>;
  protected readonly createdAt: string;
  protected updatedAt: string;
  private readonly queue = new SerialQueue();
  private readonly changeEmitter = new Emitter<ConversationChangeEvent>();
  private readonly streaming = new StreamingParents();

  /** Fires after each change has been persisted. */
  readonly onDidChange: ArborEvent<ConversationChangeEvent> = this.changeEmitter.event;
  readonly conversationId: string;

  /** `state` becomes the manager's own: pass a copy of anything the caller keeps using. */
  private constructor(state: ConversationState, protected readonly options: ConversationManagerOptions) {
    super();
    validateContextWindowOptions(options);
    this.conversationId = state.conversationId;
    this.tree = new ConversationTree(state.nodes, state.legacyIdLimit);
    if (!this.tree.has(ROOT_NODE_ID)) {
      throw new InvalidArgumentError(`Conversation "${state.conversationId}" has no root node ("").`);
    }
    this.current = this.tree.has(state.currentNodeId) ? state.currentNodeId : ROOT_NODE_ID;
    this.metadata = state.metadata;
    this.createdAt = state.createdAt;
    this.updatedAt = state.updatedAt;
  }

  /**
   * The builder that renders this conversation's prompt messages (the manager's options'), read only: whoever
   * runs steps in the conversation from above (flows, `flows/flowApi.ts`) renders with the same one.
   */
  get promptBuilder(): ConversationPromptBuilder | undefined {
    return this.options.promptBuilder;
  }

  /** Starts a new conversation and saves it; the root holds the system prompt, or is empty. */
  static async create(options: CreateConversationOptions): Promise<ConversationManager> {
    validateContextWindowOptions(options);
    if (options.conversationId !== undefined) requireNewConversationId(options.conversationId, 'conversationId');
    if (options.systemPrompt !== undefined) requireString(options.systemPrompt, 'systemPrompt', { allowEmpty: true });
    if (options.metadata !== undefined) requireRecord(options.metadata, 'metadata');
    const conversationId = options.conversationId ?? randomUUID();
    if (options.conversationId !== undefined && (await options.storage.loadConversation(conversationId))) {
      throw new InvalidOperationError(`Conversation "${conversationId}" already exists; open it with ConversationManager.resume or pick another id.`);
    }
    const state = await newConversationState(conversationId, options);
    await options.storage.saveConversation(state);
    return new ConversationManager(clone(state), options);
  }

  /** Opens a stored conversation where it was left; `ConversationNotFoundError` when there is none. */
  static async resume(conversationId: string, options: ConversationManagerOptions): Promise<ConversationManager> {
    requireString(conversationId, 'conversationId');
    const state = await options.storage.loadConversation(conversationId);
    if (!state) {
      throw new ConversationNotFoundError(conversationId);
    }
    // The store hands over objects the caller owns, so no copy is needed.
    return new ConversationManager(state, options);
  }

  /**
   * Stores a conversation exported by `exportJson`, written by dataknobs, or a Meton session file
   * (one branch), and opens it; dot-path ids become new node ids. Refuses to overwrite a stored
   * conversation with the same id: pass `conversationId` to import a copy.
   */
  static async importJson(obj: unknown, options: ConversationManagerOptions & { conversationId?: string }): Promise<ConversationManager> {
    validateContextWindowOptions(options);
    const state = isMetonSession(obj) ? fromMetonSession(obj) : fromDataknobsDict(obj);
    if (options.conversationId !== undefined) state.conversationId = options.conversationId;
    // Checked as every new conversation's id is: an imported file chose it.
    requireNewConversationId(state.conversationId, 'The conversation id');
    if (await options.storage.loadConversation(state.conversationId)) {
      throw new InvalidOperationError(
        `Conversation "${state.conversationId}" is already stored; pass a new conversationId to import it as a copy.`,
      );
    }
    await options.storage.saveConversation(state);
    // Images the file carried inline are in the store now, not on the messages.
    const stored = state.nodes.some((node) => node.message.images?.length) ? await options.storage.loadConversation(state.conversationId) : null;
    return new ConversationManager(stored ?? clone(state), options);
  }

  /** Adds a message as a child of the current node and moves to it. */
  addMessage(input: AddMessageOptions): Promise<ConversationNode> {
    let images: CheckedImage[] | undefined;
    try {
      checkAddMessage(input);
      if (input.images?.length) {
        if (input.role !== 'user') throw new InvalidArgumentError(`Only user messages carry images; this one is a ${input.role} message.`);
        images = checkImages(input.images, this.options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.queue.run(async () => {
      // Every call gets its result before anything else follows it (a tool result itself is what the caller is adding).
      if (input.role !== 'tool' && input.role !== 'function') await this.closeOpenCalls();
      const cachedRag = this.options.reuseRagOnBranch ? collectCachedRag(this.tree.all(), input.promptName, input.role) : undefined;
      const rendered = await renderMessage(this.options.promptBuilder, input, { cacheRagResults: this.options.cacheRagResults ?? false, cachedRag });
      const message: LLMMessage = { role: input.role, content: rendered.content };
      if (input.name !== undefined) message.name = input.name;
      if (input.toolCallId !== undefined) message.toolCallId = input.toolCallId;
      if (input.toolCalls?.length) message.toolCalls = clone(input.toolCalls);
      const node: NewNode = {
        parentId: this.current,
        message,
        timestamp: new Date().toISOString(),
        metadata: { ...clone(input.metadata ?? {}), ...rendered.metadata },
      };
      if (rendered.promptName !== undefined) node.promptName = rendered.promptName;
      return copyNode(await this.commitNewNode(node, images));
    });
  }

  /** Asks the model to answer the path root→current and adds the answer as a child of the current node. */
  complete(options: CompleteOptions = {}): Promise<LLMResponse> {
    return this.queue.run(async () => {
      await this.closeOpenCalls();
      if (options.outputSchema !== undefined) return drain(runStructured(this.structuredSteps(false), this.current, options));
      const prepared = await this.prepareCall(options);
      const raw = await this.options.llm.complete(prepared.messages, prepared.callOptions);
      const response = await runResponseMiddleware(this.options.middleware ?? [], raw, prepared.state);
      return this.attachAnswer(prepared, response, options, {});
    });
  }

  /**
   * Streams the model's answer. A normal end adds the node as `complete` does; a consumer that stops
   * early, an aborted signal or a failed stream still saves the text received so far, with
   * `metadata.interrupted` and `metadata.stopReason` (`consumer`, `cancelled`, `limit` when the provider
   * stopped it at a size or time cap, with `finishReason: 'length'`, or `failed`; the last two with
   * `metadata.error`), then re-throws the failure, the cap's error or the cancel (a `break` just ends).
   * The generator's return value is the final response. With `parentNodeId` it answers that node instead
   * of the current one, so several streams can answer one question at once (each commit moves to its answer).
   * With `outputSchema` each attempt streams in turn (each ends with its own `done` chunk), `onStored` is
   * told every answer and correction turn, and the return value carries `parsed` (see `runStructured`).
   */
  async *streamComplete(options: CompleteOptions = {}): AsyncGenerator<LLMStreamChunk, LLMResponse> {
    const start = await this.queue.run(async () => {
      await this.closeOpenCalls();
      const from = options.parentNodeId === undefined ? this.current : this.requireNode(options.parentNodeId).nodeId;
      return options.outputSchema === undefined ? this.prepareCall(options, from) : from;
    });
    if (typeof start === 'string') return yield* runStructured(this.structuredSteps(true), start, options);
    const prepared = start;
    return yield* this.streaming.track(prepared.parentId, this.streamUnder(prepared, options, options.onStored));
  }

  private async *streamUnder(
    prepared: PreparedCall,
    options: CompleteOptions,
    onCommitted?: (node: ConversationNode) => void,
    finalExtra?: (response: LLMResponse) => Record<string, unknown>,
  ): AsyncGenerator<LLMStreamChunk, LLMResponse> {
    const assembled = yield* streamWithPartial(this.options.llm, prepared.messages, prepared.callOptions, ({ partial, error, reason }) => {
      const extra: Record<string, unknown> = { interrupted: true, stopReason: reason };
      if (error !== undefined) extra.error = error instanceof Error ? error.message : String(error);
      return this.queue.run(() => this.attachAnswer(prepared, partial, options, extra, onCommitted));
    });
    const response = await runResponseMiddleware(this.options.middleware ?? [], assembled, prepared.state);
    return this.queue.run(() => this.attachAnswer(prepared, response, options, finalExtra?.(response) ?? {}, onCommitted));
  }

  /**
   * Answers the current node with tools: the model answers, each call it makes is checked, approved
   * (`approve`) and run, its result stored as a `tool` node, and the model answers again, until it
   * answers without calls, `maxSteps` answers were made (default 25) or `signal` aborts (Stop). Every
   * answer and result is stored as it happens; a stopped run gives every call it made a result, so the
   * path stays valid, and resolves with `stopReason: 'stopped'`. A failed model call rejects, as
   * `complete` does. Tools are offered only to a model that takes them (`toolsOffered`). `onEvent`
   * follows each call (pending approval, running, done, failed, denied, cancelled), `onChunk` the
   * streamed text. See `src/core/tools/toolLoop.ts`.
   */
  async runWithTools(options: ToolRunOptions): Promise<ToolRunResult> {
    const start = await this.queue.run(async () => {
      await this.closeOpenCalls();
      if (this.current === ROOT_NODE_ID) throw new InvalidOperationError('There are no messages to answer yet: add a user message first.');
      return this.current;
    });
    return runToolsFrom(this.toolRunSteps(), start, options);
  }

  /**
   * Gives every call left without a result at the end of the current path an "interrupted" result (a
   * run killed or closed mid-step), so the next request is valid; returns the nodes added. Calls of a
   * run still going in this manager are left alone.
   */
  repairToolCalls(): Promise<ConversationNode[]> {
    return this.queue.run(async () => (await this.closeOpenCalls({ whileRunning: 'skip' })).map(copyNode));
  }

  /** Moves the current position to any node (`NodeNotFoundError` for an unknown id). */
  switchToNode(nodeIdOrLegacyId: string): Promise<void> {
    return this.queue.run(async () => {
      const nodeId = this.requireNode(nodeIdOrLegacyId).nodeId;
      const metadata = visitedAlong(this.tree, this.metadata, nodeId);
      await this.persist(metadata ? { currentNodeId: nodeId, metadata } : { currentNodeId: nodeId }, { touch: false });
      if (metadata) this.metadata = metadata;
      this.current = nodeId;
      this.notify('currentChanged', [nodeId]);
    });
  }

  /** Moves to the parent of `siblingNodeId`, so that the next message becomes its sibling. */
  branchFrom(siblingNodeId: string): Promise<void> {
    return this.queue.run(async () => {
      const node = this.requireNode(siblingNodeId);
      if (node.parentId === null) {
        throw new InvalidOperationError('The root node has no siblings: branch from one of its children instead.');
      }
      await this.persist({ currentNodeId: node.parentId }, { touch: false });
      this.current = node.parentId;
      this.notify('currentChanged', [node.parentId]);
    });
  }

  /**
   * Compacts the path up to `options.uptoNodeId` (default: the current node): a summary of its older
   * turns becomes a new node below it, and the conversation moves there. Requests below the summary
   * carry the system prompt with the summary and the turns it kept; every original message stays in
   * the tree, and `undoCompaction` brings the whole history back. Needs at least two turns.
   */
  compact(options: CompactOptions = {}): Promise<ConversationNode> {
    return this.queue.run(async () => {
      const nodeId = this.requireNode(options.uptoNodeId ?? this.current).nodeId;
      const node = await buildCompaction({ tree: this.tree, llm: this.options.llm, promptBuilder: this.options.promptBuilder }, nodeId, options);
      return copyNode(await this.commitNewNode(node));
    });
  }

  /**
   * Compacts before a request when the path up to the current node would fill more than `fraction`
   * of `limit` (with `reserve` kept for the answer); returns the compaction node, or `undefined` when
   * there is room (or nothing to compact). Automatic compactions are recorded as `trigger: 'auto'`.
   * `systemOverride` is the system prompt the request will carry instead of the root's, `instructions` the instruction files' section after it.
   */
  async compactIfFull(options: CompactOptions & { limit?: number; fraction: number; reserve?: number; counter?: UsageCounter; systemOverride?: string; instructions?: string; tools?: readonly ToolDefinition[] }): Promise<ConversationNode | undefined> {
    if (!options.limit) return undefined;
    const usage = this.getContextUsage({ limit: options.limit, reserve: options.reserve, counter: options.counter, systemOverride: options.systemOverride, instructions: options.instructions, tools: options.tools });
    if ((usage.fraction ?? 0) < options.fraction) return undefined;
    // What a compaction cannot shrink (the system prompt, the tool definitions, the answer's reserve) over
    // the threshold already: summarising the history would lose it and still not make room.
    if ((usage.parts.system + usage.parts.instructions + usage.parts.tools + usage.reserved) / options.limit >= options.fraction) return undefined;
    const count = options.count ?? (options.counter ? (m: LLMMessage) => options.counter!.countMessage(m) : undefined);
    try {
      // What is kept verbatim must leave room under the limit for the summary and the answer.
      const keepRecentTokens = keptBudget(options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS, options.limit);
      return await this.compact({ trigger: 'auto', ...options, keepRecentTokens, ...(count ? { count } : {}), uptoNodeId: this.current });
    } catch (err) {
      if (err instanceof InvalidOperationError && /nothing to compact/.test(err.message)) return undefined;
      throw err;
    }
  }

  /**
   * Carries a short summary of the branch the reader left at `fromNodeId` into the current one: the
   * model summarises the messages of that branch below where it meets the current path, and the
   * summary becomes a node below the current node, which requests carry in their system text.
   */
  summariseBranch(options: { fromNodeId: string; model?: string; signal?: AbortSignal }): Promise<ConversationNode> {
    return this.queue.run(async () => {
      const from = this.requireNode(options.fromNodeId).nodeId;
      const node = await buildBranchSummary({ tree: this.tree, llm: this.options.llm, promptBuilder: this.options.promptBuilder }, from, this.current, options);
      return copyNode(await this.commitNewNode(node));
    });
  }

  /**
   * Undo Compaction: moves to the parent of the compaction `nodeId` (default: the one in effect on
   * the current path), so requests carry the whole history again and the next message becomes a
   * sibling of the summary. The summary stays in the tree.
   */
  undoCompaction(nodeId?: string): Promise<void> {
    const path = this.tree.path(this.current);
    const target = nodeId === undefined ? lastCompaction(path)?.node : this.requireNode(nodeId);
    if (!target || !isCompaction(target) || target.parentId === null) {
      return Promise.reject(new InvalidOperationError(nodeId === undefined ? 'There is no compaction on this branch to undo.' : `Node "${nodeId}" is not a compaction.`));
    }
    return this.switchToNode(target.parentId);
  }

  /** Sets one metadata key (`undefined` removes it) or merges a record into the conversation's metadata. */
  setMetadata(keyOrValues: string | Record<string, unknown>, value?: unknown): Promise<void> {
    return this.queue.run(async () => {
      const next = mergedMetadata(this.metadata, keyOrValues, value);
      await this.persist({ metadata: next });
      this.metadata = next;
      this.notify('metadataChanged', []);
    });
  }

  /**
   * Sets one key of a node's metadata (`undefined` removes it) or merges a record into it: how a
   * message is bookmarked or given a note. Requests carry messages, not node metadata, so nothing
   * set here is ever sent to a model.
   */
  setNodeMetadata(nodeId: string, keyOrValues: string | Record<string, unknown>, value?: unknown): Promise<void> {
    return this.queue.run(async () => {
      const node = this.requireNode(nodeId);
      const metadata = mergedMetadata(node.metadata, keyOrValues, value);
      if (JSON.stringify(metadata) === JSON.stringify(node.metadata)) return;
      const updated = { ...node, metadata };
      await this.persist({ updateNodes: [updated] });
      this.tree.replace(updated);
      this.notify('nodeUpdated', [updated.nodeId]);
    });
  }

  /** Names (or with an empty name, unnames) the branch that starts at `nodeId`. */
  renameBranch(nodeId: string, name: string): Promise<void> {
    return this.queue.run(async () => {
      requireString(name, 'name', { allowEmpty: true, name: true });
      const updated = { ...this.requireNode(nodeId) };
      if (name.trim() === '') delete updated.branchName;
      else updated.branchName = name;
      await this.persist({ updateNodes: [updated] });
      this.tree.replace(updated);
      this.notify('nodeUpdated', [updated.nodeId]);
    });
  }

  /**
   * Removes `nodeId` and everything below it; its id is never given again. When the current node
   * is inside, the current position moves to the deleted node's parent.
   */
  deleteBranch(nodeId: string): Promise<void> {
    return this.queue.run(async () => {
      const node = this.requireNode(nodeId);
      if (node.parentId === null) {
        throw new InvalidOperationError('The root node cannot be deleted; delete the conversation instead.');
      }
      const isSelfOrAncestor = (a: string, b: string) => this.tree.isSelfOrAncestor(a, b);
      if (this.streaming.streamsInto(node.nodeId, isSelfOrAncestor)) {
        throw new InvalidOperationError(`An answer is still streaming into the branch at "${nodeId}"; stop it before deleting the branch.`);
      }
      const removed = this.tree.subtree(node.nodeId).map((n) => n.nodeId);
      const nextCurrent = isSelfOrAncestor(node.nodeId, this.current) ? node.parentId : this.current;
      await this.persist({ deleteNodeIds: removed, currentNodeId: nextCurrent });
      this.tree.removeSubtree(node.nodeId);
      this.current = nextCurrent;
      this.notify('branchDeleted', removed);
    });
  }

  /** Copies this conversation (or its path root→`upToNodeId`) under a new id and opens the copy. */
  fork(newConversationId: string = randomUUID(), forkOptions: { upToNodeId?: string } = {}): Promise<ConversationManager> {
    return this.queue.run(async () => {
      requireNewConversationId(newConversationId, 'newConversationId');
      const upToNodeId = forkOptions.upToNodeId === undefined ? undefined : this.requireNode(forkOptions.upToNodeId).nodeId;
      const state = await this.options.storage.forkConversation(this.conversationId, newConversationId, upToNodeId === undefined ? {} : { upToNodeId });
      return new ConversationManager(state, this.options);
    });
  }

  /**
   * Reads the conversation again from storage, e.g. after another window changed it (the store's
   * `onDidChange`), so the next node ids are computed from what is really stored.
   */
  reload(): Promise<void> {
    return this.queue.run(async () => {
      const state = await this.options.storage.loadConversation(this.conversationId);
      if (!state) {
        throw new ConversationNotFoundError(this.conversationId);
      }
      if (state.updatedAt === this.updatedAt && state.nodes.length === this.tree.size) {
        return;
      }
      this.tree = new ConversationTree(state.nodes, state.legacyIdLimit);
      this.current = this.tree.has(state.currentNodeId) ? state.currentNodeId : ROOT_NODE_ID;
      this.metadata = state.metadata;
      this.updatedAt = state.updatedAt;
      this.notify('reloaded', []);
    });
  }

  /**
   * Records the files `nodeId` changed (an accepted Apply, an `edit_file`, a `create_file`), after this
   * manager's earlier writes; returns all the node's changes as stored (`ConversationStorage.recordFileChanges`).
   */
  recordFileChanges(nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]> {
    return this.queue.run(() => this.options.storage.recordFileChanges(this.conversationId, this.requireNode(nodeId).nodeId, changes));
  }

  /** The files `nodeId` changed, with hashes, sizes and line counts (empty when none). */
  getFileChanges(nodeId: string): Promise<RecordedFileChange[]> {
    return this.queue.run(() => this.options.storage.fileChanges(this.conversationId, this.requireNode(nodeId).nodeId));
  }

  /** Every node of this conversation that changed files, by node id (for the chat's file chips). */
  getFileChangesByNode(): Promise<Record<string, RecordedFileChange[]>> {
    return this.queue.run(() => this.options.storage.fileChangesByNode(this.conversationId));
  }

  /** What each file changed on the path root→`nodeId` is after that node: what Restore Files to Here writes. */
  getFilesStateAt(nodeId: string): Promise<FileState[]> {
    return this.queue.run(() => this.options.storage.filesStateAt(this.conversationId, this.requireNode(nodeId).nodeId));
  }

  /** The bytes of a content recorded by a file change (by its hash), or null when none refers to it any more. */
  getFileContent(hash: string): Promise<Uint8Array | null> {
    return this.options.storage.fileContent(hash);
  }

  /** The images of `nodeId`, in the order they were attached; their bytes are `getFileContent(hash)`. */
  getNodeImages(nodeId: string): Promise<StoredImage[]> {
    return this.queue.run(() => this.options.storage.nodeImages(this.conversationId, this.requireNode(nodeId).nodeId));
  }

  /** Every node of this conversation that has images, by node id (for the chat's thumbnails and exports). */
  getImagesByNode(): Promise<Record<string, StoredImage[]>> {
    return this.queue.run(() => this.options.storage.imagesByNode(this.conversationId));
  }

  /** Whether `model` (default: the provider's) takes images; a provider that cannot tell is trusted to. */
  async modelTakesImages(model?: string): Promise<boolean> {
    return (await this.options.llm.supportsVision?.(model ?? this.options.llm.model)) ?? true;
  }

  /** Drops every `onDidChange` listener. */
  dispose(): void {
    this.changeEmitter.dispose();
  }

  private async prepareCall(options: CompleteOptions, from: string = this.current): Promise<PreparedCall> {
    const byMessage = await loadPathImages(this.options.storage, this.conversationId, this.tree, from);
    const model = options.configOverrides?.model ?? this.options.llm.model;
    const images = byMessage.size ? { byMessage, model, sends: (await this.options.llm.supportsVision?.(model)) ?? true } : undefined;
    return prepareCall({ conversationId: this.conversationId, tree: this.tree, currentNodeId: from, metadata: this.metadata, images }, this.options, options);
  }

  /** How a tool run's answers are asked for and its nodes stored: as `complete` and `streamComplete` do. */
  private toolRunSteps(): ToolRunSteps {
    return {
      llm: this.options.llm,
      prepare: (options, from) => this.queue.run(() => this.prepareCall(options, from)),
      stream: (prepared, options, onCommitted) => this.streamUnder(prepared, options, onCommitted),
      complete: async (prepared, options, onCommitted) => {
        const raw = await this.options.llm.complete(prepared.messages, prepared.callOptions);
        const response = await runResponseMiddleware(this.options.middleware ?? [], raw, prepared.state);
        return this.queue.run(() => this.attachAnswer(prepared, response, options, {}, onCommitted));
      },
      commit: async (node) => copyNode(await this.queue.run(() => this.commitNewNode(node))),
      hold: (nodeId) => this.streaming.hold(nodeId),
    };
  }

  /**
   * How a structured answer's attempts are asked for and stored: streamed (each step queued, as
   * `streamComplete`), or whole from inside the queue `complete` already holds.
   */
  private structuredSteps(streamed: boolean): StructuredSteps<CompleteOptions, PreparedCall> {
    if (streamed) {
      return {
        prepare: (options, from) => this.queue.run(() => this.prepareCall(options, from)),
        answer: (prepared, options, extra, onStored) => this.streaming.track(prepared.parentId, this.streamUnder(prepared, options, onStored, extra)),
        commit: async (node) => copyNode(await this.queue.run(() => this.commitNewNode(node))),
      };
    }
    const llm = this.options.llm;
    const middleware = this.options.middleware ?? [];
    const attach = (prepared: PreparedCall, response: LLMResponse, options: CompleteOptions, extra: Record<string, unknown>, onStored: (node: ConversationNode) => void) =>
      this.attachAnswer(prepared, response, options, extra, onStored);
    return {
      prepare: (options, from) => this.prepareCall(options, from),
      answer: async function* (prepared, options, extra, onStored) {
        const response = await runResponseMiddleware(middleware, await llm.complete(prepared.messages, prepared.callOptions), prepared.state);
        return attach(prepared, response, options, extra(response), onStored);
      },
      commit: async (node) => copyNode(await this.commitNewNode(node)),
    };
  }

  /**
   * Stores an "interrupted" result for each call left open at the end of the current path (see
   * `repairToolPath`), unless a run in this manager is still answering them: then the caller is refused
   * (nothing may follow calls still running), or with `whileRunning: 'skip'` they are left alone.
   */
  private async closeOpenCalls({ whileRunning = 'refuse' }: { whileRunning?: 'refuse' | 'skip' } = {}): Promise<ConversationNode[]> {
    // Only the end of the path matters: the current node and the tool results above it, up to the answer.
    const path: ConversationNode[] = [];
    for (let node = this.tree.get(this.current); ; node = this.tree.get(node.parentId)) {
      path.unshift(node);
      if (node.parentId === null || (node.message.role !== 'tool' && node.message.role !== 'function')) break;
    }
    const open = unansweredToolCalls(path);
    if (!open) return [];
    if (this.streaming.streamsInto(open.answer.nodeId, (a, b) => this.tree.isSelfOrAncestor(a, b))) {
      if (whileRunning === 'refuse') throw new InvalidOperationError('Tools are still running on this branch: stop them (or wait for their results) first.');
      return [];
    }
    const added: ConversationNode[] = [];
    for (const record of repairToolPath(path)) added.push(await this.commitNewNode(toolResultNode(this.current, record)));
    return added;
  }

  /** Adds the model's answer under the node it answers, moves to it, persists, and fills in costs. */
  private async attachAnswer(
    prepared: PreparedCall,
    response: LLMResponse,
    options: CompleteOptions,
    extra: Record<string, unknown>,
    onCommitted?: (node: ConversationNode) => void,
  ): Promise<LLMResponse> {
    this.requireNode(prepared.parentId);
    const node = buildAnswerNode({
      parentId: prepared.parentId,
      response,
      options,
      provider: this.options.llm.name,
      droppedCount: prepared.droppedCount,
      extra,
    });
    const added = await this.commitNewNode(node);
    onCommitted?.(copyNode(added));
    return { ...response, cumulativeCostUsd: this.getCostByBranch(added.nodeId) };
  }

  /** Stores a new node (the store gives its id), then adds it to the tree and moves to it. */
  private async commitNewNode(node: NewNode, images?: CheckedImage[]): Promise<ConversationNode> {
    const { addedNodes } = await this.persist({ addNodes: [node], ...(images?.length ? { addImages: [images] } : {}), currentIsLastAdded: true });
    const added = addedNodes[0];
    this.tree.add(added);
    // A new sibling (a regenerated answer, an edited question) is where the reader is now.
    if (this.tree.children(node.parentId as string).length > 1) {
      const metadata = visitedAlong(this.tree, this.metadata, added.nodeId);
      if (metadata) {
        await this.persist({ metadata });
        this.metadata = metadata;
      }
    }
    this.current = added.nodeId;
    this.notify('nodeAdded', [added.nodeId]);
    return added;
  }

  /**
   * Writes a change before memory is touched. `touch: false` keeps the conversation's update time:
   * moving around the tree is not news, so the list does not move it to the top as "just now".
   */
  private async persist(change: Omit<ConversationChange, 'updatedAt'>, { touch = true }: { touch?: boolean } = {}): Promise<ChangeResult> {
    const updatedAt = touch ? new Date().toISOString() : this.updatedAt;
    const result = await this.options.storage.applyChange(this.conversationId, { ...change, updatedAt });
    this.updatedAt = updatedAt;
    return result;
  }

  private notify(kind: ConversationChangeEvent['kind'], nodeIds: string[]): void {
    this.changeEmitter.fire({ conversationId: this.conversationId, kind, nodeIds, currentNodeId: this.current });
  }
}
