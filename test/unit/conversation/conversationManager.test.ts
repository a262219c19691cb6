import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import type { ConversationChangeEvent } from '../../../src/core/conversation/managerTypes';
import { ConversationNotFoundError, InvalidArgumentError, InvalidOperationError, NodeNotFoundError } from '../../../src/core/errors';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';

// Nothing in this file calls the model; the provider only fills the required option.
const llm = new OpenAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'unused', maxRetries: 0 });

let dir: string;
let storage: SqlJsConversationStorage;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-manager-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
});

afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

const ids = (m: ConversationManager) => m.getAllNodes().map((n) => n.nodeId).sort();

describe('ConversationManager: creating and resuming', () => {
  it('creates a conversation with the system prompt in the root and saves it', async () => {
    const m = await ConversationManager.create({ llm, storage, systemPrompt: 'Be brief.', metadata: { title: 't' }, conversationId: 'c1' });
    expect(m.conversationId).toBe('c1');
    expect(m.currentNodeId).toBe('');
    expect(m.getNode('').message).toEqual({ role: 'system', content: 'Be brief.' });
    expect(m.getHistory()).toEqual([{ role: 'system', content: 'Be brief.' }]);
    const stored = await storage.loadConversation('c1');
    expect(stored?.nodes).toHaveLength(1);
    expect(stored?.metadata).toEqual({ title: 't' });
  });

  it('without a system prompt keeps an empty root that is never part of the history', async () => {
    const m = await ConversationManager.create({ llm, storage });
    expect(m.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    const hi = await m.addMessage({ role: 'user', content: 'hi' });
    expect(m.getHistory()).toEqual([{ role: 'user', content: 'hi' }]);
    expect(hi.nodeId).not.toBe('');
    expect(m.getCurrentNodes().map((n) => n.nodeId)).toEqual(['', hi.nodeId]);
    expect(m.getNode('').message).toEqual({ role: 'system', content: '' });
  });

  it('refuses bad context-window limits before anything is stored', async () => {
    await expect(ConversationManager.create({ llm, storage, conversationId: 'bad', maxHistory: -2 })).rejects.toThrow(/maxHistory/);
    expect(await storage.loadConversation('bad')).toBeNull();
  });

  it('refuses to create over an existing id, and to resume an unknown one', async () => {
    await ConversationManager.create({ llm, storage, conversationId: 'dup' });
    await expect(ConversationManager.create({ llm, storage, conversationId: 'dup' })).rejects.toThrow(InvalidOperationError);
    await expect(ConversationManager.resume('nope', { llm, storage })).rejects.toThrow(ConversationNotFoundError);
  });

  it('resumes the same tree and current node after the store is closed and reopened', async () => {
    const m = await ConversationManager.create({ llm, storage, conversationId: 'c2' });
    const one = await m.addMessage({ role: 'user', content: 'one' });
    const two = await m.addMessage({ role: 'assistant', content: 'two' });
    await m.branchFrom(two.nodeId);
    const three = await m.addMessage({ role: 'assistant', content: 'three' });
    await m.renameBranch(three.nodeId, 'alt');
    await m.setMetadata('title', 'kept');
    await storage.close();
    storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    const again = await ConversationManager.resume('c2', { llm, storage });
    expect(again.currentNodeId).toBe(three.nodeId);
    expect(again.getAllNodes()).toEqual(m.getAllNodes());
    expect(again.getNode(three.nodeId).branchName).toBe('alt');
    expect(again.getChildren(one.nodeId).map((n) => n.nodeId)).toEqual([two.nodeId, three.nodeId]);
    expect(again.getDotPath(three.nodeId)).toBe('0.1');
    expect(again.getMetadata('title')).toBe('kept');
  });
});

describe('ConversationManager: messages and branches', () => {
  it('adds children in creation order (dot paths by sibling index) and lets the first message get siblings', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const first = await m.addMessage({ role: 'user', content: 'a' });
    expect(first.parentId).toBe('');
    expect(m.currentNodeId).toBe(first.nodeId);
    expect(m.getDotPath(first.nodeId)).toBe('0');
    const answer = await m.addMessage({ role: 'assistant', content: 'b' });
    expect(answer.parentId).toBe(first.nodeId);
    expect(m.currentNodeId).toBe(answer.nodeId);
    expect(m.getDotPath(answer.nodeId)).toBe('0.0');
    await m.branchFrom(first.nodeId);
    expect(m.currentNodeId).toBe('');
    const sibling = await m.addMessage({ role: 'user', content: 'a2' });
    expect(sibling.parentId).toBe('');
    expect(sibling.position).toBeGreaterThan(first.position);
    expect(m.getDotPath(sibling.nodeId)).toBe('1');
    expect(new Set(['', first.nodeId, answer.nodeId, sibling.nodeId]).size).toBe(4);
    expect(m.getBranches('').map((b) => [b.nodeId, b.preview])).toEqual([[first.nodeId, 'a'], [sibling.nodeId, 'a2']]);
    expect(m.getHistory()).toEqual([{ role: 'user', content: 'a2' }]);
  });

  it('answers paths, children, ancestry and dot paths, and finds nodes by dot path', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    const b = await m.addMessage({ role: 'assistant', content: 'b' });
    await m.branchFrom(b.nodeId);
    const c = await m.addMessage({ role: 'assistant', content: 'c' });
    const d = await m.addMessage({ role: 'user', content: 'd' });
    expect(m.getPath(d.nodeId).map((n) => n.nodeId)).toEqual(['', a.nodeId, c.nodeId, d.nodeId]);
    expect(m.getPath('').map((n) => n.nodeId)).toEqual(['']);
    expect(m.getChildren(a.nodeId).map((n) => n.message.content)).toEqual(['b', 'c']);
    expect(m.getChildren(d.nodeId)).toEqual([]);
    expect(m.hasNode(c.nodeId)).toBe(true);
    expect(m.hasNode('')).toBe(true);
    expect(m.hasNode('n999')).toBe(false);
    // Dot paths are not ids in a conversation made by this version.
    expect(m.hasNode('0')).toBe(false);
    expect(m.isSelfOrAncestor(a.nodeId, d.nodeId)).toBe(true);
    expect(m.isSelfOrAncestor('', d.nodeId)).toBe(true);
    expect(m.isSelfOrAncestor(d.nodeId, d.nodeId)).toBe(true);
    expect(m.isSelfOrAncestor(b.nodeId, d.nodeId)).toBe(false);
    expect(m.isSelfOrAncestor(b.nodeId, c.nodeId)).toBe(false);
    expect(m.isSelfOrAncestor(d.nodeId, a.nodeId)).toBe(false);
    expect(m.isSelfOrAncestor('n999', d.nodeId)).toBe(false);
    expect([a, b, c, d].map((n) => m.getDotPath(n.nodeId))).toEqual(['0', '0.0', '0.1', '0.1.0']);
    expect(m.getDotPath('')).toBe('');
    expect(m.getNodeByDotPath('0.1.0')?.nodeId).toBe(d.nodeId);
    expect(m.getNodeByDotPath('')?.nodeId).toBe('');
    expect(m.getNodeByDotPath('0.2')).toBeUndefined();
    expect(m.getNodeByDotPath(d.nodeId)).toBeUndefined();
    // Returned nodes are copies.
    const byPath = m.getNodeByDotPath('0') as { message: { content: string } };
    byPath.message.content = 'changed';
    m.getChildren(a.nodeId)[0].message.content = 'changed';
    m.getPath(d.nodeId)[1].metadata.x = 1;
    expect(m.getNode(a.nodeId).message.content).toBe('a');
    expect(m.getNode(b.nodeId).message.content).toBe('b');
    expect(m.getNode(a.nodeId).metadata).toEqual({});
    expect(() => m.getPath('n999')).toThrow(NodeNotFoundError);
    expect(() => m.getChildren('n999')).toThrow(NodeNotFoundError);
    expect(() => m.getDotPath('0.1')).toThrow(NodeNotFoundError);
  });

  it('in a conversation migrated from 1.x, takes an old dot-path id wherever it takes an id', async () => {
    const t = (s: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, s)).toISOString();
    const at = (nodeId: string, parentId: string | null, position: number, content: string, s: number) => ({
      nodeId,
      parentId,
      position,
      message: { role: (parentId === null ? 'system' : 'user') as 'system' | 'user', content },
      timestamp: t(s),
      metadata: {},
    });
    // As the migration stores it: old ids "0", "0.0", "0.2" ("0.1" was deleted in 1.x), limit 3.
    await storage.saveConversation({
      conversationId: 'migrated',
      nodes: [at('', null, 0, '', 0), at('n1', '', 0, 'old 0', 1), at('n2', 'n1', 0, 'old 0.0', 2), at('n3', 'n1', 2, 'old 0.2', 3)],
      currentNodeId: 'n2',
      metadata: {},
      nextNodeSeq: 3,
      legacyIdLimit: 3,
      createdAt: t(0),
      updatedAt: t(3),
    });
    const m = await ConversationManager.resume('migrated', { llm, storage });
    expect(m.getNode('0.2').message.content).toBe('old 0.2');
    expect(m.getNode('0.2').nodeId).toBe('n3');
    expect(m.hasNode('0.0')).toBe(true);
    expect(m.hasNode('0.1')).toBe(false);
    expect(m.getDotPath('0.2')).toBe('0.1');
    expect(m.getPath('0.2').map((n) => n.nodeId)).toEqual(['', 'n1', 'n3']);
    expect(m.getChildren('0').map((n) => n.nodeId)).toEqual(['n2', 'n3']);
    expect(m.isSelfOrAncestor('0', '0.2')).toBe(true);
    expect(m.isSelfOrAncestor('0.0', '0.2')).toBe(false);
    await m.switchToNode('0.2');
    expect(m.currentNodeId).toBe('n3');
    expect((await storage.loadConversation('migrated'))?.currentNodeId).toBe('n3');
    // A node added now gets a new id, and its dot path is not an old id.
    const added = await m.addMessage({ role: 'assistant', content: 'new' });
    expect(['', 'n1', 'n2', 'n3']).not.toContain(added.nodeId);
    expect(added.position).toBeGreaterThanOrEqual(3);
    expect(m.getDotPath(added.nodeId)).toBe('0.1.0');
    expect(m.hasNode('0.2.0')).toBe(false);
    await m.renameBranch('0.2', 'kept');
    expect(m.getNode('n3').branchName).toBe('kept');
    await m.branchFrom('0.0');
    expect(m.currentNodeId).toBe('n1');
    expect(m.toState().legacyIdLimit).toBe(3);
    await m.deleteBranch('0.2');
    expect(m.hasNode('n3')).toBe(false);
    expect(m.hasNode(added.nodeId)).toBe(false);
    await expect(m.switchToNode('0.1')).rejects.toThrow(NodeNotFoundError);
  });

  it('stores tool messages and assistant tool calls as given', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await m.addMessage({ role: 'user', content: 'go' });
    const toolCalls = [{ id: 'c1', type: 'function' as const, function: { name: 'ls', arguments: '{}' } }];
    await m.addMessage({ role: 'assistant', content: '', toolCalls });
    const tool = await m.addMessage({ role: 'tool', content: 'a.ts', toolCallId: 'c1', name: 'ls', metadata: { ms: 3 } });
    expect(tool.message).toEqual({ role: 'tool', content: 'a.ts', toolCallId: 'c1', name: 'ls' });
    expect(tool.metadata).toEqual({ ms: 3 });
    expect(m.getHistory()[1].toolCalls).toEqual(toolCalls);
  });

  it('rejects a message with neither content nor promptName, and a promptName without a builder', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await expect(m.addMessage({ role: 'user' })).rejects.toThrow(InvalidArgumentError);
    await expect(m.addMessage({ role: 'user', promptName: 'x' })).rejects.toThrow(/without a promptBuilder/);
    await expect(m.addMessage({ role: 'assistant', promptName: 'x' })).rejects.toThrow(InvalidArgumentError);
    expect(m.getAllNodes()).toHaveLength(1);
  });

  it('lists branches with a 100-character preview, name, role and time', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const first = await m.addMessage({ role: 'user', content: 'x'.repeat(150) });
    await m.renameBranch(first.nodeId, 'main');
    const [branch] = m.getBranches('');
    expect(branch.preview).toHaveLength(100);
    expect(branch.branchName).toBe('main');
    expect(branch.role).toBe('user');
    expect(Date.parse(branch.timestamp)).not.toBeNaN();
    expect(m.getBranches()).toEqual([]);
    expect(branch.nodeId).toBe(first.nodeId);
    await m.renameBranch(first.nodeId, '');
    expect(m.getNode(first.nodeId).branchName).toBeUndefined();
  });

  it('switches to any node and refuses unknown ids and branching from the root', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.switchToNode(a.nodeId);
    expect(m.currentNodeId).toBe(a.nodeId);
    expect((await storage.loadConversation(m.conversationId))?.currentNodeId).toBe(a.nodeId);
    await expect(m.switchToNode('n7')).rejects.toThrow(NodeNotFoundError);
    // A dot path is not an id here (the conversation was not migrated from 1.x).
    await expect(m.switchToNode('0')).rejects.toThrow(NodeNotFoundError);
    expect(m.currentNodeId).toBe(a.nodeId);
    await expect(m.branchFrom('')).rejects.toThrow(InvalidOperationError);
    await expect(m.branchFrom('n9')).rejects.toThrow(NodeNotFoundError);
    expect(() => m.getNode('n5')).toThrow(NodeNotFoundError);
    expect(() => m.getBranches('n5')).toThrow(NodeNotFoundError);
  });

  it('deletes a subtree, moves off it, and never gives its ids again', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    const b = await m.addMessage({ role: 'assistant', content: 'b' });
    const c = await m.addMessage({ role: 'user', content: 'c' });
    expect(m.currentNodeId).toBe(c.nodeId);
    await m.deleteBranch(b.nodeId);
    expect(m.currentNodeId).toBe(a.nodeId);
    expect(ids(m)).toEqual(['', a.nodeId].sort());
    expect(m.hasNode(b.nodeId)).toBe(false);
    expect(m.hasNode(c.nodeId)).toBe(false);
    const again = await m.addMessage({ role: 'assistant', content: 'b2' });
    expect(m.getDotPath(again.nodeId)).toBe('0.0');
    expect(again.position).toBeGreaterThan(b.position);
    await m.deleteBranch(a.nodeId);
    expect(m.currentNodeId).toBe('');
    const fresh = await m.addMessage({ role: 'user', content: 'fresh' });
    expect(m.getDotPath(fresh.nodeId)).toBe('0');
    await expect(m.deleteBranch('')).rejects.toThrow(InvalidOperationError);
    await expect(m.deleteBranch(a.nodeId)).rejects.toThrow(NodeNotFoundError);
    const stored = await storage.loadConversation(m.conversationId);
    expect(stored?.nodes.map((n) => n.nodeId).sort()).toEqual(['', fresh.nodeId].sort());
    // The store's counter survives a reopen, so no id is given twice.
    const resumed = await ConversationManager.resume(m.conversationId, { llm, storage });
    await resumed.switchToNode('');
    const z = await resumed.addMessage({ role: 'user', content: 'z' });
    const given = [a, b, c, again, fresh, z].map((n) => n.nodeId);
    expect(new Set(given).size).toBe(given.length);
    expect(given).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
    expect(resumed.getBranches('').map((x) => x.nodeId)).toEqual([fresh.nodeId, z.nodeId]);
  });

  it('keeps the current node when a branch beside it is deleted', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    await m.branchFrom(a.nodeId);
    const b = await m.addMessage({ role: 'user', content: 'b' });
    await m.deleteBranch(a.nodeId);
    expect(m.currentNodeId).toBe(b.nodeId);
    expect((await storage.loadConversation(m.conversationId))?.currentNodeId).toBe(b.nodeId);
  });

  it('orders getAllNodes by time across branches', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.branchFrom(a.nodeId);
    await m.addMessage({ role: 'user', content: 'c' });
    const all = m.getAllNodes();
    expect(all.map((n) => n.message.content)).toEqual(['', 'a', 'b', 'c']);
    for (let i = 1; i < all.length; i++) expect(all[i].timestamp >= all[i - 1].timestamp).toBe(true);
  });

  it('hands out copies: changing a returned node changes nothing', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const node = await m.addMessage({ role: 'user', content: 'a' });
    node.message.content = 'changed';
    m.getNode(node.nodeId).metadata.x = 1;
    m.getCurrentNodes()[1].message.content = 'changed too';
    expect(m.getNode(node.nodeId).message.content).toBe('a');
    expect(m.getNode(node.nodeId).metadata).toEqual({});
  });

  it('runs concurrent calls one after another', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const nodes = await Promise.all([
      m.addMessage({ role: 'user', content: '1' }),
      m.addMessage({ role: 'assistant', content: '2' }),
      m.addMessage({ role: 'user', content: '3' }),
      m.setMetadata('k', 'v'),
    ]);
    const added = nodes.slice(0, 3).map((n) => (n as { nodeId: string }).nodeId);
    expect(added.map((id) => m.getDotPath(id))).toEqual(['0', '0.0', '0.0.0']);
    expect(m.getCurrentNodes().map((n) => n.message.content)).toEqual(['', '1', '2', '3']);
    const stored = await storage.loadConversation(m.conversationId);
    expect(stored?.nodes).toHaveLength(4);
    expect(stored?.currentNodeId).toBe(added[2]);
    expect(stored?.metadata).toEqual({ k: 'v' });
  });
});

describe('ConversationManager: metadata, events, fork', () => {
  it('sets and removes metadata keys and merges records', async () => {
    const m = await ConversationManager.create({ llm, storage, metadata: { a: 1 } });
    await m.setMetadata('b', { deep: true });
    await m.setMetadata({ c: 3, a: undefined });
    expect(m.getMetadata()).toEqual({ b: { deep: true }, c: 3 });
    expect(m.getMetadata('b')).toEqual({ deep: true });
    expect((await storage.loadConversation(m.conversationId))?.metadata).toEqual({ b: { deep: true }, c: 3 });
  });

  it('fires onDidChange after each change, with the state already updated', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const events: Array<ConversationChangeEvent & { seenCurrent: string }> = [];
    const sub = m.onDidChange((e) => events.push({ ...e, seenCurrent: m.currentNodeId }));
    const a = await m.addMessage({ role: 'user', content: 'a' });
    await m.switchToNode('');
    await m.setMetadata('x', 1);
    await m.deleteBranch(a.nodeId);
    sub.dispose();
    await m.addMessage({ role: 'user', content: 'b' });
    expect(events.map((e) => [e.kind, e.nodeIds, e.currentNodeId, e.seenCurrent])).toEqual([
      ['nodeAdded', [a.nodeId], a.nodeId, a.nodeId],
      ['currentChanged', [''], '', ''],
      ['metadataChanged', [], '', ''],
      ['branchDeleted', [a.nodeId], '', ''],
    ]);
  });

  it('forks the whole conversation or the path to one node', async () => {
    const m = await ConversationManager.create({ llm, storage, systemPrompt: 's' });
    const a = await m.addMessage({ role: 'user', content: 'a' });
    const b = await m.addMessage({ role: 'assistant', content: 'b' });
    await m.branchFrom(b.nodeId);
    const c = await m.addMessage({ role: 'assistant', content: 'c' });
    const whole = await m.fork('copy-all');
    expect(whole.conversationId).toBe('copy-all');
    expect(ids(whole)).toEqual(ids(m));
    expect(whole.getAllNodes()).toEqual(m.getAllNodes());
    expect(whole.currentNodeId).toBe(c.nodeId);
    const part = await m.fork('copy-part', { upToNodeId: b.nodeId });
    expect(ids(part)).toEqual(['', a.nodeId, b.nodeId].sort());
    expect(part.currentNodeId).toBe(b.nodeId);
    const more = await part.addMessage({ role: 'user', content: 'more' });
    expect(part.getDotPath(more.nodeId)).toBe('0.0.0');
    expect(ids(m)).toEqual(['', a.nodeId, b.nodeId, c.nodeId].sort());
    await expect(m.fork('x', { upToNodeId: 'n9' })).rejects.toThrow(NodeNotFoundError);
    const auto = await m.fork();
    expect(auto.conversationId).not.toBe(m.conversationId);
  });
});

describe('ConversationManager: two windows on one store', () => {
  it('reload picks up what another window wrote, so ids are never handed out twice', async () => {
    const a = await ConversationManager.create({ llm, storage, conversationId: 'shared' });
    const fromA = await a.addMessage({ role: 'user', content: 'from a' });
    const other = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const b = await ConversationManager.resume('shared', { llm, storage: other });
      await b.switchToNode('');
      const fromB = await b.addMessage({ role: 'user', content: 'from b' });
      expect(b.currentNodeId).toBe(fromB.nodeId);
      expect(fromB.nodeId).not.toBe(fromA.nodeId);
      const events: string[] = [];
      a.onDidChange((e) => events.push(e.kind));
      await a.reload();
      expect(events).toEqual(['reloaded']);
      expect(a.getBranches('').map((x) => x.preview)).toEqual(['from a', 'from b']);
      expect(a.currentNodeId).toBe(fromB.nodeId);
      await a.switchToNode('');
      const again = await a.addMessage({ role: 'user', content: 'a again' });
      expect([fromA.nodeId, fromB.nodeId]).not.toContain(again.nodeId);
      // Nothing changed since: a second reload is a no-op.
      await a.reload();
      expect(events).toEqual(['reloaded', 'currentChanged', 'nodeAdded']);
      await other.deleteConversation('shared');
      await expect(a.reload()).rejects.toThrow(ConversationNotFoundError);
    } finally {
      await other.close();
    }
  });

  it('a window that deletes a branch another window has added to leaves no orphans behind', async () => {
    const a = await ConversationManager.create({ llm, storage, conversationId: 'pruned' });
    const q = await a.addMessage({ role: 'user', content: 'q' });
    const other = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const b = await ConversationManager.resume('pruned', { llm, storage: other });
      await b.addMessage({ role: 'assistant', content: 'answered in b' });
      // a has not reloaded: it does not know b's answer below q.
      await a.deleteBranch(q.nodeId);
      const stored = await storage.loadConversation('pruned');
      const ids = new Set(stored?.nodes.map((n) => n.nodeId));
      expect(stored?.nodes.filter((n) => n.parentId !== null && !ids.has(n.parentId)).map((n) => n.message.content)).toEqual([]);
      expect(stored?.nodes.map((n) => n.message.content)).toEqual(['']);
      // The conversation still opens, in both windows.
      const again = await ConversationManager.resume('pruned', { llm, storage });
      expect(again.getAllNodes().map((n) => n.nodeId)).toEqual(['']);
      await b.reload();
      expect(b.getAllNodes().map((n) => n.nodeId)).toEqual(['']);
    } finally {
      await other.close();
    }
  });

  it('two windows adding without a reload still get distinct ids from the store', async () => {
    const a = await ConversationManager.create({ llm, storage, conversationId: 'racing' });
    const other = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const b = await ConversationManager.resume('racing', { llm, storage: other });
      const fromA = await a.addMessage({ role: 'user', content: 'from a' });
      // b has not seen a's node and adds under the root too.
      const fromB = await b.addMessage({ role: 'user', content: 'from b' });
      const fromA2 = await a.addMessage({ role: 'assistant', content: 'a answers' });
      expect(new Set([fromA.nodeId, fromB.nodeId, fromA2.nodeId]).size).toBe(3);
      expect(fromB.position).toBeGreaterThan(fromA.position);
      const stored = await storage.loadConversation('racing');
      expect(stored?.nodes.map((n) => n.message.content).sort()).toEqual(['', 'a answers', 'from a', 'from b']);
      await b.reload();
      expect(b.getBranches('').map((x) => x.preview)).toEqual(['from a', 'from b']);
      expect(b.getPath(fromA2.nodeId).map((n) => n.nodeId)).toEqual(['', fromA.nodeId, fromA2.nodeId]);
    } finally {
      await other.close();
    }
  });
});

