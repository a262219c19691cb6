import { describe, expect, it } from 'vitest';
import {
  ConversationTree,
  ROOT_NODE_ID,
  childIdOf,
  childIndexOf,
  compareNodeIds,
  isSelfOrAncestor,
  isValidNodeId,
  parentIdOf,
} from '../../../src/core/conversation/conversationTree';
import type { ConversationNode } from '../../../src/core/types';
import { InvalidArgumentError, NodeNotFoundError } from '../../../src/core/errors';

function node(nodeId: string, content = nodeId): ConversationNode {
  return { nodeId, parentId: parentIdOf(nodeId), message: { role: 'user', content }, timestamp: new Date().toISOString(), metadata: {} };
}

describe('node id helpers', () => {
  it('derives parents, children and indexes of dot paths', () => {
    expect(parentIdOf('')).toBeNull();
    expect(parentIdOf('0')).toBe('');
    expect(parentIdOf('3.1.12')).toBe('3.1');
    expect(childIdOf('', 0)).toBe('0');
    expect(childIdOf('0.1', 2)).toBe('0.1.2');
    expect(childIndexOf('0.1.12')).toBe(12);
    expect(childIndexOf('')).toBe(-1);
  });

  it('orders ids as the tree does', () => {
    const sorted = ['0.10', '1', '', '0.9', '0', '0.9.0'].sort(compareNodeIds);
    expect(sorted).toEqual(['', '0', '0.9', '0.9.0', '0.10', '1']);
  });

  it('validates ids and ancestry', () => {
    expect(isValidNodeId('')).toBe(true);
    expect(isValidNodeId('0.10.2')).toBe(true);
    expect(isValidNodeId('01')).toBe(false);
    expect(isValidNodeId('a.b')).toBe(false);
    expect(isValidNodeId('0.')).toBe(false);
    expect(isSelfOrAncestor('0', '0.1')).toBe(true);
    expect(isSelfOrAncestor('0', '0')).toBe(true);
    expect(isSelfOrAncestor('0', '01')).toBe(false);
    expect(isSelfOrAncestor('1', '10.2')).toBe(false);
    expect(isSelfOrAncestor('', '5.5')).toBe(true);
  });
});

describe('ConversationTree', () => {
  function sample(): ConversationTree {
    // Deliberately out of order: the constructor places parents first.
    return new ConversationTree([node('0.1'), node(''), node('0'), node('0.0'), node('1'), node('0.0.0')]);
  }

  it('answers paths, children and subtrees', () => {
    const tree = sample();
    expect(tree.path('0.0.0').map((n) => n.nodeId)).toEqual(['', '0', '0.0', '0.0.0']);
    expect(tree.children('').map((n) => n.nodeId)).toEqual(['0', '1']);
    expect(tree.children('0').map((n) => n.nodeId)).toEqual(['0.0', '0.1']);
    expect(tree.subtree('0').map((n) => n.nodeId)).toEqual(['0', '0.0', '0.0.0', '0.1']);
    expect(tree.get('0.1').parentId).toBe('0');
    expect(tree.root.nodeId).toBe(ROOT_NODE_ID);
  });

  it('orders children numerically, not as text', () => {
    const nodes = [node('')];
    for (let i = 0; i < 12; i++) nodes.push(node(String(i)));
    const tree = new ConversationTree(nodes);
    expect(tree.children('').map((n) => n.nodeId).slice(-3)).toEqual(['9', '10', '11']);
    expect(tree.nextChildId('')).toBe('12');
  });

  it('never reuses an id after a subtree is removed', () => {
    const tree = sample();
    expect(tree.nextChildId('0')).toBe('0.2');
    const removed = tree.removeSubtree('0.1');
    expect(removed).toEqual(['0.1']);
    expect(tree.nextChildId('0')).toBe('0.2');
    tree.add(node('0.2'));
    tree.removeSubtree('0.2');
    expect(tree.nextChildId('0')).toBe('0.3');
    // Removing the highest child of the root keeps its index taken too.
    tree.removeSubtree('1');
    expect(tree.nextChildId('')).toBe('2');
    expect(tree.tombstones).toEqual(['0.1', '0.2', '1']);
  });

  it('drops tombstones covered by a removed ancestor', () => {
    const tree = sample();
    tree.removeSubtree('0.0.0');
    expect(tree.tombstonesAfterRemoving('0')).toEqual(['0']);
    expect(tree.tombstones).toEqual(['0.0.0']);
    tree.removeSubtree('0');
    expect(tree.tombstones).toEqual(['0']);
    expect(tree.has('0.1')).toBe(false);
    expect(tree.children('').map((n) => n.nodeId)).toEqual(['1']);
    expect(tree.nextChildId('')).toBe('2');
  });

  it('counts tombstones given at construction', () => {
    const tree = new ConversationTree([node(''), node('0')], ['3', '0.4']);
    expect(tree.nextChildId('')).toBe('4');
    expect(tree.nextChildId('0')).toBe('0.5');
  });

  it('rejects bad ids, orphans, duplicates, unknown ids and removing the root', () => {
    const tree = sample();
    expect(() => tree.add(node('x'))).toThrow(InvalidArgumentError);
    expect(() => tree.add(node('7.0'))).toThrow(/no parent "7"/);
    expect(() => tree.add(node('0'))).toThrow(/already exists/);
    expect(() => tree.get('9')).toThrow(NodeNotFoundError);
    expect(() => tree.removeSubtree('')).toThrow(InvalidArgumentError);
  });
});
