import { InvalidArgumentError, NodeNotFoundError } from '../errors';
import type { ConversationNode } from '../types';

/** The id of the root node, which holds the system prompt (or an empty system node). */
export const ROOT_NODE_ID = '';

/** The parent id of a dot-path node id: `"0.1"` → `"0"`, `"0"` → `""`, the root → `null`. */
export function parentIdOf(nodeId: string): string | null {
  if (nodeId === ROOT_NODE_ID) {
    return null;
  }
  const dot = nodeId.lastIndexOf('.');
  return dot < 0 ? ROOT_NODE_ID : nodeId.slice(0, dot);
}

/** The id of the child at `index` under `parentId`: `("", 2)` → `"2"`, `("0", 1)` → `"0.1"`. */
export function childIdOf(parentId: string, index: number): string {
  return parentId === ROOT_NODE_ID ? String(index) : `${parentId}.${index}`;
}

/** The position of a node among its siblings (the last segment of its id); -1 for the root. */
export function childIndexOf(nodeId: string): number {
  if (nodeId === ROOT_NODE_ID) {
    return -1;
  }
  return Number(nodeId.slice(nodeId.lastIndexOf('.') + 1));
}

/** Whether `nodeId` is a well-formed dot path of non-negative integers (or the root). */
export function isValidNodeId(nodeId: string): boolean {
  return nodeId === ROOT_NODE_ID || /^(0|[1-9]\d*)(\.(0|[1-9]\d*))*$/.test(nodeId);
}

/** Whether `ancestorId` is `nodeId` itself or one of its ancestors. */
export function isSelfOrAncestor(ancestorId: string, nodeId: string): boolean {
  return ancestorId === ROOT_NODE_ID || nodeId === ancestorId || nodeId.startsWith(`${ancestorId}.`);
}

function compareSiblings(a: string, b: string): number {
  return childIndexOf(a) - childIndexOf(b);
}

/** Orders ids as the tree does: parents before children, siblings by position ("0.9" before "0.10"). */
export function compareNodeIds(a: string, b: string): number {
  const pa = a === ROOT_NODE_ID ? [] : a.split('.').map(Number);
  const pb = b === ROOT_NODE_ID ? [] : b.split('.').map(Number);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] - pb[i];
  }
  return pa.length - pb.length;
}

/**
 * The in-memory tree of one conversation: nodes by id, children by parent, and the tombstones of
 * deleted subtrees, so a new child always gets an index never used before under its parent.
 */
export class ConversationTree {
  private readonly nodes = new Map<string, ConversationNode>();
  private readonly childIds = new Map<string, string[]>();
  private tombstoneIds: string[] = [];

  /** Builds a tree from stored nodes; every non-root node's parent must be present. */
  constructor(nodes: Iterable<ConversationNode>, tombstones: Iterable<string> = []) {
    const list = [...nodes].sort((a, b) => compareNodeIds(a.nodeId, b.nodeId));
    for (const node of list) {
      this.add(node);
    }
    this.tombstoneIds = [...tombstones];
  }

  /** The root node. */
  get root(): ConversationNode {
    return this.get(ROOT_NODE_ID);
  }

  /** How many nodes the tree holds. */
  get size(): number {
    return this.nodes.size;
  }

  /** Ids of deleted subtree roots (never reused). */
  get tombstones(): readonly string[] {
    return this.tombstoneIds;
  }

  has(nodeId: string): boolean {
    return this.nodes.has(nodeId);
  }

  /** The node with this id; `NodeNotFoundError` when there is none. */
  get(nodeId: string): ConversationNode {
    const node = this.nodes.get(nodeId);
    if (!node) {
      throw new NodeNotFoundError(nodeId);
    }
    return node;
  }

  /** Every node, in insertion order of the tree (parents before children). */
  all(): ConversationNode[] {
    return [...this.nodes.values()];
  }

  /** The children of a node, by position. */
  children(nodeId: string): ConversationNode[] {
    return (this.childIds.get(nodeId) ?? []).map((id) => this.get(id));
  }

  /** The nodes from the root to `nodeId`, both included. */
  path(nodeId: string): ConversationNode[] {
    const out: ConversationNode[] = [];
    let id: string | null = nodeId;
    while (id !== null) {
      out.push(this.get(id));
      id = parentIdOf(id);
    }
    return out.reverse();
  }

  /** `nodeId` and all its descendants, depth first. */
  subtree(nodeId: string): ConversationNode[] {
    const out: ConversationNode[] = [];
    const stack = [nodeId];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      out.push(this.get(id));
      stack.push(...[...(this.childIds.get(id) ?? [])].reverse());
    }
    return out;
  }

  /** The id the next child of `parentId` gets: one past the highest index ever used under it. */
  nextChildId(parentId: string): string {
    let max = -1;
    for (const id of this.childIds.get(parentId) ?? []) {
      max = Math.max(max, childIndexOf(id));
    }
    for (const id of this.tombstoneIds) {
      if (id !== ROOT_NODE_ID && parentIdOf(id) === parentId) {
        max = Math.max(max, childIndexOf(id));
      }
    }
    return childIdOf(parentId, max + 1);
  }

  /** Adds a node whose parent is already in the tree (or the root). */
  add(node: ConversationNode): void {
    if (!isValidNodeId(node.nodeId)) {
      throw new InvalidArgumentError(`"${node.nodeId}" is not a node id: ids are dot paths of child positions such as "0.1.2" ("" is the root).`);
    }
    if (this.nodes.has(node.nodeId)) {
      throw new InvalidArgumentError(`Node "${node.nodeId}" already exists; a node id is never reused.`);
    }
    const parentId = parentIdOf(node.nodeId);
    if (parentId !== null && !this.nodes.has(parentId)) {
      throw new InvalidArgumentError(`Node "${node.nodeId}" has no parent "${parentId}" in the conversation.`);
    }
    if (parentId === null) {
      node.parentId = null;
    } else {
      node.parentId = parentId;
      const siblings = this.childIds.get(parentId) ?? [];
      siblings.push(node.nodeId);
      siblings.sort(compareSiblings);
      this.childIds.set(parentId, siblings);
    }
    this.nodes.set(node.nodeId, node);
  }

  /** Replaces a stored node object with an updated copy (same id). */
  replace(node: ConversationNode): void {
    this.get(node.nodeId);
    this.nodes.set(node.nodeId, node);
  }

  /**
   * The tombstones once the subtree at `nodeId` is removed: those inside it are dropped (the new
   * one covers them) and `nodeId` is added. Lets a caller persist the list before removing.
   */
  tombstonesAfterRemoving(nodeId: string): string[] {
    return [...this.tombstoneIds.filter((id) => !isSelfOrAncestor(nodeId, id)), nodeId];
  }

  /** Removes `nodeId` and its descendants, records the tombstone, and returns the removed ids. */
  removeSubtree(nodeId: string): string[] {
    if (nodeId === ROOT_NODE_ID) {
      throw new InvalidArgumentError('The root node cannot be removed.');
    }
    const removed = this.subtree(nodeId).map((n) => n.nodeId);
    for (const id of removed) {
      this.nodes.delete(id);
      this.childIds.delete(id);
    }
    const parentId = parentIdOf(nodeId) as string;
    const siblings = (this.childIds.get(parentId) ?? []).filter((id) => id !== nodeId);
    this.childIds.set(parentId, siblings);
    this.tombstoneIds = this.tombstonesAfterRemoving(nodeId);
    return removed;
  }
}
