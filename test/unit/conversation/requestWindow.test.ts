/**
 * The request guard: with `CompleteOptions.window`, a request whose messages and tool definitions count
 * more than the window is refused before anything is sent or stored, for `complete`, `streamComplete`
 * and each step of `runWithTools`; one that fits goes. Real sql.js store, the fake server over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, defineTool, isContextLengthError, OllamaProvider, OpenAIProvider, RequestTooLargeError, ToolExecutor, type LLMProvider, type ToolDefinition } from '../../../src/core/index';
import { EstimatingTokenCounter } from '../../../src/core/llm/tokenCount';
import { builtinToolDefs } from '../../fixtures/toolCatalog';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { useTempStore } from '../../fixtures/tempStore';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());
const store = useTempStore('arbor-request-window-');

const APIS = ['openai', 'ollama'] as const;
const counter = new EstimatingTokenCounter();

function provider(api: (typeof APIS)[number]): LLMProvider {
  return api === 'openai' ? new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 }) : new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
}

async function chat(api: (typeof APIS)[number]): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm: provider(api), storage: store.storage, systemPrompt: 'Be brief.' });
  await m.addMessage({ role: 'user', content: 'Hello there.' });
  return m;
}

describe.each(APIS)('the request window over %s', (api) => {
  const tools: ToolDefinition[] = builtinToolDefs();
  const toolTokens = counter.countTools(tools);

  it('refuses complete and streamComplete over the window: nothing sent, nothing stored, not a provider error', async () => {
    const m = await chat(api);
    const before = m.getCurrentNodes().length;
    const window = { maxPromptTokens: toolTokens, counter, model: 'gemma3' };
    const error = await m.complete({ tools, window }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTooLargeError);
    const refused = error as RequestTooLargeError;
    expect(refused.toolTokens).toBe(toolTokens);
    expect(refused.messageTokens).toBeGreaterThan(0);
    expect(refused).toMatchObject({ tokens: refused.messageTokens + toolTokens, maxPromptTokens: toolTokens, model: 'gemma3' });
    expect(refused.message).toContain("gemma3's window");
    expect(refused.message).toMatch(/tools off/);
    expect(isContextLengthError(error)).toBe(false);
    const stream = m.streamComplete({ tools, window });
    await expect(stream.next()).rejects.toBeInstanceOf(RequestTooLargeError);
    expect(server.chatRequests()).toHaveLength(0);
    expect(m.getCurrentNodes()).toHaveLength(before);
  });

  it('sends a request that fits', async () => {
    const m = await chat(api);
    const messageTokens = counter.countMessages(m.getCurrentNodes().slice(1).map((n) => n.message)) + counter.countMessages([{ role: 'system', content: 'Be brief.' }]);
    const response = await m.complete({ tools, window: { maxPromptTokens: toolTokens + messageTokens, counter } });
    expect(response.content).toContain('Echo');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('checks every step of a tool run: the step whose results overflow is refused before it is sent', async () => {
    const m = await chat(api);
    const big = defineTool<{ path: string }>({
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      readOnly: true,
      run: () => 'line of text\n'.repeat(2_000),
    });
    server.enqueue({ content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }] });
    const executor = new ToolExecutor([big]);
    const run = m.runWithTools({ executor, approve: () => 'allow', window: { maxPromptTokens: 1_000, counter } });
    await expect(run).rejects.toBeInstanceOf(RequestTooLargeError);
    expect(server.chatRequests()).toHaveLength(1);
    expect(m.getCurrentNodes().at(-1)?.message.role).toBe('tool');
    await executor.dispose();
  });
});
