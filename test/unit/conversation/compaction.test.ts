import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_COMPACT_PROMPT } from '../../../src/core/conversation/compactor';
import { fallbackSummary, planCompaction, PRUNED_TOOL_OUTPUT, pruneToolOutputs, transcriptOf, userMessagesVerbatim } from '../../../src/core/conversation/compaction';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { ConversationTree } from '../../../src/core/conversation/conversationTree';
import { InvalidOperationError } from '../../../src/core/errors';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { estimateMessageTokens } from '../../../src/core/llm/tokens';
import { readNodeMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import type { ConversationNode } from '../../../src/core/types';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let dbPath: string;
let storage: SqlJsConversationStorage;
let ollama: OllamaProvider;
let openai: OpenAIProvider;

beforeAll(async () => {
  await server.start();
  ollama = new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
  openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 });
});
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-compaction-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

type Sent = Array<{ role: string; content: string }>;
const sentMessages = () => server.chatRequests().at(-1)?.body.messages as Sent;

/** A conversation of `turns` question/answer pairs, each answered by the fake model. */
async function conversation(turns: number, llm: LLMProvider = ollama, systemPrompt = 'You are terse.'): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm, storage, systemPrompt });
  for (let i = 1; i <= turns; i++) {
    await m.addMessage({ role: 'user', content: `Question ${i}: ${'why '.repeat(40)}`, raw: true });
    await m.complete();
  }
  return m;
}

describe('compacting a conversation', () => {
  it('adds a summary node below the path; the next request carries the system prompt with the summary and the kept turns only', async () => {
    const m = await conversation(6);
    const before = m.getAllNodes().length;
    const leaf = m.currentNodeId;
    server.enqueue({ content: 'Goal: understand why. Decisions: none.' });
    const node = await m.compact({ keepRecentTokens: 150, focus: 'the reasons' });

    // The summariser read the covered part as a document, with the focus in its prompt, thinking off.
    const summariser = sentMessages();
    expect(summariser[0].role).toBe('system');
    expect(summariser[0].content).toContain('Focus on: the reasons');
    expect(summariser[1].content).toMatch(/^<conversation>\n\[User\]: Question 1:/);
    expect(server.chatRequests().at(-1)?.body.think).toBe(false);

    const info = readNodeMetadata(node.metadata, 'compaction');
    expect(node.parentId).toBe(leaf);
    // The model's summary, then the newest covered questions word for word, as far as half the kept budget allows.
    expect(node.message.content).toMatch(/^Goal: understand why\. Decisions: none\.\n\n## The user's messages, word for word\n\[User\]: Question \d+: why /);
    expect(info).toMatchObject({ method: 'model', trigger: 'manual', focus: 'the reasons', model: 'arbor-test-model' });
    expect(info!.tokensAfter).toBeLessThan(info!.tokensBefore);
    expect(m.currentNodeId).toBe(node.nodeId);
    // Nothing was deleted.
    expect(m.getAllNodes().length).toBe(before + 1);

    await m.addMessage({ role: 'user', content: 'And now?', raw: true });
    await m.complete();
    const sent = sentMessages();
    expect(sent[0].role).toBe('system');
    expect(sent[0].content).toMatch(/^You are terse\.\n\n.*<summary>\nGoal: understand why\. Decisions: none\.\n\n## The user's messages, word for word\n.*<\/summary>$/s);
    const firstKept = m.getNode(info!.firstKeptNodeId).message.content;
    expect(sent[1].content).toBe(firstKept);
    expect(sent.some((s) => s.content.startsWith('Question 1:'))).toBe(false);
    expect(sent.filter((s) => s.role === 'system')).toHaveLength(1);
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'And now?' });
  });

  it('undo moves to the summary\'s parent: the whole history is sent again and the next message is the summary\'s sibling', async () => {
    const m = await conversation(4, openai);
    server.enqueue({ content: 'Summary one.' });
    const summary = await m.compact({ keepRecentTokens: 100 });
    await m.undoCompaction();
    expect(m.currentNodeId).toBe(summary.parentId);
    await m.addMessage({ role: 'user', content: 'Full history?', raw: true });
    await m.complete();
    const sent = sentMessages();
    expect(sent.map((s) => s.content.slice(0, 10))).toContain('Question 1');
    expect(sent[0].content).toBe('You are terse.');
    expect(m.getSiblingIds(m.getPathIds().at(-2)!)).toContain(summary.nodeId);
    await expect(m.undoCompaction()).rejects.toThrow(InvalidOperationError);
  });

  it('a second compaction updates the previous summary instead of summarising it, and lists files across both', async () => {
    const m = await conversation(3);
    await m.addMessage({ role: 'user', content: 'Look at this\n\nFile a.ts:\n```ts\nx\n```', raw: true, metadata: { displayText: 'Look at this', attachments: [{ kind: 'file', path: 'src/a.ts' }] } });
    await m.complete();
    server.enqueue({ content: 'First summary.' });
    const first = await m.compact({ keepRecentTokens: 80 });
    for (let i = 0; i < 3; i++) {
      await m.addMessage({ role: 'user', content: `Later ${i} ${'so '.repeat(40)}`, raw: true });
      await m.complete();
    }
    server.enqueue({ content: 'Second summary.' });
    const second = await m.compact({ keepRecentTokens: 80 });
    const request = sentMessages()[1].content;
    expect(request).toMatch(/^<previous-summary>\nFirst summary\.\n<\/previous-summary>/);
    expect(request).not.toContain('Question 1:');
    expect(sentMessages()[0].content).toContain('A previous summary exists');
    expect(readNodeMetadata(second.metadata, 'compaction')?.readFiles).toEqual(['src/a.ts']);
    // The previous summary is passed on as the model wrote it, the verbatim section included.
    expect(first.message.content.startsWith('First summary.')).toBe(true);
    expect(second.parentId).not.toBe(first.parentId);
    await m.addMessage({ role: 'user', content: 'Next', raw: true });
    await m.complete();
    const system = sentMessages().filter((s) => s.role === 'system');
    expect(system).toHaveLength(1);
    expect(system[0].content).toContain('Second summary.');
    expect(system[0].content).not.toContain('First summary.');
  });

  it('falls back to a summary without a model when the summariser rejects the request as too long', async () => {
    const m = await conversation(3, openai);
    server.enqueueError(400, { errorMessage: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." });
    const node = await m.compact({ keepRecentTokens: 60, trigger: 'overflow' });
    const info = readNodeMetadata(node.metadata, 'compaction');
    expect(info).toMatchObject({ method: 'fallback', trigger: 'overflow' });
    expect(node.message.content).toContain('[User]: Question 1:');
    expect(info?.model).toBeUndefined();
  });

  it('reports a server that is down instead of compacting silently without it', async () => {
    const m = await conversation(3);
    server.enqueueError(500, { errorMessage: 'boom' });
    await expect(m.compact({ keepRecentTokens: 60 })).rejects.toThrow(/HTTP 500/);
    expect(m.getAllNodes().some((n) => readNodeMetadata(n.metadata, 'compaction'))).toBe(false);
  });

  it('refuses a single turn: there is nothing to summarise', async () => {
    const m = await conversation(1);
    await expect(m.compact()).rejects.toThrow(/nothing to compact/);
  });

  it('keeps the compaction across a reopen of the store, and a branch taken above it sees the whole history', async () => {
    const m = await conversation(4);
    server.enqueue({ content: 'Kept summary.' });
    const summary = await m.compact({ keepRecentTokens: 100 });
    await storage.close();
    storage = await SqlJsConversationStorage.open(dbPath);
    const again = await ConversationManager.resume(m.conversationId, { llm: ollama, storage });
    expect(again.currentNodeId).toBe(summary.nodeId);
    expect(again.getHistory()[0].content).toContain('Kept summary.');
    // Branch from the second answer, above the summary: the history is whole.
    const secondAnswer = again.getPathIds()[3];
    await again.switchToNode(secondAnswer);
    expect(again.getHistory().map((h) => h.content)).not.toContain('Kept summary.');
    expect(again.getHistory()[0].content).toBe('You are terse.');
  });

  it('reports usage with the summary counted as system, and the compaction in effect', async () => {
    const m = await conversation(5);
    const before = m.getContextUsage({ limit: 4000, reserve: 500, draft: 'typing' });
    expect(before.parts.draft).toBeGreaterThan(0);
    expect(before.fraction).toBeCloseTo((before.used + 500) / 4000);
    server.enqueue({ content: 'Short.' });
    const node = await m.compact({ keepRecentTokens: 100 });
    const after = m.getContextUsage({ limit: 4000 });
    expect(after.used).toBeLessThan(before.used);
    expect(after.compactionNodeId).toBe(node.nodeId);
    expect(after.parts.system).toBeGreaterThan(before.parts.system);
  });

  it('counts the definitions of the tools a request offers, and compacts when they fill the window', async () => {
    const m = await conversation(5);
    const tools = [
      { type: 'function' as const, function: { name: 'read_file', description: 'Reads a file of the workspace. '.repeat(40), parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
    ];
    const without = m.getContextUsage({ limit: 4000 });
    const withTools = m.getContextUsage({ limit: 4000, tools });
    expect(without.parts.tools).toBe(0);
    expect(withTools.parts.tools).toBeGreaterThan(300);
    expect(withTools.used).toBe(without.used + withTools.parts.tools);
    // Below the threshold without the tools, above it with them: only the count with them compacts.
    const limit = Math.ceil((without.used + withTools.parts.tools / 2) / 0.85);
    expect(await m.compactIfFull({ limit, fraction: 0.85 })).toBeUndefined();
    server.enqueue({ content: 'Short.' });
    expect(await m.compactIfFull({ limit, fraction: 0.85, tools })).toBeDefined();
    // Tool definitions that alone pass the threshold: a compaction would not make room, so none is made.
    const before = m.getPathIds().length;
    expect(await m.compactIfFull({ limit: Math.floor(withTools.parts.tools / 0.85) - 1, fraction: 0.85, tools })).toBeUndefined();
    expect(m.getPathIds().length).toBe(before);
  });
});

describe('planning a compaction', () => {
  const node = (nodeId: string, parentId: string | null, role: ConversationNode['message']['role'], content: string, extra: Partial<ConversationNode> = {}): ConversationNode => ({
    nodeId, parentId, position: 0, message: { role, content }, timestamp: '2026-01-01T00:00:00Z', metadata: {}, ...extra,
  });

  it('never cuts between a tool call and its results, and keeps the latest user message', () => {
    const nodes = [
      node('', null, 'system', ''),
      node('u1', '', 'user', 'first '.repeat(50)),
      node('a1', 'u1', 'assistant', 'answer '.repeat(50)),
      node('u2', 'a1', 'user', 'read the file'),
      { ...node('c', 'u2', 'assistant', ''), message: { role: 'assistant' as const, content: '', toolCalls: [{ id: 't1', type: 'function' as const, function: { name: 'read', arguments: '{}' } }] } },
      { ...node('r', 'c', 'tool', 'result '.repeat(200)), message: { role: 'tool' as const, content: 'result '.repeat(200), toolCallId: 't1' } },
      node('a2', 'r', 'assistant', 'done'),
    ];
    const tree = new ConversationTree(nodes);
    const plan = planCompaction(tree, 'a2', { keepRecentTokens: 10, count: estimateMessageTokens });
    // The latest user message (u2) is kept, so the cut is before it and the call stays with its result.
    expect(plan?.firstKeptNodeId).toBe('u2');
    expect(plan?.covered.map((n) => n.nodeId)).toEqual(['u1', 'a1']);
  });

  it('keeps the newest covered user messages word for word within the budget, in their order', () => {
    const covered = [node('u1', '', 'user', 'one '.repeat(20)), node('a1', 'u1', 'assistant', 'x'), node('u2', 'a1', 'user', 'two'), node('u3', 'u2', 'user', 'three')];
    const verbatim = userMessagesVerbatim(covered, 15, estimateMessageTokens);
    expect(verbatim).toBe("## The user's messages, word for word\n[User]: two\n\n[User]: three");
    expect(userMessagesVerbatim(covered, 2, estimateMessageTokens)).toBe('');
  });

  it('writes the transcript as a document with long tool results cut, and the fallback keeps every user message', () => {
    const nodes = [node('u', '', 'user', 'Keep my words'), node('t', 'u', 'tool', 'x'.repeat(5000)), node('a', 't', 'assistant', 'y'.repeat(1000))];
    const transcript = transcriptOf(nodes);
    expect(transcript).toMatch(/^\[User\]: Keep my words\n\n\[Tool result\]: x+\n\[… 3000 characters omitted …\]/);
    const fallback = fallbackSummary(nodes, 'Before.');
    expect(fallback).toContain('[User]: Keep my words');
    expect(fallback).toContain('Before.');
    expect(fallback.length).toBeLessThan(600);
  });

  it('ships the built-in summary prompt as the sample prompts/system/compact.md', async () => {
    const sample = await readFile(path.join(__dirname, '../../../prompts/system/compact.md'), 'utf8');
    expect(sample.replace(/^---\n[\s\S]*?\n---\n/, '').trim()).toBe(BUILTIN_COMPACT_PROMPT.trim());
  });
});

describe('pruning tool outputs before a request', () => {
  it('replaces older outputs beyond the budget with a marker and caps a long one, leaving other messages as they are', () => {
    const messages = [
      { role: 'user' as const, content: 'go' },
      { role: 'tool' as const, content: 'old '.repeat(100), toolCallId: '1' },
      { role: 'tool' as const, content: 'z'.repeat(30_000), toolCallId: '2' },
      { role: 'assistant' as const, content: 'done' },
    ];
    const pruned = pruneToolOutputs(messages, { keepTokens: 2600 });
    expect(pruned[0]).toBe(messages[0]);
    expect(pruned[1].content).toBe(PRUNED_TOOL_OUTPUT);
    expect(pruned[2].content.length).toBeLessThan(10_400);
    expect(pruned[2].content).toContain('characters omitted');
    expect(pruned[2].toolCallId).toBe('2');
    expect(messages[1].content).toMatch(/^old /);
  });

  it('is applied to what the manager sends, never to what it stores', async () => {
    const m = await ConversationManager.create({ llm: ollama, storage, keepToolOutputTokens: 10 });
    await m.addMessage({ role: 'user', content: 'run it', raw: true });
    await m.addMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'run', arguments: '{}' } }] });
    await m.addMessage({ role: 'tool', content: 'output '.repeat(50), toolCallId: 'c1' });
    await m.addMessage({ role: 'tool', content: 'newest output', toolCallId: 'c1' });
    await m.complete();
    const sent = sentMessages().map((s) => s.content);
    expect(sent).toContain(PRUNED_TOOL_OUTPUT);
    expect(sent).toContain('newest output');
    expect(m.getAllNodes().some((n) => n.message.content.startsWith('output output'))).toBe(true);
  });
});

describe('a long conversation in a small window', () => {
  it('300 turns against an 8k window: every request fits, compactions are in the tree, and undo restores the whole path', async () => {
    const limit = 8192;
    const m = await ConversationManager.create({ llm: ollama, storage, systemPrompt: 'You are terse.' });
    const biggest: number[] = [];
    for (let i = 1; i <= 300; i++) {
      await m.addMessage({ role: 'user', content: `Turn ${i}: ${'tell me more about the tree '.repeat(6)}`, raw: true });
      await m.compactIfFull({ limit, fraction: 0.85, reserve: 512 });
      await m.complete();
      const body = server.chatRequests().at(-1)!.body.messages as Sent;
      biggest.push(body.reduce((sum, s) => sum + estimateMessageTokens({ role: s.role as 'user', content: s.content }), 0));
    }
    expect(Math.max(...biggest)).toBeLessThan(limit);
    const compactions = m.getAllNodes().filter((n) => readNodeMetadata(n.metadata, 'compaction'));
    expect(compactions.length).toBeGreaterThan(1);
    expect(compactions.every((n) => readNodeMetadata(n.metadata, 'compaction')?.trigger === 'auto')).toBe(true);
    // Each later summary was asked to update the one before, not to summarise it.
    expect(compactions.slice(1).every((n) => n.message.content.includes('updating the previous summary.'))).toBe(true);
    // The request after the last compaction holds its summary and the kept turns, not the covered ones.
    const last = compactions.at(-1)!;
    const info = readNodeMetadata(last.metadata, 'compaction')!;
    const requests = server.chatRequests();
    const after = requests[requests.length - 1].body.messages as Sent;
    expect(after[0].content).toContain('<summary>');
    expect(after.some((s) => s.content.startsWith('Turn 1:'))).toBe(false);
    expect(after.some((s) => s.content === m.getNode(info.firstKeptNodeId).message.content)).toBe(true);
    // Every message is still in the tree: 300 questions, 300 answers.
    expect(m.getAllNodes().filter((n) => n.message.role === 'user')).toHaveLength(300);
    // Undo the compaction in effect: the path's request is the whole history again.
    await m.switchToNode(last.nodeId);
    await m.undoCompaction();
    const whole = m.getHistory();
    expect(whole.filter((h) => h.content.startsWith('Turn ')).length).toBeGreaterThan(after.filter((s) => s.content.startsWith('Turn ')).length);
  }, 120_000);
});

describe('branch summaries', () => {
  it('summarises the branch left below the fork and carries it in the system text of the next requests', async () => {
    const m = await conversation(2);
    const fork = m.getPathIds().filter((id) => id !== '')[1];
    await m.addMessage({ role: 'user', content: 'Try the hash map', raw: true });
    await m.complete();
    await m.addMessage({ role: 'user', content: 'It was too slow', raw: true });
    await m.complete();
    const left = m.currentNodeId;
    // Back to the first answer, then a new follow-up there.
    await m.switchToNode(fork);
    await m.addMessage({ role: 'user', content: 'What about a trie?', raw: true });
    await m.complete();
    expect(m.getBranchLeftCount(left)).toBe(6);

    server.enqueue({ content: 'Tried a hash map; too slow.' });
    const node = await m.summariseBranch({ fromNodeId: left });
    // The summariser read the left branch only, from below the fork.
    const transcript = sentMessages()[1].content;
    expect(transcript).toMatch(/^<conversation>\n\[User\]: Question 2:/);
    expect(transcript).toContain('[User]: It was too slow');
    expect(transcript).not.toContain('What about a trie?');
    expect(sentMessages()[0].content).toContain('This is a branch the user left');
    expect(readNodeMetadata(node.metadata, 'branchSummary')).toEqual({ fromNodeId: left, coveredCount: 6, model: 'arbor-test-model' });
    expect(m.currentNodeId).toBe(node.nodeId);

    await m.addMessage({ role: 'user', content: 'So, the trie?', raw: true });
    await m.complete();
    const sent = sentMessages();
    expect(sent[0]).toEqual({ role: 'system', content: expect.stringMatching(/^You are terse\.\n\n.*<branch-summary>\nTried a hash map; too slow\.\n<\/branch-summary>$/s) });
    expect(sent.filter((s) => s.role === 'system')).toHaveLength(1);
    expect(sent.some((s) => s.content === 'It was too slow')).toBe(false);
    await expect(m.summariseBranch({ fromNodeId: m.getPathIds()[0] })).rejects.toThrow(/no other branch/);
  });
});
