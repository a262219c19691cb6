import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMStreamChunk } from '../../../src/core/types';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
beforeAll(() => server.start());
afterAll(() => server.stop());
afterEach(() => server.reset());

async function text(stream: AsyncIterable<LLMStreamChunk>): Promise<{ content: string; thinking: string; chunks: number }> {
  let content = '';
  let thinking = '';
  let chunks = 0;
  for await (const c of stream) {
    content += c.delta;
    thinking += c.thinkingDelta ?? '';
    chunks++;
  }
  return { content, thinking, chunks };
}

describe('FakeLlmServer default behaviour', () => {
  const openai = () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 });
  const ollama = () => new OllamaProvider({ host: server.url, model: 'arbor-test-model-2' });

  it('echoes the last user message, naming the model that answered, in both formats', async () => {
    expect((await text(openai().stream([{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'hello world' }]))).content)
      .toBe('[arbor-test-model] Echo: hello world');
    const res = await ollama().complete([{ role: 'user', content: 'hi there' }]);
    expect(res.content).toBe('[arbor-test-model-2] Echo: hi there');
    const viaTag = await ollama().complete([{ role: 'user', content: 'tagged' }], { model: 'arbor-test-model-2:latest' });
    expect(viaTag.content).toBe('[arbor-test-model-2] Echo: tagged');
  });

  it('answers the markers: xss payload, thinking, error, tool call', async () => {
    const xss = await text(openai().stream([{ role: 'user', content: 'show [[xss]]' }]));
    expect(xss.content).toBe('<img src=x onerror="document.body.dataset.pwned=1"> <script>document.body.dataset.pwned=2</script> **bold**');
    const think = await text(ollama().stream([{ role: 'user', content: 'why [[think]]' }], { think: true }));
    expect(think.thinking).toContain('step by step');
    await expect(openai().complete([{ role: 'user', content: 'boom [[error]]' }])).rejects.toMatchObject({ kind: 'server', status: 500 });
    const tool = await openai().complete([{ role: 'user', content: 'use [[tool]]' }], { tools: [{ type: 'function', function: { name: 'lookup' } }] });
    expect(tool.toolCalls?.[0].function.name).toBe('lookup');
  });

  it('scripts tool calls in each wire format: OpenAI argument fragments by index, Ollama whole calls with ids', async () => {
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a.ts' }, pieces: 3 }, { id: 'c2', name: 'grep', arguments: '{"q":"x"}' }] });
    const sse = await fetch(`${server.openaiBaseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'arbor-test-model', stream: true, messages: [] }) }).then((r) => r.text());
    const deltas = sse.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices[0]?.delta?.tool_calls?.[0]).filter(Boolean);
    expect(deltas.map((d) => [d.index, d.id, d.function.name])).toEqual([
      [0, 'c1', 'read'], [0, undefined, undefined], [0, undefined, undefined],
      [1, 'c2', 'grep'], [1, undefined, undefined], [1, undefined, undefined],
    ]);
    const joined = (index: number) => deltas.filter((d) => d.index === index).map((d) => d.function.arguments).join('');
    expect([joined(0), joined(1)]).toEqual(['{"path":"a.ts"}', '{"q":"x"}']);
    server.enqueue({ toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a.ts' } }, { id: 'c2', name: 'grep', arguments: '{"q":"x"}' }] });
    const ndjson = await fetch(`${server.url}/api/chat`, { method: 'POST', body: JSON.stringify({ model: 'arbor-test-model', messages: [] }) }).then((r) => r.text());
    const withCalls = ndjson.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.message?.tool_calls);
    expect(withCalls.map((l) => l.message.tool_calls)).toEqual([[
      { id: 'c1', function: { index: 0, name: 'read', arguments: { path: 'a.ts' } } },
      { id: 'c2', function: { index: 1, name: 'grep', arguments: { q: 'x' } } },
    ]]);
  });

  it('calls the tools the markers name, and answers a request that ends with tool results with them', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'read' } }];
    const asked = await ollama().complete([{ role: 'user', content: 'do [[tool:read {"path": "a.ts"}]] then [[tool:read]]' }], { tools });
    expect(asked.toolCalls?.map((c) => [c.function.name, c.function.arguments])).toEqual([['read', '{"path":"a.ts"}'], ['read', '{}']]);
    const noTools = await ollama().complete([{ role: 'user', content: 'do [[tool:read]]' }]);
    expect(noTools.toolCalls).toBeUndefined();
    const answered = await openai().complete([
      { role: 'user', content: 'do [[tool:read]]' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'x', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', content: 'file text', toolCallId: 'x' },
    ], { tools });
    expect(answered.content).toBe('[arbor-test-model] Tool results: file text');
  });

  it('streams 200 tokens for [[slow]] and can be stopped', async () => {
    const controller = new AbortController();
    let seen = 0;
    await expect((async () => {
      for await (const c of openai().stream([{ role: 'user', content: '[[slow]]' }], { signal: controller.signal })) {
        if (c.delta) seen++;
        if (seen === 2) controller.abort();
      }
    })()).rejects.toMatchObject({ kind: 'aborted' });
    expect(seen).toBe(2);
  });

  it('refuses unknown models with each API\'s 404 and records what was sent', async () => {
    await expect(openai().complete([{ role: 'user', content: 'x' }], { model: 'nope' })).rejects.toMatchObject({ kind: 'model_not_found' });
    await expect(ollama().complete([{ role: 'user', content: 'x' }], { model: 'nope' })).rejects.toMatchObject({ kind: 'model_not_found' });
    expect(server.chatRequests().map((r) => [r.api, r.body.model])).toEqual([['openai', 'nope'], ['ollama', 'nope']]);
  });

  it('runs standalone and prints its address', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/fakeLlmServer.ts', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const res = await new OpenAIProvider({ baseURL: `${url}/v1`, model: 'arbor-test-model', maxRetries: 0 }).complete([{ role: 'user', content: 'ping' }]);
      expect(res.content).toBe('[arbor-test-model] Echo: ping');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('FakeLlmServer queue over HTTP', () => {
  it('serves replies queued with POST /__fake/enqueue in order, refuses a body that is not replies, and empties the queue on reset-queue', async () => {
    const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const queued = await post('/__fake/enqueue', [{ content: '{"verdict":"ok"}' }, { content: 'second' }]);
    expect(await queued.json()).toEqual({ queued: 2 });
    expect((await post('/__fake/enqueue', [1, 2])).status).toBe(400);
    const openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 });
    expect((await openai.complete([{ role: 'user', content: 'a' }])).content).toBe('{"verdict":"ok"}');
    await post('/__fake/reset-queue', {});
    expect((await openai.complete([{ role: 'user', content: 'b' }])).content).toBe('[arbor-test-model] Echo: b');
  });
});
