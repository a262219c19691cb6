/**
 * Tool definitions on the wire: both providers send the `tools` array whose JSON the token counters
 * count (`toolsJson`), checked against the raw bodies the fake server received; and the meter counts
 * tool definitions as the request guard does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationTree, OllamaProvider, ROOT_NODE_ID, OpenAIProvider, type LLMProvider, type ToolDefinition } from '../../../src/core/index';
import { contextUsage, ESTIMATE_COUNTER } from '../../../src/core/conversation/contextUsage';
import { EstimatingTokenCounter, exactTokenCounter } from '../../../src/core/llm/tokenCount';
import { toolsJson } from '../../../src/core/llm/wireTools';
import { toolSet } from '../../fixtures/toolCatalog';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());

/** The text of the top-level `"tools": [...]` value in a raw JSON body, as it was sent. */
function rawToolsArray(raw: string): string {
  const body = JSON.parse(raw) as Record<string, unknown>;
  expect(Array.isArray(body.tools)).toBe(true);
  let start = raw.indexOf('"tools":[');
  while (start >= 0) {
    let depth = 0;
    let inString = false;
    for (let i = start + 8; i < raw.length; i++) {
      const c = raw[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        depth--;
        if (depth === 0) {
          const text = raw.slice(start + 8, i + 1);
          if (JSON.stringify(JSON.parse(text)) === JSON.stringify(body.tools)) return text;
          break;
        }
      }
    }
    start = raw.indexOf('"tools":[', start + 1);
  }
  throw new Error('no tools array in the body');
}

const providers: Array<[string, () => LLMProvider]> = [
  ['openai', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 })],
  ['ollama', () => new OllamaProvider({ host: server.url, model: 'arbor-test-model' })],
];

describe.each(providers)('tools on the %s wire', (_api, make) => {
  it('are the array the counters count, byte for byte', async () => {
    const tools: ToolDefinition[] = [
      ...toolSet(20),
      // Extra fields a caller may have added are not sent, and not counted; quotes and non-ASCII text are.
      { type: 'function', function: { name: 'quoted', description: 'Says "hi" — naïvely, 日本語 too.\n\tTabbed.', parameters: { type: 'object' } }, extra: 'not sent' } as ToolDefinition,
      { type: 'function', function: { name: 'bare' } },
    ];
    await make().complete([{ role: 'user', content: 'Hello.' }], { tools });
    const raw = server.chatRequests()[0].rawBody;
    const sent = rawToolsArray(raw);
    expect(sent).toBe(toolsJson(tools));
    expect(sent).not.toContain('not sent');
    const exact = await exactTokenCounter('o200k_base');
    expect(exact.countTools(tools)).toBe(exact.countText(sent));
    const estimate = new EstimatingTokenCounter();
    expect(estimate.countTools(tools)).toBe(estimate.countText(sent));
  });
});

describe('the meter counts tools as the request guard does', () => {
  it('uses the counter\'s countTools, without message framing', async () => {
    const tree = new ConversationTree([{ nodeId: ROOT_NODE_ID, parentId: null, message: { role: 'system', content: 'Be brief.' }, timestamp: new Date(0).toISOString(), metadata: {}, position: 0 }]);
    const exact = await exactTokenCounter('o200k_base');
    const tools = toolSet(53);
    const usage = contextUsage(tree, ROOT_NODE_ID, { tools, counter: exact });
    expect(usage.parts.tools).toBe(exact.countTools(tools));
    const estimated = contextUsage(tree, ROOT_NODE_ID, { tools });
    expect(estimated.parts.tools).toBe(ESTIMATE_COUNTER.countTools?.(tools));
    expect(estimated.parts.tools).toBe(new EstimatingTokenCounter().countTools(tools));
  });
});
