import { branchLeft, lastCompaction } from './compaction';
import { contextUsage, type ContextUsage, type ContextUsageOptions } from './contextUsage';
import { NodeNotFoundError } from '../errors';
import { requireString } from '../validation';
import { readConversationMetadata, readNodeMetadata } from '../metadataKeys';
import type { RagMetadata } from '../promptContracts';
import type { ConversationNode, ConversationState, LLMMessage } from '../types';
import { applyContextWindow, type ContextWindowResult } from './contextWindow';
import type { ConversationTree } from './conversationTree';
import { copyMessage, copyNode } from './copies';
import { toDataknobsDict, type DataknobsConversationDict } from './exchange';
import type { BranchInfo, ConversationManagerOptions } from './managerTypes';
import { conversationToMarkdown, type MarkdownExportOptions } from './markdownExport';
import { pathMessages, windowOptions } from './preparedCall';

const clone = <T>(value: T): T => structuredClone(value);

function byTime(a: ConversationNode, b: ConversationNode): number {
  return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
}

function costOf(node: ConversationNode): number {
  const cost = readNodeMetadata(node.metadata, 'costUsd');
  return cost !== undefined && Number.isFinite(cost) ? cost : 0;
}

/**
 * Everything a conversation answers without changing: paths, children, ancestry, dot paths, costs,
 * metadata, exports and context estimates. `ConversationManager` adds the changes on top. Every
 * node handed out is a copy; paths cost their depth, never the size of the tree.
 */
export abstract class ConversationReader {
  protected abstract tree: ConversationTree;
  protected abstract current: string;
  protected abstract metadata: Record<string, unknown>;
  protected abstract readonly createdAt: string;
  protected abstract updatedAt: string;
  protected abstract readonly options: ConversationManagerOptions;
  abstract readonly conversationId: string;

  /** The node the next message will be added under. */
  get currentNodeId(): string {
    return this.current;
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

  /**
   * Where the reader was beneath `nodeId`: the deepest node reached by following, at each fork, the
   * child last visited there (the newest child where none was), so returning to a sibling with
   * `‹ n/m ›` reopens the place left, not the newest answer.
   */
  getLastVisitedLeaf(nodeId: string): string {
    const visited = readConversationMetadata(this.metadata, 'lastVisitedChild') ?? {};
    let node = this.requireNode(nodeId);
    for (let children = this.tree.children(node.nodeId); children.length > 0; children = this.tree.children(node.nodeId)) {
      const last = visited[node.nodeId];
      node = children.find((child) => child.nodeId === last) ?? children[children.length - 1];
    }
    return node.nodeId;
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

  /** One metadata value, or a copy of all of it. */
  getMetadata(key?: string): unknown {
    return clone(key === undefined ? this.metadata : this.metadata[key]);
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

  /**
   * How full the next request's context is: the tokens it would carry for `nodeId` (default: the
   * current node) plus a draft, against the model's limit, with a breakdown (see `ContextUsage`).
   */
  getContextUsage(options: ContextUsageOptions & { nodeId?: string } = {}): ContextUsage {
    return contextUsage(this.tree, this.requireNode(options.nodeId ?? this.current).nodeId, options);
  }

  /** How many messages the branch through `fromNodeId` has below where it meets the path to `toNodeId` (default: the current node). */
  getBranchLeftCount(fromNodeId: string, toNodeId: string = this.current): number {
    return branchLeft(this.tree, this.requireNode(fromNodeId).nodeId, this.requireNode(toNodeId).nodeId).length;
  }

  /** The compaction whose summary requests for `nodeId` (default: the current node) carry, if any. */
  getCompactionInEffect(nodeId: string = this.current): { nodeId: string; firstKeptNodeId: string } | undefined {
    const found = lastCompaction(this.tree.path(this.requireNode(nodeId).nodeId));
    return found ? { nodeId: found.node.nodeId, firstKeptNodeId: found.info.firstKeptNodeId } : undefined;
  }

  /** What the context window would send from the current history, with per-message estimates. */
  getContextWindow(): ContextWindowResult {
    return applyContextWindow(pathMessages(this.tree, this.current), windowOptions(this.options));
  }

  /** The node an id names: its own id or, in a conversation migrated from 1.x, its old dot-path id. */
  protected requireNode(nodeId: string): ConversationNode {
    const node = this.tree.resolve(requireString(nodeId, 'nodeId', { allowEmpty: true }));
    if (!node) {
      throw new NodeNotFoundError(nodeId, this.conversationId);
    }
    return node;
  }

}
