import { InvalidArgumentError, NodeNotFoundError } from '../errors';
import { ROOT_NODE_ID, dotPathSegments, isDotPath } from '../nodeIds';
import type { ConversationNode } from '../types';

export { ROOT_NODE_ID };

/**
 * The in-memory tree of one conversation: nodes by id, each node's children in sibling order, and
 * each node's depth. Nothing here reads meaning into an id: parents come from `parentId`, sibling
 * order from `position`, so paths, ancestry and dot paths cost the depth, never the id's length.
 */
export class ConversationTree {
  private readonly nodes = new Map<string, ConversationNode>();
  private readonly childLists = new Map<string, ConversationNode[]>();
  private readonly depths = new Map<string, number>();

  /**
   * Builds a tree from stored nodes, in any order; every non-root node's parent must be present.
   * `legacyIdLimit` (stores migrated from 1.x) lets `resolve` find nodes by their old dot-path ids.
   */
  constructor(
    nodes: Iterable<ConversationNode>,
    readonly legacyIdLimit?: number,
  ) {
    // Stores list parents first, so one pass usually adds everything; a node whose parent comes
    // later waits for it.
    const pending = new Map<string, ConversationNode[]>();
    const addWithWaiting = (node: ConversationNode): void => {
      const ready = [node];
      while (ready.length > 0) {
        const next = ready.pop() as ConversationNode;
        this.add(next);
        const children = pending.get(next.nodeId);
        if (children) {
          pending.delete(next.nodeId);
          ready.push(...children);
        }
      }
    };
    for (const node of nodes) {
      if (node.parentId === null || this.nodes.has(node.parentId)) addWithWaiting(node);
      else {
        const waiting = pending.get(node.parentId);
        if (waiting) waiting.push(node);
        else pending.set(node.parentId, [node]);
      }
    }
    for (const [parentId, children] of pending) {
      throw new InvalidArgumentError(`Node "${children[0].nodeId}" has no parent "${parentId}" in the conversation.`);
    }
  }

  /** The root node. */
  get root(): ConversationNode {
    return this.get(ROOT_NODE_ID);
  }

  /** How many nodes the tree holds. */
  get size(): number {
    return this.nodes.size;
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

  /** Every node, parents before children. */
  all(): ConversationNode[] {
    return [...this.nodes.values()];
  }

  /** The children of a node, in sibling order. The array is the tree's own: do not change it. */
  children(nodeId: string): readonly ConversationNode[] {
    return this.childLists.get(nodeId) ?? [];
  }

  /** How many edges separate a node from the root (0 for the root). */
  depth(nodeId: string): number {
    const depth = this.depths.get(nodeId);
    if (depth === undefined) throw new NodeNotFoundError(nodeId);
    return depth;
  }

  /** The nodes from the root to `nodeId`, both included. */
  path(nodeId: string): ConversationNode[] {
    const out = new Array<ConversationNode>(this.depth(nodeId) + 1);
    let node: ConversationNode | undefined = this.get(nodeId);
    for (let i = out.length - 1; node; i--) {
      out[i] = node;
      node = node.parentId === null ? undefined : this.nodes.get(node.parentId);
    }
    return out;
  }

  /** `nodeId` and all its descendants, depth first, siblings in order. */
  subtree(nodeId: string): ConversationNode[] {
    const out: ConversationNode[] = [];
    const stack = [this.get(nodeId)];
    while (stack.length > 0) {
      const node = stack.pop() as ConversationNode;
      out.push(node);
      const children = this.childLists.get(node.nodeId);
      if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
    return out;
  }

  /** Whether `ancestorId` is `nodeId` itself or one of its ancestors; costs at most the depth difference. */
  isSelfOrAncestor(ancestorId: string, nodeId: string): boolean {
    const ancestorDepth = this.depths.get(ancestorId);
    let depth = this.depths.get(nodeId);
    if (ancestorDepth === undefined || depth === undefined || depth < ancestorDepth) return false;
    let node = this.nodes.get(nodeId) as ConversationNode;
    for (; depth > ancestorDepth; depth--) node = this.nodes.get(node.parentId as string) as ConversationNode;
    return node.nodeId === ancestorId;
  }

  /** The 0-based place of a node among its parent's children, as the `‹ n/m ›` switcher counts; 0 for the root. */
  siblingIndex(nodeId: string): number {
    const node = this.get(nodeId);
    return node.parentId === null ? 0 : this.children(node.parentId).indexOf(node);
  }

  /** The dataknobs dot path of a node: its sibling indexes from the root ("0.1.2"; "" for the root). */
  dotPath(nodeId: string): string {
    return this.path(nodeId)
      .slice(1)
      .map((node) => this.children(node.parentId as string).indexOf(node))
      .join('.');
  }

  /** The node a dataknobs dot path leads to (by sibling index), or undefined. */
  findByDotPath(dotPath: string): ConversationNode | undefined {
    if (!isDotPath(dotPath)) return undefined;
    let node: ConversationNode | undefined = this.nodes.get(ROOT_NODE_ID);
    for (const index of dotPathSegments(dotPath)) {
      node = node ? this.children(node.nodeId)[index] : undefined;
    }
    return node;
  }

  /**
   * The node an id names: the id itself, or, in a conversation migrated from a 1.x store, the node
   * whose old dot-path id it is (sibling positions below `legacyIdLimit` are the old child indexes).
   */
  resolve(id: string): ConversationNode | undefined {
    const direct = this.nodes.get(id);
    if (direct || this.legacyIdLimit === undefined || !isDotPath(id)) return direct;
    let node: ConversationNode | undefined = this.nodes.get(ROOT_NODE_ID);
    for (const position of dotPathSegments(id)) {
      if (!node || position >= this.legacyIdLimit) return undefined;
      node = this.children(node.nodeId).find((child) => child.position === position);
    }
    return node;
  }

  /** Adds a node whose parent is already in the tree (or the root), keeping sibling order. */
  add(node: ConversationNode): void {
    if (this.nodes.has(node.nodeId)) {
      throw new InvalidArgumentError(`Node "${node.nodeId}" already exists; a node id is never reused.`);
    }
    if (node.parentId === null) {
      if (node.nodeId !== ROOT_NODE_ID) throw new InvalidArgumentError(`Node "${node.nodeId}" has no parent; only the root ("") may have none.`);
      this.depths.set(node.nodeId, 0);
    } else {
      const parentDepth = this.depths.get(node.parentId);
      if (parentDepth === undefined) {
        throw new InvalidArgumentError(`Node "${node.nodeId}" has no parent "${node.parentId}" in the conversation.`);
      }
      const siblings = this.childLists.get(node.parentId);
      if (!siblings) this.childLists.set(node.parentId, [node]);
      else {
        let i = siblings.length;
        while (i > 0 && siblings[i - 1].position > node.position) i--;
        siblings.splice(i, 0, node);
      }
      this.depths.set(node.nodeId, parentDepth + 1);
    }
    this.nodes.set(node.nodeId, node);
  }

  /** Replaces a stored node object with an updated copy (same id, parent and position). */
  replace(node: ConversationNode): void {
    const old = this.get(node.nodeId);
    this.nodes.set(node.nodeId, node);
    if (old.parentId !== null) {
      const siblings = this.childLists.get(old.parentId) as ConversationNode[];
      siblings[siblings.indexOf(old)] = node;
    }
  }

  /** Removes `nodeId` and its descendants and returns the removed ids. */
  removeSubtree(nodeId: string): string[] {
    const node = this.get(nodeId);
    if (node.parentId === null) {
      throw new InvalidArgumentError('The root node cannot be removed.');
    }
    const removed = this.subtree(nodeId).map((n) => n.nodeId);
    for (const id of removed) {
      this.nodes.delete(id);
      this.childLists.delete(id);
      this.depths.delete(id);
    }
    const siblings = this.childLists.get(node.parentId) as ConversationNode[];
    siblings.splice(siblings.indexOf(node), 1);
    return removed;
  }
}
