import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { buildMergeRequest, MERGE_SYSTEM_PROMPT } from '../../../src/core/conversation/mergeAnswers';
import { InvalidArgumentError, ProviderError } from '../../../src/core/errors';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import type { CompleteOptions } from '../../../src/core/conversation/managerTypes';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

/** Several answers to one question streaming at once into one conversation on a real store, then merged. */
const server = new FakeLlmServer({ defaultTokenDelayMs: 2, models: ['model-a', 'model-b', 'model-c'] });
let dir: string;
let storage: SqlJsConversationStorage;
let dbPath: string;

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-several-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

const llm = () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'model-a', maxRetries: 0 });

/** Streams one answer to `parentNodeId` with `model`; returns the text seen and what it threw. */
async function streamOne(m: ConversationManager, parentNodeId: string, model: string, extra: CompleteOptions = {}): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const chunk of m.streamComplete({ ...extra, parentNodeId, configOverrides: { model }, metadata: { severalRun: 'run-1', ...extra.metadata } })) text += chunk.delta;
    return { text };
  } catch (error) {
    return { text, error };
  }
}

describe('concurrent sibling answers', () => {
  it('stores every answer under the question, each with its model, and the store reads them back', async () => {
    const m = await ConversationManager.create({ llm: llm(), storage });
    const question = await m.addMessage({ role: 'user', content: 'Which sort is stable?' });
    // The first answer is stored (the current node moved to it) before the others start: they still answer the question.
    const first = await streamOne(m, question.nodeId, 'model-a');
    expect(m.getNode(m.currentNodeId).metadata.model).toBe('model-a');
    const results = [first, ...(await Promise.all([streamOne(m, question.nodeId, 'model-b'), streamOne(m, question.nodeId, 'model-c')]))];
    expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(results.map((r) => r.text)).toEqual(['model-a', 'model-b', 'model-c'].map((model) => `[${model}] Echo: Which sort is stable?`));
    const answers = m.getChildren(question.nodeId);
    expect(answers).toHaveLength(3);
    expect(answers.map((a) => a.metadata.model).sort()).toEqual(['model-a', 'model-b', 'model-c']);
    expect(answers.every((a) => a.message.role === 'assistant' && a.metadata.severalRun === 'run-1')).toBe(true);
    for (const a of answers) expect(a.message.content).toBe(`[${a.metadata.model as string}] Echo: Which sort is stable?`);
    expect(new Set(answers.map((a) => a.nodeId)).size).toBe(3);
    // Each request carried the question alone, not another model's answer.
    for (const r of server.chatRequests()) expect(r.body.messages.map((x: { role: string }) => x.role)).toEqual(['user']);

    await storage.close();
    storage = await SqlJsConversationStorage.open(dbPath);
    const stored = await storage.loadConversation(m.conversationId);
    const storedAnswers = stored!.nodes.filter((n) => n.parentId === question.nodeId);
    expect(storedAnswers.map((n) => n.message.content).sort()).toEqual(answers.map((a) => a.message.content).sort());
    expect(answers.map((a) => a.nodeId)).toContain(stored!.currentNodeId);
  });

  it('keeps the others going when one model fails, and a failure part way keeps its text and error on its node', async () => {
    const m = await ConversationManager.create({ llm: llm(), storage });
    const question = await m.addMessage({ role: 'user', content: 'Compare [[error:model-b]] please' });
    const [a, b] = await Promise.all([streamOne(m, question.nodeId, 'model-a'), streamOne(m, question.nodeId, 'model-b')]);
    expect(a.error).toBeUndefined();
    expect(b.error).toBeInstanceOf(ProviderError);
    expect(m.getChildren(question.nodeId).map((n) => n.metadata.model)).toEqual(['model-a']);

    // A stream cut after some text: its node keeps the text, marked failed with the error.
    server.enqueue({ content: 'half of an answer', streamErrorAfterTokens: 2 });
    const cut = await streamOne(m, question.nodeId, 'model-c');
    expect(cut.error).toBeInstanceOf(ProviderError);
    const failed = m.getChildren(question.nodeId).find((n) => n.metadata.model === 'model-c');
    expect(failed?.message.content).toBe('half of');
    expect(failed?.metadata).toMatchObject({ interrupted: true, stopReason: 'failed', severalRun: 'run-1' });
    expect(String(failed?.metadata.error)).not.toBe('');
  });

  it('refuses a parent that is not in the conversation, storing nothing', async () => {
    const m = await ConversationManager.create({ llm: llm(), storage });
    await m.addMessage({ role: 'user', content: 'Hi' });
    const { error } = await streamOne(m, '999', 'model-a');
    expect((error as Error).message).toMatch(/999/);
    expect(server.chatRequests()).toHaveLength(0);
  });
});

describe('merging answers', () => {
  it('sends the merge request instead of the path and stores the merge as a sibling that records what it merged', async () => {
    const m = await ConversationManager.create({ llm: llm(), storage, systemPrompt: 'Be brief.' });
    const question = await m.addMessage({ role: 'user', content: 'Name a stable sort' });
    await Promise.all([streamOne(m, question.nodeId, 'model-a'), streamOne(m, question.nodeId, 'model-b')]);
    const answers = m.getChildren(question.nodeId);
    const request = buildMergeRequest(m.getNode(question.nodeId), answers);
    await m.switchToNode(answers[0].nodeId);
    const stored: string[] = [];
    const merged = await streamOne(m, question.nodeId, 'model-c', { requestMessages: request.messages, metadata: { mergedFrom: request.mergedFrom }, onStored: (n) => stored.push(n.nodeId) });
    expect(merged.error).toBeUndefined();
    const sent = server.chatRequests().at(-1)!.body;
    expect(sent.model).toBe('model-c');
    expect(sent.messages).toEqual(request.messages);
    expect(sent.messages[0].content).toBe(MERGE_SYSTEM_PROMPT);
    const node = m.getNode(m.currentNodeId);
    expect(node.parentId).toBe(question.nodeId);
    expect(stored).toEqual([node.nodeId]);
    expect(node.metadata).toMatchObject({ model: 'model-c', mergedFrom: request.mergedFrom, severalRun: 'run-1' });
    expect(node.message.content).toBe(`[model-c] Merged 2 answers (${answers.map((a) => a.metadata.model).join(', ')}): ${answers.map((a) => a.message.content).join(' + ')}`);
    expect(m.getChildren(question.nodeId)).toHaveLength(3);
  });

  it('lists the question and each answer under its model, in the order given', () => {
    const q = { nodeId: '1', parentId: '', message: { role: 'user' as const, content: 'Why?' }, position: 0, timestamp: '', metadata: {} };
    const a = { nodeId: '2', parentId: '1', message: { role: 'assistant' as const, content: 'Because.' }, position: 0, timestamp: '', metadata: { model: 'm1' } };
    const b = { nodeId: '3', parentId: '1', message: { role: 'assistant' as const, content: 'It is so.' }, position: 0, timestamp: '', metadata: {} };
    const req = buildMergeRequest(q, [b, a]);
    expect(req.mergedFrom).toEqual(['3', '2']);
    expect(req.messages[1].content).toBe('## Question\n\nWhy?\n\n## Answer 1 (unknown model)\n\nIt is so.\n\n## Answer 2 (m1)\n\nBecause.\n\nMerge these 2 answers into one answer to the question.');
  });

  it('refuses fewer than two answers, an answer to another message and an empty answer, saying which', () => {
    const q = { nodeId: '1', parentId: '', message: { role: 'user' as const, content: 'Why?' }, position: 0, timestamp: '', metadata: {} };
    const a = { nodeId: '2', parentId: '1', message: { role: 'assistant' as const, content: 'Because.' }, position: 0, timestamp: '', metadata: { model: 'm1' } };
    const other = { ...a, nodeId: '5', parentId: '4' };
    const empty = { ...a, nodeId: '6', message: { role: 'assistant' as const, content: ' ' } };
    expect(() => buildMergeRequest(q, [a, a])).toThrow(InvalidArgumentError);
    expect(() => buildMergeRequest(q, [a, other])).toThrow(/"5" is not an answer/);
    expect(() => buildMergeRequest(q, [a, empty])).toThrow(/"6" \(m1\) has no text/);
  });
});
