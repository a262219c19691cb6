import { describe, expect, it } from 'vitest';
import { ConversationTree, ROOT_NODE_ID } from '../../../src/core/conversation/conversationTree';
import { dotPathSegments, formatNodeId, isDotPath, nodeSeqOf } from '../../../src/core/nodeIds';
import type { ConversationNode } from '../../../src/core/types';
import { InvalidArgumentError, NodeNotFoundError } from '../../../src/core/errors';

function node(nodeId: string, parentId: string | null, position: number, content = nodeId): ConversationNode {
  return { nodeId, parentId, position, message: { role: 'user', content }, timestamp: new Date().toISOString(), metadata: {} };
}

const ids = (nodes: readonly ConversationNode[]) => nodes.map((n) => n.nodeId);

describe('node ids', () => {
  it('formats store sequence numbers as short ids, the root as "", and reads them back', () => {
    expect(formatNodeId(0)).toBe(ROOT_NODE_ID);
    expect(ROOT_NODE_ID).toBe('');
    expect(formatNodeId(1)).toBe('n1');
    expect(formatNodeId(35)).toBe('nz');
    expect(formatNodeId(36)).toBe('n10');
    for (const seq of [0, 1, 9, 10, 35, 36, 1295, 1296, 123_456_789]) expect(nodeSeqOf(formatNodeId(seq))).toBe(seq);
    const many = new Set(Array.from({ length: 2000 }, (_, i) => formatNodeId(i)));
    expect(many.size).toBe(2000);
  });

  it('reads nothing but its own ids as sequence numbers', () => {
    for (const other of ['0', '0.1', 'n', 'n0', 'n01', 'N1', 'x1', 'n-1', 'n1.2', ' n1', 'n1 ']) expect(nodeSeqOf(other)).toBeUndefined();
  });

  it('tells dataknobs dot paths from ids and splits them', () => {
    expect(isDotPath('')).toBe(true);
    expect(isDotPath('0')).toBe(true);
    expect(isDotPath('0.10.2')).toBe(true);
    for (const other of ['01', '0.', '.0', 'a.b', '0..1', 'n1', '-1']) expect(isDotPath(other)).toBe(false);
    expect(dotPathSegments('')).toEqual([]);
    expect(dotPathSegments('0.10.2')).toEqual([0, 10, 2]);
  });
});

describe('ConversationTree', () => {
  /**
   *   ""
   *   ├─ a (pos 0)
   *   │  ├─ b (pos 0)
   *   │  │  └─ d (pos 0)
   *   │  └─ c (pos 5)       (positions 1–4 were deleted siblings)
   *   └─ e (pos 3)
   */
  function sampleNodes(): ConversationNode[] {
    return [node('', null, 0), node('a', '', 0), node('b', 'a', 0), node('c', 'a', 5), node('d', 'b', 0), node('e', '', 3)];
  }

  it('builds the same tree from nodes given in any order, children before parents included', () => {
    const inOrder = new ConversationTree(sampleNodes());
    const orders = [[...sampleNodes()].reverse(), [3, 4, 5, 0, 2, 1].map((i) => sampleNodes()[i]), [4, 2, 3, 1, 5, 0].map((i) => sampleNodes()[i])];
    for (const nodes of orders) {
      const tree = new ConversationTree(nodes);
      expect(tree.size).toBe(6);
      expect(ids(tree.subtree(''))).toEqual(ids(inOrder.subtree('')));
      expect(ids(tree.children('a'))).toEqual(['b', 'c']);
      expect(ids(tree.children(''))).toEqual(['a', 'e']);
      expect(tree.depth('d')).toBe(3);
    }
  });

  it('answers paths, children, depths and subtrees', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(tree.root.nodeId).toBe(ROOT_NODE_ID);
    expect(ids(tree.path('d'))).toEqual(['', 'a', 'b', 'd']);
    expect(ids(tree.path(''))).toEqual(['']);
    expect(ids(tree.children('a'))).toEqual(['b', 'c']);
    expect(ids(tree.children('d'))).toEqual([]);
    expect(ids(tree.subtree('a'))).toEqual(['a', 'b', 'd', 'c']);
    expect(ids(tree.subtree(''))).toEqual(['', 'a', 'b', 'd', 'c', 'e']);
    expect([tree.depth(''), tree.depth('a'), tree.depth('c'), tree.depth('d')]).toEqual([0, 1, 2, 3]);
    expect(tree.get('c').parentId).toBe('a');
    expect(tree.has('c')).toBe(true);
    expect(tree.has('z')).toBe(false);
    expect(ids(tree.all()).sort()).toEqual(['', 'a', 'b', 'c', 'd', 'e']);
  });

  it('orders siblings by position, numerically, whatever the ids and the order they arrive in', () => {
    // Ids that sort the other way as text, positions with gaps, added in a scrambled order.
    const positions = [12, 0, 7, 2, 30, 10, 1, 9];
    const nodes = [node('', null, 0), ...positions.map((p, i) => node(`z${9 - i}`, '', p))];
    const tree = new ConversationTree(nodes);
    expect(tree.children('').map((n) => n.position)).toEqual([0, 1, 2, 7, 9, 10, 12, 30]);
    // Adding later keeps the order too, also between existing siblings.
    tree.add(node('late', '', 8));
    tree.add(node('last', '', 31));
    expect(tree.children('').map((n) => n.position)).toEqual([0, 1, 2, 7, 8, 9, 10, 12, 30, 31]);
    expect(tree.siblingIndex('late')).toBe(4);
    expect(tree.siblingIndex('last')).toBe(9);
    expect(tree.siblingIndex('')).toBe(0);
  });

  it('tells ancestors from non-ancestors, also at the same depth and across branches', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(tree.isSelfOrAncestor('', 'd')).toBe(true);
    expect(tree.isSelfOrAncestor('a', 'd')).toBe(true);
    expect(tree.isSelfOrAncestor('b', 'd')).toBe(true);
    expect(tree.isSelfOrAncestor('d', 'd')).toBe(true);
    expect(tree.isSelfOrAncestor('', '')).toBe(true);
    // Same depth, different nodes.
    expect(tree.isSelfOrAncestor('b', 'c')).toBe(false);
    expect(tree.isSelfOrAncestor('a', 'e')).toBe(false);
    // A node on another branch, shallower than the node.
    expect(tree.isSelfOrAncestor('c', 'd')).toBe(false);
    expect(tree.isSelfOrAncestor('e', 'd')).toBe(false);
    // Descendants are not ancestors.
    expect(tree.isSelfOrAncestor('d', 'a')).toBe(false);
    expect(tree.isSelfOrAncestor('a', '')).toBe(false);
    // Unknown ids are nobody's ancestors and have none.
    expect(tree.isSelfOrAncestor('zz', 'd')).toBe(false);
    expect(tree.isSelfOrAncestor('', 'zz')).toBe(false);
  });

  it('computes dataknobs dot paths from sibling indexes (not positions) and finds nodes by them', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(tree.dotPath('')).toBe('');
    expect(tree.dotPath('a')).toBe('0');
    expect(tree.dotPath('b')).toBe('0.0');
    expect(tree.dotPath('d')).toBe('0.0.0');
    // c has position 5 and e position 3, but they are the second children of their parents.
    expect(tree.dotPath('c')).toBe('0.1');
    expect(tree.dotPath('e')).toBe('1');
    for (const n of tree.all()) expect(tree.findByDotPath(tree.dotPath(n.nodeId))?.nodeId).toBe(n.nodeId);
    expect(tree.findByDotPath('0.2')).toBeUndefined();
    expect(tree.findByDotPath('2')).toBeUndefined();
    expect(tree.findByDotPath('0.0.0.0')).toBeUndefined();
    expect(tree.findByDotPath('n1')).toBeUndefined();
    expect(tree.findByDotPath('0.')).toBeUndefined();
    expect(() => tree.dotPath('zz')).toThrow(NodeNotFoundError);
    // Removing a sibling renumbers the dot paths after it; ids stay.
    tree.removeSubtree('b');
    expect(tree.dotPath('c')).toBe('0.0');
    expect(tree.findByDotPath('0.0')?.nodeId).toBe('c');
    expect(tree.findByDotPath('0.1')).toBeUndefined();
  });

  it('resolves only its own ids when the conversation has no legacy ids', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(tree.legacyIdLimit).toBeUndefined();
    expect(tree.resolve('c')?.nodeId).toBe('c');
    expect(tree.resolve('')?.nodeId).toBe('');
    expect(tree.resolve('0')).toBeUndefined();
    expect(tree.resolve('0.0')).toBeUndefined();
    expect(tree.resolve('nope')).toBeUndefined();
  });

  it('resolves old dot-path ids of a migrated conversation by stored position, below the legacy limit only', () => {
    // Migrated from 1.x: old ids "0", "0.0", "0.2" ("0.1" was deleted), "1"; limit 3. Nodes added
    // after the migration got positions from the counter (>= 3).
    const tree = new ConversationTree(
      [
        node('', null, 0),
        node('n1', '', 0),
        node('n2', '', 1),
        node('n3', 'n1', 0),
        node('n4', 'n1', 2),
        node('n5', 'n1', 3),
        node('n6', '', 6),
        node('n7', 'n3', 7),
      ],
      3,
    );
    expect(tree.legacyIdLimit).toBe(3);
    expect(tree.resolve('0')?.nodeId).toBe('n1');
    expect(tree.resolve('1')?.nodeId).toBe('n2');
    expect(tree.resolve('0.0')?.nodeId).toBe('n3');
    expect(tree.resolve('0.2')?.nodeId).toBe('n4');
    // The deleted "0.1" names nothing, although "0.1" is now n4's dot path.
    expect(tree.dotPath('n4')).toBe('0.1');
    expect(tree.resolve('0.1')).toBeUndefined();
    // Positions at or past the limit belong to new nodes: never reachable by an old id.
    expect(tree.resolve('0.3')).toBeUndefined();
    expect(tree.resolve('6')).toBeUndefined();
    expect(tree.resolve('0.0.7')).toBeUndefined();
    // n6's dot path is "2" and n7's "0.0.0": neither resolves as a legacy id either.
    expect(tree.dotPath('n6')).toBe('2');
    expect(tree.resolve('2')).toBeUndefined();
    expect(tree.dotPath('n7')).toBe('0.0.0');
    expect(tree.resolve('0.0.0')).toBeUndefined();
    // Own ids still resolve directly, the root too; things that are neither do not.
    expect(tree.resolve('n7')?.nodeId).toBe('n7');
    expect(tree.resolve('')?.nodeId).toBe('');
    expect(tree.resolve('0.x')).toBeUndefined();
    expect(tree.resolve('9.9')).toBeUndefined();
  });

  it('replaces a node in place, keeping its sibling order', () => {
    const tree = new ConversationTree(sampleNodes());
    tree.replace({ ...tree.get('b'), branchName: 'renamed' });
    expect(tree.get('b').branchName).toBe('renamed');
    expect(tree.children('a')[0].branchName).toBe('renamed');
    expect(ids(tree.children('a'))).toEqual(['b', 'c']);
    tree.replace({ ...tree.root, message: { role: 'system', content: 'new root' } });
    expect(tree.root.message.content).toBe('new root');
    expect(() => tree.replace(node('zz', 'a', 9))).toThrow(NodeNotFoundError);
  });

  it('removes a subtree with everything below it and returns the removed ids', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(tree.removeSubtree('a').sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(tree.size).toBe(2);
    for (const gone of ['a', 'b', 'c', 'd']) {
      expect(tree.has(gone)).toBe(false);
      expect(() => tree.depth(gone)).toThrow(NodeNotFoundError);
    }
    expect(ids(tree.children(''))).toEqual(['e']);
    expect(ids(tree.children('a'))).toEqual([]);
    // The tree accepts a new child where the old ones were.
    tree.add(node('f', '', 9));
    expect(ids(tree.children(''))).toEqual(['e', 'f']);
    expect(tree.dotPath('f')).toBe('1');
  });

  it('rejects orphans, duplicates, a second root, unknown ids and removing the root', () => {
    const tree = new ConversationTree(sampleNodes());
    expect(() => tree.add(node('x', 'missing', 0))).toThrow(/no parent "missing"/);
    expect(() => tree.add(node('a', '', 9))).toThrow(/already exists/);
    expect(() => tree.add(node('', null, 0))).toThrow(InvalidArgumentError);
    expect(() => tree.add(node('other-root', null, 0))).toThrow(/only the root/);
    expect(() => tree.get('9')).toThrow(NodeNotFoundError);
    expect(() => tree.path('9')).toThrow(NodeNotFoundError);
    expect(() => tree.subtree('9')).toThrow(NodeNotFoundError);
    expect(() => tree.siblingIndex('9')).toThrow(NodeNotFoundError);
    expect(() => tree.removeSubtree('9')).toThrow(NodeNotFoundError);
    expect(() => tree.removeSubtree('')).toThrow(InvalidArgumentError);
    expect(tree.size).toBe(6);
    // The constructor refuses a node whose parent is not among the nodes, and a duplicate id.
    expect(() => new ConversationTree([node('', null, 0), node('a', '', 0), node('b', 'gone', 0)])).toThrow(/no parent "gone"/);
    expect(() => new ConversationTree([node('', null, 0), node('a', '', 0), node('a', '', 1)])).toThrow(/already exists/);
    expect(() => new ConversationTree([node('', null, 0), node('r2', null, 0)])).toThrow(InvalidArgumentError);
    // No root at all: every node waits for a parent that never comes.
    expect(() => new ConversationTree([node('a', 'b', 0), node('b', 'a', 0)])).toThrow(InvalidArgumentError);
  });
});
