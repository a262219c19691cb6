/**
 * Trees of any shape work, in time linear in their size and without recursion deep enough to
 * overflow the stack: tens of thousands of siblings under one node, a path with thousands of forks
 * in the sidebar, tool-call arguments full of backtick runs in a Markdown export, and bulk deletes
 * naming more ids than SQLite has variables.
 */
import { describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, type ConversationNode, type LLMProvider } from '../../../src/core/index';
import { formatNodeId } from '../../../src/core/nodeIds';
import { sampleConversation } from '../../../src/core/storage/storageTestData';
import { buildRuns, findRun } from '../../../src/host/tree/treeModel';

const llm = { name: 'none' } as unknown as LLMProvider;
const at = '2026-01-01T00:00:00.000Z';

function root(): ConversationNode {
  return { nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: at, metadata: {} };
}

describe('trees of any shape', () => {
  it('resumes and lists 40,000 siblings under one node', async () => {
    const storage = await SqlJsConversationStorage.open();
    const nodes = [root()];
    for (let i = 1; i <= 40_000; i++) nodes.push({ nodeId: formatNodeId(i), parentId: '', position: i, message: { role: 'user', content: `q${i}` }, timestamp: at, metadata: {} });
    await storage.saveConversation({ conversationId: 'wide', nodes, currentNodeId: formatNodeId(40_000), metadata: {}, createdAt: at, updatedAt: at });
    const manager = await ConversationManager.resume('wide', { llm, storage });
    const branches = manager.getBranches('');
    expect(branches).toHaveLength(40_000);
    expect(branches[0].preview).toBe('q1');
    expect(branches[39_999].preview).toBe('q40000');
    expect(manager.getDotPath(formatNodeId(40_000))).toBe('39999');
    const added = await manager.addMessage({ role: 'assistant', content: 'a' });
    expect(manager.getPathIds()).toEqual([formatNodeId(40_000), added.nodeId]);
    await storage.close();
  }, 60_000);

  it('builds and searches the sidebar runs of a path with 4,000 forks', () => {
    const nodes = [root()];
    let parent = '';
    let seq = 1;
    for (let i = 0; i < 4_000; i++) {
      const main = formatNodeId(seq++);
      const side = formatNodeId(seq++);
      nodes.push({ nodeId: main, parentId: parent, position: seq, message: { role: 'user', content: `main ${i}` }, timestamp: at, metadata: {} });
      nodes.push({ nodeId: side, parentId: parent, position: seq + 1, message: { role: 'user', content: `side ${i}` }, timestamp: at, metadata: {} });
      parent = main;
    }
    const runs = buildRuns('deep', nodes, parent);
    expect(runs).toHaveLength(2);
    const deepest = findRun(runs, parent);
    expect(deepest?.label).toBe('You: main 3999');
    expect(deepest?.isCurrent).toBe(true);
    expect(runs[0].onCurrentPath).toBe(true);
    expect(runs[1].onCurrentPath).toBe(false);
  });

  it('exports tool-call arguments holding 200,000 backtick runs as Markdown', async () => {
    const storage = await SqlJsConversationStorage.open();
    const manager = await ConversationManager.create({ llm, storage });
    await manager.addMessage({ role: 'user', content: 'go' });
    const args = JSON.stringify({ text: '`a'.repeat(200_000) + '`````' });
    await manager.addMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'write', arguments: args } }] });
    const markdown = manager.exportMarkdown();
    // The fence is longer than the longest backtick run inside (five), so the block cannot end early.
    expect(markdown).toContain('``````json\n');
    await storage.close();
  });

  it('bulk-deletes 40,000 conversations named by id, and deletes a 40,000-node branch', async () => {
    const storage = await SqlJsConversationStorage.open();
    const ids: string[] = [];
    for (let i = 0; i < 40_000; i++) ids.push(`c${i}`);
    for (const id of ids.slice(0, 200)) await storage.saveConversation(sampleConversation(id, 2));
    expect(await storage.deleteConversations({ conversationIds: ids })).toBe(200);
    expect(await storage.countConversations()).toBe(0);

    const nodes = [root()];
    for (let i = 1; i <= 40_000; i++) nodes.push({ nodeId: formatNodeId(i), parentId: i === 1 ? '' : formatNodeId(i - 1), position: i, message: { role: 'user', content: `m${i}` }, timestamp: at, metadata: {} });
    await storage.saveConversation({ conversationId: 'long', nodes, currentNodeId: formatNodeId(40_000), metadata: {}, createdAt: at, updatedAt: at });
    const manager = await ConversationManager.resume('long', { llm, storage });
    await manager.deleteBranch(formatNodeId(1));
    expect((await storage.loadConversation('long'))?.nodes).toHaveLength(1);
    await storage.close();
  }, 60_000);
});
