import { randomUUID } from 'node:crypto';
import { readNodeMetadata } from '../metadataKeys';
import { ConversationNotFoundError, InvalidArgumentError, InvalidOperationError, NodeNotFoundError } from '../errors';
import type { RagMetadata } from '../prompts/types';
import type { ChangeResult, ConversationChange, NewNode } from '../storage/storage';
import { buildAnswerNode } from './answerNode';
import { applyContextWindow, validateContextWindowOptions, type ContextWindowResult } from './contextWindow';
import { ConversationTree, ROOT_NODE_ID } from './conversationTree';
import { copyMessage, copyNode } from './copies';
import { Emitter, type ArborEvent } from '../emitter';
import { fromDataknobsDict, toDataknobsDict, type DataknobsConversationDict } from './exchange';
import { fromMetonSession, isMetonSession } from './metonImport';
import { conversationToMarkdown, type MarkdownExportOptions } from './markdownExport';
import { collectCachedRag, renderMessage } from './messageRendering';
import { newConversationState } from './newConversation';
import { runResponseMiddleware } from './middleware/middleware';
import type {
  AddMessageOptions,
  BranchInfo,
  CompleteOptions,
  ConversationChangeEvent,
  ConversationManagerOptions,
  CreateConversationOptions,
} from './managerTypes';
import { pathMessages, prepareCall, windowOptions, type PreparedCall } from './preparedCall';
import { SerialQueue } from '../serialQueue';
import { StreamingParents } from './streamingParents';
import { streamWithPartial } from './streamWithPartial';
import type { ConversationNode, ConversationState, LLMMessage, LLMResponse, LLMStreamChunk } from '../types';

const clone = <T>(value: T): T => structuredClone(value);

function byTime(a: ConversationNode, b: ConversationNode): number {
  return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
}

function costOf(node: ConversationNode): number {
  const cost = readNodeMetadata(node.metadata, 'costUsd');
  return cost !== undefined && Number.isFinite(cost) ? cost : 0;
}

/**
 * A conversation as a tree of messages: add messages, ask the model, branch from any node, and
 * every change is written to storage (one node at a time) before the method returns.
 */
export class ConversationManager {
  private tree: ConversationTree;
  private current: string;
  private metadata: Record<string, unknown>;
  private readonly createdAt: string;
  private updatedAt: string;
  private readonly queue = new SerialQueue();
  private readonly changeEmitter = new Emitter<ConversationChangeEvent>();
  private readonly streaming = new StreamingParents();

  /** Fires after each change has been persisted. */
  readonly onDidChange: ArborEvent<ConversationChangeEvent> = this.changeEmitter.event;
  readonly conversationId: string;

  /** `state` becomes the manager's own: pass a copy of anything the caller keeps using. */
  private constructor(state: ConversationState, private readonly options: ConversationManagerOptions) {
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

  /** Starts a new conversation and saves it; the root holds the system prompt, or is empty. */
  static async create(options: CreateConversationOptions): Promise<ConversationManager> {
    validateContextWindowOptions(options);
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
    if (await options.storage.loadConversation(state.conversationId)) {
      throw new InvalidOperationError(
        `Conversation "${state.conversationId}" is already stored; pass a new conversationId to import it as a copy.`,
      );
    }
    await options.storage.saveConversation(state);
    return new ConversationManager(clone(state), options);
  }

  /** The node the next message will be added under. */
  get currentNodeId(): string {
    return this.current;
  }

  /** Adds a message as a child of the current node and moves to it. */
  addMessage(input: AddMessageOptions): Promise<ConversationNode> {
    if (input.content === undefined && input.promptName === undefined) {
      return Promise.reject(new InvalidArgumentError('addMessage needs content or a promptName.'));
    }
    return this.queue.run(async () => {
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
      return copyNode(await this.commitNewNode(node));
    });
  }

  /** Asks the model to answer the path root→current and adds the answer as a child of the current node. */
  complete(options: CompleteOptions = {}): Promise<LLMResponse> {
    return this.queue.run(async () => {
      const prepared = await this.prepareCall(options);
      const raw = await this.options.llm.complete(prepared.messages, prepared.callOptions);
      const response = await runResponseMiddleware(this.options.middleware ?? [], raw, prepared.state);
      return this.attachAnswer(prepared, response, options, {});
    });
  }

  /**
   * Streams the model's answer. A normal end adds the node as `complete` does; a consumer that stops
   * early, an aborted signal or a failed stream still saves the text received so far, with
   * `metadata.interrupted` and `metadata.stopReason` (`consumer`, `cancelled` or `failed`, the last
   * with `metadata.error`), then re-throws the failure or the cancel (a `break` just ends).
   * The generator's return value is the final response.
   */
  async *streamComplete(options: CompleteOptions = {}): AsyncGenerator<LLMStreamChunk, LLMResponse> {
    const prepared = await this.queue.run(() => this.prepareCall(options));
    return yield* this.streaming.track(prepared.parentId, this.streamUnder(prepared, options));
  }

  private async *streamUnder(prepared: PreparedCall, options: CompleteOptions): AsyncGenerator<LLMStreamChunk, LLMResponse> {
    const assembled = yield* streamWithPartial(this.options.llm, prepared.messages, prepared.callOptions, ({ partial, error, reason }) => {
      const extra: Record<string, unknown> = { interrupted: true, stopReason: reason };
      if (error !== undefined) extra.error = error instanceof Error ? error.message : String(error);
      return this.queue.run(() => this.attachAnswer(prepared, partial, options, extra));
    });
    const response = await runResponseMiddleware(this.options.middleware ?? [], assembled, prepared.state);
    return this.queue.run(() => this.attachAnswer(prepared, response, options, {}));
  }

  /** Moves the current position to any node (`NodeNotFoundError` for an unknown id). */
  switchToNode(nodeIdOrLegacyId: string): Promise<void> {
    return this.queue.run(async () => {
      const nodeId = this.requireNode(nodeIdOrLegacyId).nodeId;
      await this.persist({ currentNodeId: nodeId });
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
      await this.persist({ currentNodeId: node.parentId });
      this.current = node.parentId;
      this.notify('currentChanged', [node.parentId]);
    });
  }

  /** The children of a node (default: the current one), for choosing a branch. */
  getBranches(nodeId: string = this.current): BranchInfo[] {
    return this.tree.children(this.requireNode(nodeId).nodeId).map((child) => ({
      nodeId: child.nodeId,
      ...(child.branchName !== undefined ? { branchName: child.branchName } : {}),
      role: child.message.role,
      preview: child.message.content.slice(0, 100),
      timestamp: child.timestamp,
    }));
  }

  /** The messages root→current that a request would carry before the context window (an empty root is left out). */
  getHistory(): LLMMessage[] {
    return pathMessages(this.tree, this.current).map(copyMessage);
  }

  /** The nodes root→current, the root included. */
  getCurrentNodes(): ConversationNode[] {
    return this.tree.path(this.current).map(copyNode);
  }

  /** The nodes root→`nodeId`, the root included. */
  getPath(nodeId: string): ConversationNode[] {
    return this.tree.path(this.requireNode(nodeId).nodeId).map(copyNode);
  }

  /** Every node of every branch, oldest first. */
  getAllNodes(): ConversationNode[] {
    return this.tree.all().sort(byTime).map(copyNode);
  }

  /** A node by its id (or, in a conversation migrated from a 1.x store, its old dot-path id). */
  getNode(nodeId: string): ConversationNode {
    return copyNode(this.requireNode(nodeId));
  }

  /** Whether a node with this id (or old dot-path id) exists. */
  hasNode(nodeId: string): boolean {
    return this.tree.resolve(nodeId) !== undefined;
  }

  /** The children of a node, in the order they were created. */
  getChildren(nodeId: string): ConversationNode[] {
    return this.tree.children(this.requireNode(nodeId).nodeId).map(copyNode);
  }

  /** How many nodes the conversation holds, the root included. */
  get nodeCount(): number {
    return this.tree.size;
  }

  /**
   * The ids of the path root→`nodeId` (default: the current node), leaving out an empty root: what a
   * view of a long path needs without copying its nodes.
   */
  getPathIds(nodeId: string = this.current): string[] {
    const path = this.tree.path(this.requireNode(nodeId).nodeId);
    const from = path[0].message.content === '' ? 1 : 0;
    const ids = new Array<string>(path.length - from);
    for (let i = from; i < path.length; i++) ids[i - from] = path[i].nodeId;
    return ids;
  }

  /** The ids of a node and its siblings, in sibling order (the root alone for the root). */
  getSiblingIds(nodeId: string): string[] {
    const node = this.requireNode(nodeId);
    return node.parentId === null ? [node.nodeId] : this.tree.children(node.parentId).map((n) => n.nodeId);
  }

  /** The deepest node reached from `nodeId` by always following the newest child: the tip of its branch. */
  getNewestLeaf(nodeId: string): string {
    let node = this.requireNode(nodeId);
    for (let children = this.tree.children(node.nodeId); children.length > 0; children = this.tree.children(node.nodeId)) {
      node = children[children.length - 1];
    }
    return node.nodeId;
  }

  /** How many nodes the subtree at `nodeId` holds, itself included. */
  getSubtreeSize(nodeId: string): number {
    return this.tree.subtree(this.requireNode(nodeId).nodeId).length;
  }

  /** Whether `ancestorId` is `nodeId` itself or one of its ancestors (costs at most the depth). */
  isSelfOrAncestor(ancestorId: string, nodeId: string): boolean {
    const ancestor = this.tree.resolve(ancestorId);
    const node = this.tree.resolve(nodeId);
    return !!ancestor && !!node && this.tree.isSelfOrAncestor(ancestor.nodeId, node.nodeId);
  }

  /** The dataknobs dot path of a node ("0.1.2": sibling indexes from the root), as `exportJson` writes it. */
  getDotPath(nodeId: string): string {
    return this.tree.dotPath(this.requireNode(nodeId).nodeId);
  }

  /** The node a dataknobs dot path leads to now, or undefined. */
  getNodeByDotPath(dotPath: string): ConversationNode | undefined {
    const node = this.tree.findByDotPath(dotPath);
    return node && copyNode(node);
  }

  /** The cost in USD of every model call on every branch. */
  getTotalCost(): number {
    return this.tree.all().reduce((sum, n) => sum + costOf(n), 0);
  }

  /** The cost in USD of the calls on the path root→node (default: the current node). */
  getCostByBranch(nodeId: string = this.current): number {
    return this.tree.path(this.requireNode(nodeId).nodeId).reduce((sum, n) => sum + costOf(n), 0);
  }

  /** The retrievals stored on a node (default: the current one), by placeholder. */
  getRagMetadata(nodeId: string = this.current): Record<string, RagMetadata> | undefined {
    const stored = readNodeMetadata(this.requireNode(nodeId).metadata, 'ragMetadata');
    return stored && clone(stored);
  }

  /** Sets one metadata key (`undefined` removes it) or merges a record into the conversation's metadata. */
  setMetadata(keyOrValues: string | Record<string, unknown>, value?: unknown): Promise<void> {
    return this.queue.run(async () => {
      const updates = typeof keyOrValues === 'string' ? { [keyOrValues]: value } : keyOrValues;
      const next = { ...this.metadata };
      for (const [key, v] of Object.entries(updates)) {
        if (v === undefined) delete next[key];
        else next[key] = clone(v);
      }
      await this.persist({ metadata: next });
      this.metadata = next;
      this.notify('metadataChanged', []);
    });
  }

  /** One metadata value, or a copy of all of it. */
  getMetadata(key?: string): unknown {
    return clone(key === undefined ? this.metadata : this.metadata[key]);
  }

  /** Names (or with an empty name, unnames) the branch that starts at `nodeId`. */
  renameBranch(nodeId: string, name: string): Promise<void> {
    return this.queue.run(async () => {
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

  /** Drops every `onDidChange` listener. */
  dispose(): void {
    this.changeEmitter.dispose();
  }

  /** The whole conversation as stored. */
  toState(): ConversationState {
    const state: ConversationState = {
      conversationId: this.conversationId,
      nodes: this.tree.all().map(copyNode),
      currentNodeId: this.current,
      metadata: clone(this.metadata),
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
    };
    if (this.tree.legacyIdLimit !== undefined) state.legacyIdLimit = this.tree.legacyIdLimit;
    return state;
  }

  /** The conversation in the dataknobs `ConversationState.to_dict()` shape. */
  exportJson(): DataknobsConversationDict {
    return toDataknobsDict(this.toState());
  }

  /** The current path, or every branch, as Markdown. */
  exportMarkdown(options: MarkdownExportOptions = {}): string {
    return conversationToMarkdown(this.toState(), options);
  }

  /** Estimated tokens of messages (default: the current history), in total and per message. */
  estimateTokens(messages: LLMMessage[] = this.getHistory()): { total: number; perMessage: number[] } {
    const estimate = windowOptions(this.options).estimate;
    const perMessage = messages.map((m) => estimate(m));
    return { total: perMessage.reduce((a, b) => a + b, 0), perMessage };
  }

  /** What the context window would send from the current history, with per-message estimates. */
  getContextWindow(): ContextWindowResult {
    return applyContextWindow(pathMessages(this.tree, this.current), windowOptions(this.options));
  }

  /** The node an id names: its own id or, in a conversation migrated from 1.x, its old dot-path id. */
  private requireNode(nodeId: string): ConversationNode {
    const node = this.tree.resolve(nodeId);
    if (!node) {
      throw new NodeNotFoundError(nodeId, this.conversationId);
    }
    return node;
  }

  private prepareCall(options: CompleteOptions): Promise<PreparedCall> {
    return prepareCall({ conversationId: this.conversationId, tree: this.tree, currentNodeId: this.current, metadata: this.metadata }, this.options, options);
  }

  /** Adds the model's answer under the node it answers, moves to it, persists, and fills in costs. */
  private async attachAnswer(prepared: PreparedCall, response: LLMResponse, options: CompleteOptions, extra: Record<string, unknown>): Promise<LLMResponse> {
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
    return { ...response, cumulativeCostUsd: this.getCostByBranch(added.nodeId) };
  }

  /** Stores a new node (the store gives its id), then adds it to the tree and moves to it. */
  private async commitNewNode(node: NewNode): Promise<ConversationNode> {
    const { addedNodes } = await this.persist({ addNodes: [node], currentIsLastAdded: true });
    const added = addedNodes[0];
    this.tree.add(added);
    this.current = added.nodeId;
    this.notify('nodeAdded', [added.nodeId]);
    return added;
  }

  /** Writes a change before memory is touched, so a failed write leaves both as they were. */
  private async persist(change: Omit<ConversationChange, 'updatedAt'>): Promise<ChangeResult> {
    const updatedAt = new Date().toISOString();
    const result = await this.options.storage.applyChange(this.conversationId, { ...change, updatedAt });
    this.updatedAt = updatedAt;
    return result;
  }

  private notify(kind: ConversationChangeEvent['kind'], nodeIds: string[]): void {
    this.changeEmitter.fire({ conversationId: this.conversationId, kind, nodeIds, currentNodeId: this.current });
  }
}
