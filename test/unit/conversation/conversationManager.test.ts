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
    await m.addMessage({ role: 'user', content: 'hi' });
    expect(m.getHistory()).toEqual([{ role: 'user', content: 'hi' }]);
    expect(m.getCurrentNodes().map((n) => n.nodeId)).toEqual(['', '0']);
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
    await m.addMessage({ role: 'user', content: 'one' });
    await m.addMessage({ role: 'assistant', content: 'two' });
    await m.branchFrom('0.0');
    await m.addMessage({ role: 'assistant', content: 'three' });
    await m.renameBranch('0.1', 'alt');
    await m.setMetadata('title', 'kept');
    await storage.close();
    storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    const again = await ConversationManager.resume('c2', { llm, storage });
    expect(again.currentNodeId).toBe('0.1');
    expect(again.getAllNodes()).toEqual(m.getAllNodes());
    expect(again.getNode('0.1').branchName).toBe('alt');
    expect(again.getMetadata('title')).toBe('kept');
  });
});

describe('ConversationManager: messages and branches', () => {
  it('numbers children as dot paths and lets the first message get siblings', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const first = await m.addMessage({ role: 'user', content: 'a' });
    expect(first.nodeId).toBe('0');
    expect(first.parentId).toBe('');
    await m.addMessage({ role: 'assistant', content: 'b' });
    expect(m.currentNodeId).toBe('0.0');
    await m.branchFrom('0');
    expect(m.currentNodeId).toBe('');
    const sibling = await m.addMessage({ role: 'user', content: 'a2' });
    expect(sibling.nodeId).toBe('1');
    expect(m.getBranches('').map((b) => [b.nodeId, b.preview])).toEqual([['0', 'a'], ['1', 'a2']]);
    expect(m.getHistory()).toEqual([{ role: 'user', content: 'a2' }]);
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
    await m.addMessage({ role: 'user', content: 'x'.repeat(150) });
    await m.renameBranch('0', 'main');
    const [branch] = m.getBranches('');
    expect(branch.preview).toHaveLength(100);
    expect(branch.branchName).toBe('main');
    expect(branch.role).toBe('user');
    expect(Date.parse(branch.timestamp)).not.toBeNaN();
    expect(m.getBranches()).toEqual([]);
    await m.renameBranch('0', '');
    expect(m.getNode('0').branchName).toBeUndefined();
  });

  it('switches to any node and refuses unknown ids and branching from the root', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.switchToNode('0');
    expect(m.currentNodeId).toBe('0');
    expect((await storage.loadConversation(m.conversationId))?.currentNodeId).toBe('0');
    await expect(m.switchToNode('7')).rejects.toThrow(NodeNotFoundError);
    await expect(m.branchFrom('')).rejects.toThrow(InvalidOperationError);
    await expect(m.branchFrom('9')).rejects.toThrow(NodeNotFoundError);
    expect(() => m.getNode('5')).toThrow(NodeNotFoundError);
    expect(() => m.getBranches('5')).toThrow(NodeNotFoundError);
  });

  it('deletes a subtree, moves off it, and never gives its ids again', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.addMessage({ role: 'user', content: 'c' });
    expect(m.currentNodeId).toBe('0.0.0');
    await m.deleteBranch('0.0');
    expect(m.currentNodeId).toBe('0');
    expect(ids(m)).toEqual(['', '0']);
    const again = await m.addMessage({ role: 'assistant', content: 'b2' });
    expect(again.nodeId).toBe('0.1');
    await m.deleteBranch('0');
    expect(m.currentNodeId).toBe('');
    expect((await m.addMessage({ role: 'user', content: 'fresh' })).nodeId).toBe('1');
    await expect(m.deleteBranch('')).rejects.toThrow(InvalidOperationError);
    await expect(m.deleteBranch('0')).rejects.toThrow(NodeNotFoundError);
    const stored = await storage.loadConversation(m.conversationId);
    expect(stored?.nodes.map((n) => n.nodeId).sort()).toEqual(['', '1']);
    expect(stored?.tombstones).toEqual(['0']);
    // The tombstone survives a reload.
    const resumed = await ConversationManager.resume(m.conversationId, { llm, storage });
    await resumed.switchToNode('');
    expect((await resumed.addMessage({ role: 'user', content: 'z' })).nodeId).toBe('2');
  });

  it('keeps the current node when a branch beside it is deleted', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await m.addMessage({ role: 'user', content: 'a' });
    await m.branchFrom('0');
    await m.addMessage({ role: 'user', content: 'b' });
    await m.deleteBranch('0');
    expect(m.currentNodeId).toBe('1');
  });

  it('orders getAllNodes by time across branches', async () => {
    const m = await ConversationManager.create({ llm, storage });
    await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.branchFrom('0');
    await m.addMessage({ role: 'user', content: 'c' });
    const all = m.getAllNodes();
    expect(all.map((n) => n.message.content)).toEqual(['', 'a', 'b', 'c']);
    for (let i = 1; i < all.length; i++) expect(all[i].timestamp >= all[i - 1].timestamp).toBe(true);
  });

  it('hands out copies: changing a returned node changes nothing', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const node = await m.addMessage({ role: 'user', content: 'a' });
    node.message.content = 'changed';
    m.getNode('0').metadata.x = 1;
    expect(m.getNode('0').message.content).toBe('a');
    expect(m.getNode('0').metadata).toEqual({});
  });

  it('runs concurrent calls one after another', async () => {
    const m = await ConversationManager.create({ llm, storage });
    const nodes = await Promise.all([
      m.addMessage({ role: 'user', content: '1' }),
      m.addMessage({ role: 'assistant', content: '2' }),
      m.addMessage({ role: 'user', content: '3' }),
      m.setMetadata('k', 'v'),
    ]);
    expect(nodes.slice(0, 3).map((n) => (n as { nodeId: string }).nodeId)).toEqual(['0', '0.0', '0.0.0']);
    const stored = await storage.loadConversation(m.conversationId);
    expect(stored?.nodes).toHaveLength(4);
    expect(stored?.currentNodeId).toBe('0.0.0');
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
    await m.addMessage({ role: 'user', content: 'a' });
    await m.switchToNode('');
    await m.setMetadata('x', 1);
    await m.deleteBranch('0');
    sub.dispose();
    await m.addMessage({ role: 'user', content: 'b' });
    expect(events.map((e) => [e.kind, e.nodeIds, e.currentNodeId, e.seenCurrent])).toEqual([
      ['nodeAdded', ['0'], '0', '0'],
      ['currentChanged', [''], '', ''],
      ['metadataChanged', [], '', ''],
      ['branchDeleted', ['0'], '', ''],
    ]);
  });

  it('forks the whole conversation or the path to one node', async () => {
    const m = await ConversationManager.create({ llm, storage, systemPrompt: 's' });
    await m.addMessage({ role: 'user', content: 'a' });
    await m.addMessage({ role: 'assistant', content: 'b' });
    await m.branchFrom('0.0');
    await m.addMessage({ role: 'assistant', content: 'c' });
    const whole = await m.fork('copy-all');
    expect(whole.conversationId).toBe('copy-all');
    expect(ids(whole)).toEqual(ids(m));
    const part = await m.fork('copy-part', { upToNodeId: '0.0' });
    expect(ids(part)).toEqual(['', '0', '0.0']);
    expect(part.currentNodeId).toBe('0.0');
    await part.addMessage({ role: 'user', content: 'more' });
    expect(ids(m)).toEqual(['', '0', '0.0', '0.1']);
    await expect(m.fork('x', { upToNodeId: '9' })).rejects.toThrow(NodeNotFoundError);
    const auto = await m.fork();
    expect(auto.conversationId).not.toBe(m.conversationId);
  });
});

describe('ConversationManager: two windows on one store', () => {
  it('reload picks up what another window wrote, so ids are never handed out twice', async () => {
    const a = await ConversationManager.create({ llm, storage, conversationId: 'shared' });
    await a.addMessage({ role: 'user', content: 'from a' });
    const other = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const b = await ConversationManager.resume('shared', { llm, storage: other });
      await b.switchToNode('');
      await b.addMessage({ role: 'user', content: 'from b' });
      expect(b.currentNodeId).toBe('1');
      const events: string[] = [];
      a.onDidChange((e) => events.push(e.kind));
      await a.reload();
      expect(events).toEqual(['reloaded']);
      expect(a.getBranches('').map((x) => x.preview)).toEqual(['from a', 'from b']);
      expect(a.currentNodeId).toBe('1');
      await a.switchToNode('');
      expect((await a.addMessage({ role: 'user', content: 'a again' })).nodeId).toBe('2');
      // Nothing changed since: a second reload is a no-op.
      await a.reload();
      expect(events).toEqual(['reloaded', 'currentChanged', 'nodeAdded']);
      await other.deleteConversation('shared');
      await expect(a.reload()).rejects.toThrow(ConversationNotFoundError);
    } finally {
      await other.close();
    }
  });
});

