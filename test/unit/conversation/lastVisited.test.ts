/**
 * `‹ n/m ›` returns to where the reader was: at each fork the manager remembers the child last
 * visited (stored with the conversation), and `getLastVisitedLeaf` follows those to the place left.
 */
import { describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, type LLMProvider } from '../../../src/core/index';

const llm = { name: 'none' } as unknown as LLMProvider;

describe('the last visited child of each fork', () => {
  it('reopens the deepest node last viewed under a sibling, not the newest one, also after reopening', async () => {
    const storage = await SqlJsConversationStorage.open();
    const m = await ConversationManager.create({ llm, storage, conversationId: 'c' });
    const q = await m.addMessage({ role: 'user', content: 'Q' });
    const a1 = await m.addMessage({ role: 'assistant', content: 'A1' });
    await m.switchToNode(q.nodeId);
    const a2 = await m.addMessage({ role: 'assistant', content: 'A2' });
    // Under A2, two follow-ups; the reader ends on the older one.
    const f1 = await m.addMessage({ role: 'user', content: 'F1' });
    const f1a = await m.addMessage({ role: 'assistant', content: 'F1 answer' });
    await m.switchToNode(a2.nodeId);
    const f2 = await m.addMessage({ role: 'user', content: 'F2' });
    expect(m.getNewestLeaf(a2.nodeId)).toBe(f2.nodeId);
    await m.switchToNode(m.getLastVisitedLeaf(f1.nodeId));
    expect(m.currentNodeId).toBe(f1a.nodeId);

    // Over to the other answer and back: the reader lands where they were under A2.
    await m.switchToNode(m.getLastVisitedLeaf(a1.nodeId));
    expect(m.currentNodeId).toBe(a1.nodeId);
    expect(m.getLastVisitedLeaf(a2.nodeId)).toBe(f1a.nodeId);
    // A fork never visited falls back to the newest child.
    expect(m.getLastVisitedLeaf(q.nodeId)).toBe(a1.nodeId);

    const again = await ConversationManager.resume('c', { llm, storage });
    expect(again.getLastVisitedLeaf(a2.nodeId)).toBe(f1a.nodeId);
    await storage.close();
  });

  it('counts a new sibling (a regenerated answer) as the child now visited', async () => {
    const storage = await SqlJsConversationStorage.open();
    const m = await ConversationManager.create({ llm, storage });
    const q = await m.addMessage({ role: 'user', content: 'Q' });
    const a1 = await m.addMessage({ role: 'assistant', content: 'A1' });
    const deeper = await m.addMessage({ role: 'user', content: 'more' });
    await m.switchToNode(q.nodeId);
    const a2 = await m.addMessage({ role: 'assistant', content: 'A2' });
    expect(m.getLastVisitedLeaf(q.nodeId)).toBe(a2.nodeId);
    await m.switchToNode(m.getLastVisitedLeaf(a1.nodeId));
    expect(m.currentNodeId).toBe(deeper.nodeId);
    expect(m.getLastVisitedLeaf(q.nodeId)).toBe(deeper.nodeId);
    await storage.close();
  });
});

describe('moving around the tree', () => {
  it('does not move a conversation to the top of the list: only a new message does', async () => {
    const storage = await SqlJsConversationStorage.open();
    const older = await ConversationManager.create({ llm, storage, conversationId: 'older' });
    const q = await older.addMessage({ role: 'user', content: 'Q' });
    await older.addMessage({ role: 'assistant', content: 'A' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = await ConversationManager.create({ llm, storage, conversationId: 'newer' });
    await newer.addMessage({ role: 'user', content: 'hello' });
    const order = async () => (await storage.listConversations()).map((c) => c.conversationId);
    expect(await order()).toEqual(['newer', 'older']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await older.switchToNode(q.nodeId);
    await older.branchFrom(q.nodeId);
    expect(await order()).toEqual(['newer', 'older']);
    await older.addMessage({ role: 'user', content: 'a new question' });
    expect(await order()).toEqual(['older', 'newer']);
    await storage.close();
  });
});
