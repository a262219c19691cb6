import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { InvalidArgumentError, OutputValidationError } from '../../../src/core/errors';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { readNodeMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { outputSchemaHash } from '../../../src/core/structured/outputSchema';
import type { ConversationNode, LLMStreamChunk } from '../../../src/core/types';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let dbPath: string;
let storage: SqlJsConversationStorage;

const verdictSchema = {
  title: 'Review verdict',
  type: 'object',
  properties: {
    verdict: { type: 'string', enum: ['approve', 'changes_needed'] },
    issues: { type: 'array', items: { type: 'object', properties: { file: { type: 'string' }, line: { type: 'integer', minimum: 1 } }, required: ['file'] } },
  },
  required: ['verdict', 'issues'],
  additionalProperties: false,
};

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-structured-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

const wires: Array<[string, () => LLMProvider]> = [
  ['OpenAI', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 })],
  ['Ollama', () => new OllamaProvider({ host: server.url, model: 'arbor-test-model' })],
];

async function askedManager(llm: LLMProvider): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm, storage, systemPrompt: 'You review code.' });
  await m.addMessage({ role: 'user', content: 'Review the diff.' });
  return m;
}

/** What the request asked for as JSON: the OpenAI response_format's schema, or Ollama's format. */
function requestedSchema(api: string, index: number): unknown {
  const req = server.chatRequests()[index];
  return api === 'OpenAI' ? req.body.response_format?.json_schema?.schema : req.body.format;
}

const lastUserMessage = (index: number): string => {
  const messages = server.chatRequests()[index].body.messages as Array<{ role: string; content: string }>;
  return [...messages].reverse().find((m) => m.role === 'user')!.content;
};

async function reopened(id: string, llm: LLMProvider): Promise<ConversationManager> {
  await storage.close();
  storage = await SqlJsConversationStorage.open(dbPath);
  return ConversationManager.resume(id, { llm, storage });
}

describe.each(wires)('structured answers over the %s wire format', (api, makeLlm) => {
  it('returns a valid answer parsed, asks for the schema in the wire format, and stores the value on the node', async () => {
    const llm = makeLlm();
    const m = await askedManager(llm);
    server.enqueue({ content: '{"verdict": "approve", "issues": []}' });
    const res = await m.complete({ outputSchema: verdictSchema });
    expect(res.parsed).toEqual({ verdict: 'approve', issues: [] });
    expect(res.content).toBe('{"verdict": "approve", "issues": []}');
    expect(requestedSchema(api, 0)).toEqual(verdictSchema);
    if (api === 'OpenAI') {
      expect(server.chatRequests()[0].responseFormat).toEqual({ type: 'json_schema', json_schema: { name: 'Review_verdict', schema: verdictSchema, strict: false } });
    }
    const again = await reopened(m.conversationId, llm);
    const stored = again.getNode(again.currentNodeId);
    expect(stored.message.role).toBe('assistant');
    expect(readNodeMetadata(stored.metadata, 'structuredOutput')).toEqual({ value: { verdict: 'approve', issues: [] }, schemaHash: outputSchemaHash(verdictSchema) });
    expect(readNodeMetadata(stored.metadata, 'structured')).toEqual({ kind: 'answer', attempt: 1, attempts: 3, schemaHash: outputSchemaHash(verdictSchema) });
  });

  it('sends an invalid answer back with its problems and accepts the corrected one, keeping every attempt', async () => {
    const m = await askedManager(makeLlm());
    server.enqueue({ content: '{"verdict": "maybe", "issues": [{"line": 0}], "mood": "meh"}' }, { content: '{"verdict": "changes_needed", "issues": [{"file": "a.ts", "line": 3}]}' });
    const res = await m.complete({ outputSchema: verdictSchema, retries: 1 });
    expect(res.parsed).toEqual({ verdict: 'changes_needed', issues: [{ file: 'a.ts', line: 3 }] });
    expect(server.chatRequests()).toHaveLength(2);
    const correction = lastUserMessage(1);
    expect(correction).toContain('does not match the required JSON Schema');
    expect(correction).toContain('- $.verdict: must be one of "approve", "changes_needed", not the string "maybe"');
    expect(correction).toContain('- $.issues[0].file: is required but missing');
    expect(correction).toContain('- $.issues[0].line: must be >= 1');
    expect(correction).toContain('- $.mood: is not allowed by the schema; leave it out');
    expect(correction).toContain('corrected JSON only');
    // The second request carries the first answer and the correction after it, and still asks for the schema.
    const second = server.chatRequests()[1].body.messages as Array<{ role: string; content: string }>;
    expect(second.slice(-2).map((x) => x.role)).toEqual(['assistant', 'user']);
    expect(second.at(-2)!.content).toContain('"maybe"');
    expect(requestedSchema(api, 1)).toEqual(verdictSchema);

    const path = m.getPath(m.currentNodeId);
    const [, question, first, turn, accepted] = path;
    expect(path).toHaveLength(5);
    expect(question.message.content).toBe('Review the diff.');
    expect(first.message.content).toContain('"maybe"');
    expect(readNodeMetadata(first.metadata, 'structured')).toMatchObject({ kind: 'answer', attempt: 1, attempts: 2 });
    expect(readNodeMetadata(first.metadata, 'structured')?.problems).toContainEqual({ path: '$.mood', message: 'is not allowed by the schema; leave it out' });
    expect(readNodeMetadata(first.metadata, 'structuredOutput')).toBeUndefined();
    expect(turn.message).toMatchObject({ role: 'user', content: correction });
    expect(readNodeMetadata(turn.metadata, 'structured')).toMatchObject({ kind: 'correction', attempt: 1, attempts: 2 });
    expect(readNodeMetadata(accepted.metadata, 'structuredOutput')?.value).toEqual(res.parsed);
    expect(readNodeMetadata(accepted.metadata, 'structured')).toMatchObject({ kind: 'answer', attempt: 2 });
  });

  it('throws OutputValidationError with the problems and the raw answer when no attempt validates, all stored', async () => {
    const m = await askedManager(makeLlm());
    server.enqueue({ content: 'Sure! The verdict is approve.' }, { content: '{"verdict": "approve"}' }, { content: '{"verdict": 5, "issues": []}' });
    const error = await m.complete({ outputSchema: verdictSchema }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    const failed = error as OutputValidationError;
    expect(failed.rawAnswer).toBe('{"verdict": 5, "issues": []}');
    expect(failed.attempts).toBe(3);
    expect(failed.problems).toContainEqual({ path: '$.verdict', message: 'must be string, not the number 5' });
    expect(failed.message).toContain('after 3 answers');
    expect(failed.message).toContain('- $.verdict: must be string, not the number 5');
    expect(failed.nodeId).toBe(m.currentNodeId);
    expect(server.chatRequests()).toHaveLength(3);
    expect(lastUserMessage(1)).toMatch(/- \$: the answer is not valid JSON \(.+\)/);
    expect(lastUserMessage(2)).toContain('- $.issues: is required but missing');
    const roles = m.getPath(m.currentNodeId).slice(1).map((n: ConversationNode) => n.message.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const stored = (await reopened(m.conversationId, makeLlm())).getNode(failed.nodeId);
    expect(stored.message.content).toBe(failed.rawAnswer);
    expect(readNodeMetadata(stored.metadata, 'structured')).toMatchObject({ kind: 'answer', attempt: 3, attempts: 3 });
  });

  it('streams each attempt in turn and returns the accepted value, telling onStored every node', async () => {
    const m = await askedManager(makeLlm());
    server.enqueue({ content: '```json\n{"verdict": "approve"}\n```' }, { content: '```json\n{"verdict": "approve", "issues": []}\n```' });
    const stored: ConversationNode[] = [];
    const chunks: LLMStreamChunk[] = [];
    const stream = m.streamComplete({ outputSchema: verdictSchema, onStored: (n) => stored.push(n) });
    let step = await stream.next();
    while (!step.done) {
      chunks.push(step.value);
      step = await stream.next();
    }
    expect(step.value.parsed).toEqual({ verdict: 'approve', issues: [] });
    expect(chunks.filter((c) => c.done)).toHaveLength(2);
    expect(chunks.map((c) => c.delta).join('')).toContain('"issues"');
    expect(stored.map((n) => [n.message.role, readNodeMetadata(n.metadata, 'structured')?.kind])).toEqual([
      ['assistant', 'answer'],
      ['user', 'correction'],
      ['assistant', 'answer'],
    ]);
    expect(stored[2].nodeId).toBe(m.currentNodeId);
    expect(readNodeMetadata(m.getNode(m.currentNodeId).metadata, 'structuredOutput')?.value).toEqual({ verdict: 'approve', issues: [] });
  });
});

describe('structured answers', () => {
  const openai = () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 });

  it('accepts JSON in a ```json fence but not JSON with prose around it', async () => {
    const m = await askedManager(openai());
    server.enqueue({ content: 'Here it is:\n```json\n{"verdict": "approve", "issues": []}\n```' }, { content: '```json\n{"verdict": "approve", "issues": []}\n```' });
    const res = await m.complete({ outputSchema: verdictSchema });
    expect(res.parsed).toEqual({ verdict: 'approve', issues: [] });
    expect(server.chatRequests()).toHaveLength(2);
  });

  it('puts the branch name on the first attempt only, and the caller metadata on every answer', async () => {
    const m = await askedManager(openai());
    server.enqueue({ content: '[]' }, { content: '{"verdict": "approve", "issues": []}' });
    await m.complete({ outputSchema: verdictSchema, branchName: 'review', metadata: { flow: 'f1' } });
    const answers = m.getPath(m.currentNodeId).filter((n) => n.message.role === 'assistant');
    expect(answers.map((n) => n.branchName)).toEqual(['review', undefined]);
    expect(answers.map((n) => n.metadata.flow)).toEqual(['f1', 'f1']);
  });

  it('with retries 0 fails after the first invalid answer without a correction turn', async () => {
    const m = await askedManager(openai());
    server.enqueue({ content: '{}' });
    await expect(m.complete({ outputSchema: verdictSchema, retries: 0 })).rejects.toThrow(/after its answer[\s\S]*\$\.verdict: is required/);
    expect(server.chatRequests()).toHaveLength(1);
    expect(m.getNode(m.currentNodeId).message.role).toBe('assistant');
  });

  it('refuses a schema Ajv cannot compile, bad retries and tools before sending anything', async () => {
    const m = await askedManager(openai());
    await expect(m.complete({ outputSchema: { type: 'object', properties: { a: { type: 'strin' } } } })).rejects.toThrow(/outputSchema is not a valid JSON Schema: .*type/);
    await expect(m.complete({ outputSchema: verdictSchema, retries: 11 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(m.complete({ outputSchema: verdictSchema, tools: [{ type: 'function', function: { name: 'x' } }] })).rejects.toThrow(/cannot be combined with tools/);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('validates against a 2020-12 schema with formats', async () => {
    const m = await askedManager(openai());
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { when: { type: 'string', format: 'date' } }, required: ['when'] };
    server.enqueue({ content: '{"when": "soon"}' }, { content: '{"when": "2026-01-31"}' });
    const res = await m.complete({ outputSchema: schema });
    expect(lastUserMessage(1)).toContain('$.when: must match format "date"');
    expect(res.parsed).toEqual({ when: '2026-01-31' });
  });
});
