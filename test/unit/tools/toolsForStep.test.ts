/**
 * `toolsForStep`: a tool run offers each step the tools the host chooses for it, asked after the
 * previous step's results are stored, through `ConversationManager.runWithTools` against the fake
 * model server in both wire formats and the real sql.js store.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, defineTool, OllamaProvider, OpenAIProvider, ToolExecutor, type LLMProvider, type Tool } from '../../../src/core/index';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { useTempStore } from '../../fixtures/tempStore';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0, capabilities: { 'arbor-test-model-2': ['completion'] } });

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());
const store = useTempStore('arbor-tools-for-step-');

const APIS = ['openai', 'ollama'] as const;

function provider(api: (typeof APIS)[number], model = 'arbor-test-model'): LLMProvider {
  return api === 'openai' ? new OpenAIProvider({ baseURL: server.openaiBaseUrl, model, maxRetries: 0, supportsTools: model === 'arbor-test-model' }) : new OllamaProvider({ host: server.url, model });
}

function tools(ran: string[]): Tool[] {
  const tool = (name: string): Tool<{ path: string }> =>
    defineTool<{ path: string }>({
      name,
      description: `${name} a file.`,
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      readOnly: true,
      run: ({ path: p }) => {
        ran.push(`${name} ${p}`);
        return `${name} ok`;
      },
    });
  return [tool('read_file'), tool('write_file'), tool('list_files')];
}

const offered = (body: { tools?: Array<{ function: { name: string } }> }) => body.tools?.map((t) => t.function.name);

describe.each(APIS)('toolsForStep over %s', (api) => {
  it('offers each step what it answers, asked after the previous results are stored, and runs a called tool that was not offered', async () => {
    const m = await ConversationManager.create({ llm: provider(api), storage: store.storage, systemPrompt: 'Use the tools.' });
    await m.addMessage({ role: 'user', content: 'Read a.ts, then write b.ts.' });
    server.enqueue(
      { content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }] },
      { content: '', toolCalls: [{ id: 'c2', name: 'write_file', arguments: { path: 'b.ts' } }] },
      { content: 'Done.' },
    );
    const order: string[] = [];
    const ran: string[] = [];
    const result = await m.runWithTools({
      executor: new ToolExecutor(tools(ran)),
      approve: () => 'allow',
      onResultStored: (node) => void order.push(`stored ${node.message.toolCallId}`),
      toolsForStep: async (step) => {
        order.push(`ask ${step}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (step === 1) return [{ type: 'function', function: { name: 'read_file', description: 'Reads.', parameters: { type: 'object' } } }];
        return step === 2 ? [] : undefined;
      },
    });
    expect(result).toMatchObject({ stopReason: 'answer', steps: 3 });
    expect(order).toEqual(['ask 1', 'stored c1', 'ask 2', 'stored c2', 'ask 3']);
    expect(ran).toEqual(['read_file a.ts', 'write_file b.ts']);
    const bodies = server.chatRequests().map((r) => r.body);
    expect(bodies.map(offered)).toEqual([['read_file'], undefined, ['read_file', 'write_file', 'list_files']]);
  });

  it('is not asked when the model does not take tools', async () => {
    const m = await ConversationManager.create({ llm: provider(api, 'arbor-test-model-2'), storage: store.storage });
    await m.addMessage({ role: 'user', content: 'Hello.' });
    let asked = 0;
    const result = await m.runWithTools({ executor: new ToolExecutor(tools([])), approve: () => 'allow', configOverrides: { model: 'arbor-test-model-2' }, toolsForStep: () => {
      asked++;
      return undefined;
    } });
    expect(result.toolsOffered).toBe(false);
    expect(asked).toBe(0);
    expect(server.chatRequests().at(-1)?.body.tools).toBeUndefined();
  });
});
