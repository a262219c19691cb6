/**
 * The tool loop through `ConversationManager.runWithTools`, against the fake model server over HTTP in
 * both wire formats and the real sql.js store: what is stored, what the model is sent back, the order
 * and overlap of calls, approval, failures, the step limit and Stop.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, defineTool, InvalidOperationError, OllamaProvider, OpenAIProvider, readNodeMetadata, SqlJsConversationStorage, ToolExecutor, type ConversationNode, type LLMProvider, type LLMStreamChunk, type Tool, type ToolCallEvent } from '../../../src/core/index';
import { TOOL_RESULT_TEXTS } from '../../../src/core/tools/toolResults';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { pathProblems, wireProblems } from '../../fixtures/toolPaths';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0, capabilities: { 'arbor-test-model-2': ['completion'] } });
let dir: string;
let dbPath: string;
let storage: SqlJsConversationStorage;

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-tool-loop-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

const APIS = ['openai', 'ollama'] as const;
type Api = (typeof APIS)[number];

function provider(api: Api, options: { supportsTools?: boolean } = {}): LLMProvider {
  return api === 'openai'
    ? new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0, ...options })
    : new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tools that log when they start and end, so tests can see what overlapped. */
function loggingTools(log: string[], ms = 40): Tool[] {
  const tool = (name: string, readOnly: boolean): Tool<{ path: string }> =>
    defineTool<{ path: string }>({
      name,
      description: `${readOnly ? 'Reads' : 'Writes'} a file.`,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
      readOnly,
      run: async ({ path: p }) => {
        log.push(`start ${name} ${p}`);
        await sleep(ms);
        log.push(`end ${name} ${p}`);
        return `${name}(${p}) ok`;
      },
    });
  return [tool('read_file', true), tool('write_file', false)];
}

async function chat(api: Api, llm = provider(api)): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm, storage, systemPrompt: 'Use the tools.' });
  await m.addMessage({ role: 'user', content: 'Look at a.ts and b.ts, then fix c.ts.' });
  return m;
}

const allow = () => 'allow' as const;

describe.each(APIS)('runWithTools over %s', (api) => {
  it('runs the calls, stores every step in order, sends the results back in the wire format and ends with the answer', async () => {
    const m = await chat(api);
    const log: string[] = [];
    const executor = new ToolExecutor(loggingTools(log));
    server.enqueue(
      { content: 'Reading.', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' }, pieces: 4 }, { id: 'c2', name: 'read_file', arguments: { path: 'b.ts' } }] },
      { content: '', toolCalls: [{ id: 'c3', name: 'write_file', arguments: { path: 'c.ts' } }] },
      { content: 'Fixed c.ts.' },
    );
    const events: ToolCallEvent[] = [];
    const chunks: Array<[number, string]> = [];
    const result = await m.runWithTools({ executor, approve: allow, onEvent: (e) => events.push(e), onChunk: (c: LLMStreamChunk, step) => chunks.push([step, c.delta]) });

    expect(result).toMatchObject({ stopReason: 'answer', steps: 3, toolsOffered: true });
    expect(result.response?.content).toBe('Fixed c.ts.');
    const path = m.getCurrentNodes().slice(1);
    expect(path.map((n) => [n.message.role, n.message.toolCallId ?? n.message.content])).toEqual([
      ['user', 'Look at a.ts and b.ts, then fix c.ts.'],
      ['assistant', 'Reading.'],
      ['tool', 'c1'],
      ['tool', 'c2'],
      ['assistant', ''],
      ['tool', 'c3'],
      ['assistant', 'Fixed c.ts.'],
    ]);
    expect(result.nodeIds).toEqual(path.slice(1).map((n) => n.nodeId));
    expect(path[2].message).toEqual({ role: 'tool', content: 'read_file(a.ts) ok', toolCallId: 'c1', name: 'read_file' });
    expect(path[1].message.toolCalls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['c1', 'read_file', { path: 'a.ts' }],
      ['c2', 'read_file', { path: 'b.ts' }],
    ]);
    expect(path.filter((n) => n.message.role === 'assistant').map((n) => readNodeMetadata(n.metadata, 'toolStep'))).toEqual([1, 2, 3]);
    const info = readNodeMetadata(path[5].metadata, 'toolResult');
    expect(info).toMatchObject({ status: 'done', step: 2 });
    expect(Date.parse(info!.endedAt)).toBeGreaterThanOrEqual(Date.parse(info!.startedAt!));
    expect(pathProblems(m.getCurrentNodes())).toEqual([]);

    // The two reads of step 1 overlapped; the write ran after them.
    expect(log.slice(0, 2).sort()).toEqual(['start read_file a.ts', 'start read_file b.ts']);
    expect(log.slice(4)).toEqual(['start write_file c.ts', 'end write_file c.ts']);

    // Every request offered the tools; the later ones carried the calls and results in the API's own shape.
    const requests = server.chatRequests();
    expect(requests).toHaveLength(3);
    for (const r of requests) expect(r.body.tools.map((t: any) => t.function.name)).toEqual(['read_file', 'write_file']);
    const sent = requests[2].body.messages as Array<Record<string, any>>;
    expect(wireProblems(api, sent)).toEqual([]);
    const toolMessages = sent.filter((x) => x.role === 'tool');
    if (api === 'openai') {
      expect(toolMessages).toEqual([
        { role: 'tool', tool_call_id: 'c1', content: 'read_file(a.ts) ok' },
        { role: 'tool', tool_call_id: 'c2', content: 'read_file(b.ts) ok' },
        { role: 'tool', tool_call_id: 'c3', content: 'write_file(c.ts) ok' },
      ]);
      expect(sent[2].tool_calls[0]).toEqual({ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } });
    } else {
      expect(toolMessages).toEqual([
        { role: 'tool', content: 'read_file(a.ts) ok', tool_name: 'read_file' },
        { role: 'tool', content: 'read_file(b.ts) ok', tool_name: 'read_file' },
        { role: 'tool', content: 'write_file(c.ts) ok', tool_name: 'write_file' },
      ]);
      expect(sent[2].tool_calls[0]).toEqual({ function: { name: 'read_file', arguments: { path: 'a.ts' } } });
    }

    // Events: each call went pending → running → done, with its times.
    const byCall = (id: string) => events.filter((e) => e.callId === id).map((e) => e.status);
    for (const id of ['c1', 'c2', 'c3']) expect(byCall(id)).toEqual(['pendingApproval', 'running', 'done']);
    const done = events.find((e) => e.callId === 'c3' && e.status === 'done')!;
    expect(done).toMatchObject({ step: 2, toolName: 'write_file', answerNodeId: path[4].nodeId, input: { path: 'c.ts' } });
    expect(done.startedAt).toBeDefined();
    expect(done.endedAt).toBeDefined();
    expect(chunks.filter(([step]) => step === 3).map(([, d]) => d).join('')).toBe('Fixed c.ts.');

    // All of it was stored as it happened: a fresh store reads the same tree.
    await storage.close();
    storage = await SqlJsConversationStorage.open(dbPath);
    const resumed = await ConversationManager.resume(m.conversationId, { llm: provider(api), storage });
    expect(resumed.getAllNodes()).toEqual(m.getAllNodes());
    expect(resumed.currentNodeId).toBe(m.currentNodeId);
  });

  it('runs calls that may change something one at a time, in the order the model gave', async () => {
    const m = await chat(api);
    const log: string[] = [];
    const executor = new ToolExecutor(loggingTools(log, 20));
    server.enqueue(
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: '1' } }, { id: 'r1', name: 'read_file', arguments: { path: '2' } }, { id: 'r2', name: 'read_file', arguments: { path: '3' } }, { id: 'w2', name: 'write_file', arguments: { path: '4' } }] },
      { content: 'Done.' },
    );
    await m.runWithTools({ executor, approve: allow });
    expect(log[0]).toBe('start write_file 1');
    expect(log[1]).toBe('end write_file 1');
    expect(log.slice(2, 4).sort()).toEqual(['start read_file 2', 'start read_file 3']);
    expect(log.slice(6)).toEqual(['start write_file 4', 'end write_file 4']);
    expect(m.getCurrentNodes().filter((n) => n.message.role === 'tool').map((n) => n.message.toolCallId)).toEqual(['w1', 'r1', 'r2', 'w2']);
  });

  it('tells onResultStored of each result once it is stored, before the next call runs, and a failing listener breaks nothing', async () => {
    const m = await chat(api);
    const log: string[] = [];
    const executor = new ToolExecutor(loggingTools(log, 5));
    server.enqueue({ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: '1' } }, { id: 'w2', name: 'write_file', arguments: { path: '2' } }] }, { content: 'Done.' });
    const result = await m.runWithTools({
      executor,
      approve: allow,
      onResultStored: async (node) => {
        // The node is in the store already: a listener reads it back through the manager.
        expect(m.getNode(node.nodeId).message.toolCallId).toBe(node.message.toolCallId);
        log.push(`stored ${node.message.toolCallId}`);
        if (node.message.toolCallId === 'w1') throw new Error('listener broke');
      },
    });
    expect(log).toEqual(['start write_file 1', 'end write_file 1', 'stored w1', 'start write_file 2', 'end write_file 2', 'stored w2']);
    expect(result.stopReason).toBe('answer');
  });

  it('gives the model a denial, an invalid input, an unknown tool and a thrown error as results it can act on', async () => {
    const m = await chat(api);
    const failing = defineTool({
      name: 'explode',
      description: 'Always fails.',
      inputSchema: { type: 'object', properties: {} },
      readOnly: true,
      run: () => {
        throw new Error('disk on fire');
      },
    });
    const executor = new ToolExecutor([...loggingTools([]), failing]);
    server.enqueue(
      {
        toolCalls: [
          { id: 'd1', name: 'write_file', arguments: { path: 'secret.env' } },
          { id: 'v1', name: 'read_file', arguments: { file: 'a.ts' } },
          { id: 'u1', name: 'rm_rf', arguments: {} },
          { id: 'e1', name: 'explode', arguments: {} },
          { id: 'j1', name: 'read_file', arguments: '{"path": "a.ts"' },
        ],
      },
      { content: 'I could not do it.' },
    );
    const asked: string[] = [];
    const events: ToolCallEvent[] = [];
    const result = await m.runWithTools({
      executor,
      approve: ({ call, readOnly }) => {
        asked.push(call.id);
        return readOnly ? 'allow' : { deny: 'Not that file.' };
      },
      onEvent: (e) => events.push(e),
    });
    expect(result.stopReason).toBe('answer');
    // Only calls that could run were put to the user.
    expect(asked).toEqual(['d1', 'e1']);
    const results = Object.fromEntries(m.getCurrentNodes().filter((n) => n.message.role === 'tool').map((n) => [n.message.toolCallId, n]));
    expect(results.d1.message.content).toBe(TOOL_RESULT_TEXTS.denied('Not that file.'));
    expect(readNodeMetadata(results.d1.metadata, 'toolResult')?.status).toBe('denied');
    expect(results.v1.message.content).toContain('"path" is required but missing');
    expect(results.v1.message.content).toContain('"file" is not a field of this tool');
    expect(results.v1.message.content).toContain('Call read_file again with corrected arguments');
    expect(results.u1.message.content).toBe(TOOL_RESULT_TEXTS.unknownTool('rm_rf', ['read_file', 'write_file', 'explode']));
    expect(results.e1.message.content).toBe(TOOL_RESULT_TEXTS.failed('explode', 'disk on fire'));
    expect(readNodeMetadata(results.e1.metadata, 'toolResult')?.status).toBe('failed');
    // Broken JSON reaches Arbor only as OpenAI's text; Ollama parses the model's output itself and sends an object.
    expect(results.j1.message.content).toMatch(api === 'openai' ? /^The arguments of read_file are not valid JSON \(.+\)\. Call read_file again/ : /"path" is required but missing/);
    expect(events.filter((e) => e.callId === 'd1').map((e) => [e.status, e.message])).toEqual([['pendingApproval', undefined], ['denied', 'Not that file.']]);
    expect(events.filter((e) => e.callId === 'v1').map((e) => e.status)).toEqual(['failed']);
    // The model read each of them.
    const sent = server.chatRequests()[1].body.messages as Array<Record<string, any>>;
    expect(sent.filter((x) => x.role === 'tool').map((x) => x.content)).toEqual(['d1', 'v1', 'u1', 'e1', 'j1'].map((id) => results[id].message.content));
    expect(wireProblems(api, sent)).toEqual([]);
  });

  it('runs a call with the arguments the user edited before approving, checks them again, and tells the model', async () => {
    const m = await chat(api);
    const log: string[] = [];
    const executor = new ToolExecutor(loggingTools(log, 1));
    server.enqueue(
      { content: '', toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'c.ts' } }, { id: 'w2', name: 'write_file', arguments: { path: 'd.ts' } }] },
      { content: 'Done.' },
    );
    const events: ToolCallEvent[] = [];
    await m.runWithTools({
      executor,
      approve: ({ call }) => (call.id === 'w1' ? { allow: { path: 'safe/c.ts' } } : { allow: { file: 'd.ts' } }),
      onEvent: (e) => events.push(e),
    });
    expect(log).toEqual(['start write_file safe/c.ts', 'end write_file safe/c.ts']);
    const results = Object.fromEntries(m.getCurrentNodes().filter((n) => n.message.role === 'tool').map((n) => [n.message.toolCallId, n]));
    expect(results.w1.message.content).toBe(`${TOOL_RESULT_TEXTS.edited({ path: 'safe/c.ts' })}\nwrite_file(safe/c.ts) ok`);
    expect(results.w1.metadata.editedInput).toEqual({ path: 'safe/c.ts' });
    expect(events.find((e) => e.callId === 'w1' && e.status === 'running')?.input).toEqual({ path: 'safe/c.ts' });
    // Edited arguments that the schema refuses never run: the result says what to fix.
    expect(readNodeMetadata(results.w2.metadata, 'toolResult')?.status).toBe('failed');
    expect(results.w2.message.content).toContain('"path" is required but missing');
  });

  it('stops after maxSteps answers, giving the last answer\'s calls a result that says why they did not run', async () => {
    const m = await chat(api);
    const executor = new ToolExecutor(loggingTools([], 1));
    for (let i = 0; i < 3; i++) server.enqueue({ toolCalls: [{ id: `s${i}`, name: 'read_file', arguments: { path: `${i}.ts` } }] });
    const result = await m.runWithTools({ executor, approve: allow, maxSteps: 3 });
    expect(result).toMatchObject({ stopReason: 'maxSteps', steps: 3 });
    expect(server.chatRequests()).toHaveLength(3);
    const last = m.getNode(m.currentNodeId);
    expect(last.message).toMatchObject({ role: 'tool', toolCallId: 's2', content: TOOL_RESULT_TEXTS.stepLimit(3) });
    expect(readNodeMetadata(last.metadata, 'toolResult')?.status).toBe('cancelled');
    expect(pathProblems(m.getCurrentNodes())).toEqual([]);
    await expect(m.runWithTools({ executor, approve: allow, maxSteps: 0 })).rejects.toThrow(/maxSteps must be a whole number/);
  });

  it('Stop while a tool runs cancels it and the calls after it, and leaves a valid path', async () => {
    const m = await chat(api);
    const controller = new AbortController();
    let sawSignal = false;
    const hang = defineTool({
      name: 'hang',
      description: 'Never returns unless stopped.',
      inputSchema: { type: 'object' },
      readOnly: false,
      run: (_input, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            sawSignal = true;
            resolve('too late');
          });
          setTimeout(() => controller.abort(), 30);
        }),
    });
    const executor = new ToolExecutor([hang, ...loggingTools([])]);
    server.enqueue({ content: 'Working.', toolCalls: [{ id: 'h1', name: 'hang', arguments: {} }, { id: 'w1', name: 'write_file', arguments: { path: 'x' } }] });
    const events: ToolCallEvent[] = [];
    const result = await m.runWithTools({ executor, approve: allow, signal: controller.signal, onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ stopReason: 'stopped', steps: 1 });
    expect(sawSignal).toBe(true);
    const [h1, w1] = m.getCurrentNodes().slice(-2);
    expect(h1.message.content).toBe(TOOL_RESULT_TEXTS.stoppedWhileRunning);
    expect(w1.message.content).toBe(TOOL_RESULT_TEXTS.stoppedBeforeRun);
    expect(events.filter((e) => e.callId === 'h1').map((e) => e.status)).toEqual(['pendingApproval', 'running', 'cancelled']);
    expect(events.filter((e) => e.callId === 'w1').map((e) => e.status)).toEqual(['cancelled']);
    expect(server.chatRequests()).toHaveLength(1);
    expect(pathProblems(m.getCurrentNodes())).toEqual([]);
  });

  it('Stop while waiting for approval takes the question down and cancels the call', async () => {
    const m = await chat(api);
    const controller = new AbortController();
    const executor = new ToolExecutor(loggingTools([]));
    server.enqueue({ toolCalls: [{ id: 'a1', name: 'write_file', arguments: { path: 'x' } }] });
    let questionClosed = false;
    const result = await m.runWithTools({
      executor,
      signal: controller.signal,
      approve: ({ signal }) => {
        signal.addEventListener('abort', () => (questionClosed = true));
        setTimeout(() => controller.abort(), 20);
        return new Promise(() => undefined);
      },
    });
    expect(result.stopReason).toBe('stopped');
    expect(questionClosed).toBe(true);
    expect(m.getNode(m.currentNodeId).message).toMatchObject({ role: 'tool', toolCallId: 'a1', content: TOOL_RESULT_TEXTS.stoppedBeforeRun });
  });

  it('Stop while the model streams keeps the partial answer and runs nothing', async () => {
    const m = await chat(api);
    const controller = new AbortController();
    server.enqueue({ tokens: ['One', ' two', ' three', ' four', ' five'], tokenDelayMs: 40 });
    let seen = '';
    const result = await m.runWithTools({
      executor: new ToolExecutor(loggingTools([])),
      approve: allow,
      signal: controller.signal,
      onChunk: (chunk) => {
        seen += chunk.delta;
        if (seen.includes('two')) controller.abort();
      },
    });
    expect(result.stopReason).toBe('stopped');
    const node = m.getNode(m.currentNodeId);
    expect(node.message.content.startsWith('One two')).toBe(true);
    expect(node.metadata).toMatchObject({ interrupted: true, stopReason: 'cancelled', toolStep: 1 });
    expect(result.nodeIds).toEqual([node.nodeId]);
  });

  it('Stop just as the answer\'s calls arrive keeps the answer and gives its calls results without running them', async () => {
    const m = await chat(api);
    const controller = new AbortController();
    const log: string[] = [];
    server.enqueue({ content: 'Let me look.', toolCalls: [{ id: 'q1', name: 'read_file', arguments: { path: 'a' } }] });
    const result = await m.runWithTools({
      executor: new ToolExecutor(loggingTools(log)),
      approve: allow,
      signal: controller.signal,
      onChunk: (chunk) => {
        if (chunk.toolCalls) controller.abort();
      },
    });
    expect(result.stopReason).toBe('stopped');
    expect(log).toEqual([]);
    const [answer, closed] = m.getCurrentNodes().slice(-2);
    expect(answer.message.toolCalls?.map((c) => c.id)).toEqual(['q1']);
    expect(answer.metadata).toMatchObject({ interrupted: true, stopReason: 'cancelled' });
    expect(closed.message).toMatchObject({ role: 'tool', toolCallId: 'q1', content: TOOL_RESULT_TEXTS.stoppedBeforeRun });
    expect(pathProblems(m.getCurrentNodes())).toEqual([]);
  });

  it('also runs with whole answers (stream: false), and a failing model call rejects after keeping what was done', async () => {
    const m = await chat(api);
    server.enqueue({ toolCalls: [{ id: 'n1', name: 'read_file', arguments: { path: 'a' } }] }, { status: 500, errorMessage: 'model crashed' });
    const error = await m.runWithTools({ executor: new ToolExecutor(loggingTools([])), approve: allow, stream: false }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/model crashed|internal/i);
    expect(server.chatRequests().every((r) => r.body.stream === false)).toBe(true);
    expect(m.getNode(m.currentNodeId).message).toMatchObject({ role: 'tool', toolCallId: 'n1', content: 'read_file(a) ok' });
    expect(pathProblems(m.getCurrentNodes())).toEqual([]);
  });
});

describe('runWithTools: which models get tools, and the guards around a run', () => {
  it('offers no tools to an Ollama model whose capabilities lack them, nor where the OpenAI setting says no', async () => {
    const ollama = await chat('ollama', new OllamaProvider({ host: server.url, model: 'arbor-test-model-2' }));
    server.enqueue({ content: 'Plain answer.' });
    const r1 = await ollama.runWithTools({ executor: new ToolExecutor(loggingTools([])), approve: allow });
    expect(r1).toMatchObject({ stopReason: 'answer', toolsOffered: false });
    expect(server.chatRequests().at(-1)?.body.tools).toBeUndefined();

    const openai = await chat('openai', provider('openai', { supportsTools: false }));
    server.enqueue({ content: 'Plain answer.' });
    const r2 = await openai.runWithTools({ executor: new ToolExecutor(loggingTools([])), approve: allow });
    expect(r2.toolsOffered).toBe(false);
    expect(server.chatRequests().at(-1)?.body.tools).toBeUndefined();

    const listed = new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', supportsTools: ['arbor-test-model'] });
    expect(await listed.supportsTools()).toBe(true);
    expect(await listed.supportsTools('other')).toBe(false);
    expect(await new OllamaProvider({ host: server.url, model: 'arbor-test-model' }).supportsTools()).toBe(true);
  });

  it('a run started by the markers of the default fake model ends with an answer about the results', async () => {
    const m = await ConversationManager.create({ llm: provider('ollama'), storage });
    await m.addMessage({ role: 'user', content: 'Please [[tool:read_file {"path": "x.ts"}]] and [[tool:read_file {"path": "y.ts"}]]' });
    const result = await m.runWithTools({ executor: new ToolExecutor(loggingTools([], 1)), approve: allow });
    expect(result.stopReason).toBe('answer');
    expect(result.response?.content).toBe('[arbor-test-model] Tool results: read_file(x.ts) ok | read_file(y.ts) ok');
  });

  it('keeps the branch of a running run from deletion and refuses a message under its open calls', async () => {
    const m = await chat('openai');
    const question = m.currentNodeId;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = defineTool({ name: 'slow', description: 'Waits.', inputSchema: { type: 'object' }, readOnly: true, run: async () => (started(), await gate, 'ok') });
    server.enqueue({ toolCalls: [{ id: 'g1', name: 'slow', arguments: {} }] }, { content: 'Done.' });
    const run = m.runWithTools({ executor: new ToolExecutor([slow]), approve: allow });
    await running;
    await expect(m.deleteBranch(question)).rejects.toBeInstanceOf(InvalidOperationError);
    await expect(m.addMessage({ role: 'user', content: 'meanwhile' })).rejects.toThrow(/Tools are still running/);
    expect(await m.repairToolCalls()).toEqual([]);
    release();
    await expect(run).resolves.toMatchObject({ stopReason: 'answer' });
    await m.deleteBranch(question);
  });

  it('closes calls a killed run left open when the conversation goes on, and sends a result for every call even on an old path', async () => {
    const m = await chat('openai');
    await m.addMessage({ role: 'assistant', content: '', toolCalls: [{ id: 'k1', type: 'function', function: { name: 'read_file', arguments: '{}' } }, { id: 'k2', type: 'function', function: { name: 'write_file', arguments: '{}' } }] });
    await m.addMessage({ role: 'tool', content: 'k1 done', toolCallId: 'k1', name: 'read_file' });
    // A message added now goes under an interrupted result for k2, never straight under the open call.
    const next = await m.addMessage({ role: 'user', content: 'What happened?' });
    const path = m.getCurrentNodes();
    const repaired = path[path.length - 2];
    expect(repaired.message).toEqual({ role: 'tool', content: TOOL_RESULT_TEXTS.interrupted, toolCallId: 'k2', name: 'write_file' });
    expect(next.parentId).toBe(repaired.nodeId);
    expect(pathProblems(path)).toEqual([]);

    // A path stored without the results (by an older version, say) still sends one per call.
    const at = new Date().toISOString();
    const node = (nodeId: string, parentId: string | null, message: ConversationNode['message']): ConversationNode => ({ nodeId, parentId, position: 0, message, timestamp: at, metadata: {} });
    await storage.saveConversation({
      conversationId: 'old',
      nodes: [
        node('', null, { role: 'system', content: '' }),
        node('n1', '', { role: 'user', content: 'q' }),
        node('n2', 'n1', { role: 'assistant', content: '', toolCalls: [{ id: 'o1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] }),
        node('n3', 'n2', { role: 'user', content: 'and now?' }),
      ],
      currentNodeId: 'n3',
      metadata: {},
      createdAt: at,
      updatedAt: at,
    });
    const old = await ConversationManager.resume('old', { llm: provider('openai'), storage });
    server.enqueue({ content: 'ok' });
    await old.complete();
    const sent = server.chatRequests().at(-1)?.body.messages as Array<Record<string, any>>;
    expect(sent.map((x) => x.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(wireProblems('openai', sent)).toEqual([]);
    expect(sent.find((x) => x.tool_call_id === 'o1')?.content).toBe(TOOL_RESULT_TEXTS.interrupted);
  });
});
