import { describe, expect, it } from 'vitest';
import type { LLMMessage, ToolDefinition } from '../../core/index';
import { calledToolNames, fitToolWindow, latestUserText, leftOutSummary, toolBudget, type ToolWindowRequest } from './toolWindow';

const tool = (name: string, description: string, properties: Record<string, unknown> = { path: { type: 'string', description: 'A path in the workspace.' } }): ToolDefinition => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties } },
});

/** Forty tools: three that matter to the questions below, and many that talk of other things at length. */
const TOOLS: ToolDefinition[] = [
  tool('read_file', 'Reads a text file of the workspace and answers its lines. Use it to look at source code before answering questions about it.'),
  tool('list_files', 'Lists the files of a folder of the workspace, with their sizes. Use it to find where things are.'),
  tool('mcp_everything_get-sum', 'Returns the sum of two numbers. It adds a and b and answers the total.', { a: { type: 'number' }, b: { type: 'number' } }),
  ...Array.from({ length: 37 }, (_, i) =>
    tool(`mcp_weather_station_${i}`, `Reports the weather of station ${i}: temperature, humidity, wind and rain, hour by hour for the coming week, from the national service. Stations cover the coast and the hills.`),
  ),
];

/** Counts a definition list as its JSON's characters over four: the fitting works the same with any counter. */
const countTools = (definitions: readonly ToolDefinition[]) => (definitions.length ? Math.ceil(JSON.stringify(definitions).length / 4) : 0);

const request = (overrides: Partial<ToolWindowRequest> = {}): ToolWindowRequest => ({
  definitions: TOOLS,
  limit: 4096,
  reserve: 409,
  share: 0.25,
  otherTokens: 300,
  query: 'read src/cart.ts',
  keep: new Set(),
  countTools,
  ...overrides,
});

describe('the tools a request carries in a small window', () => {
  it('gives the tools a share of the window, never more than the room the rest of the request leaves', () => {
    expect(toolBudget(4096, 409, 0.25, 300)).toBe(1024);
    expect(toolBudget(4096, 409, 0.25, 3000)).toBe(687);
    expect(toolBudget(4096, 409, 0.25, 5000)).toBe(0);
    expect(toolBudget(undefined, 0, 0.25, 300)).toBeUndefined();
  });

  it('sends every tool whole when they fit, or when the window is unknown', () => {
    const small = TOOLS.slice(0, 3);
    const fits = fitToolWindow(request({ definitions: small }));
    expect(fits.offered).toEqual(small);
    expect(fits.leftOut).toEqual([]);
    const unknown = fitToolWindow(request({ limit: undefined }));
    expect(unknown.offered).toHaveLength(TOOLS.length);
    expect(unknown.tokens).toBe(countTools(TOOLS));
  });

  it('keeps the tools within the budget, the one the question needs among them, and says how many it left out', () => {
    expect(countTools(TOOLS)).toBeGreaterThan(3 * 1024);
    const read = fitToolWindow(request());
    expect(read.tokens).toBeLessThanOrEqual(1024);
    expect(read.tokens).toBe(countTools(read.offered));
    expect(read.offered.map((d) => d.function.name)).toContain('read_file');
    expect(read.leftOut.length).toBeGreaterThan(0);
    expect(read.total).toBe(40);
    expect(leftOutSummary(read, 'gemma3', 4096)).toBe(`${40 - read.leftOut.length} of 40 tools offered to fit gemma3's 4,096-token window`);

    const sum = fitToolWindow(request({ query: 'add 2 and 40 with the everything server' }));
    expect(sum.offered.map((d) => d.function.name)).toContain('mcp_everything_get-sum');
    expect(sum.tokens).toBeLessThanOrEqual(1024);
  });

  it('keeps the tools the conversation called and the pinned ones, whatever the question', () => {
    const kept = fitToolWindow(request({ query: 'read src/cart.ts', keep: new Set(['mcp_weather_station_7']) }));
    expect(kept.offered.map((d) => d.function.name)).toEqual(expect.arrayContaining(['read_file', 'mcp_weather_station_7']));
  });

  it('reads what the tools are chosen by from the path: the latest user message and the tools already called', () => {
    const path: LLMMessage[] = [
      { role: 'system', content: 'You help.' },
      { role: 'user', content: 'what is in cart.ts?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/cart.ts"}' } }] },
      { role: 'tool', content: 'export function totalCents…', toolCallId: 'c1' },
      { role: 'assistant', content: 'It sums the items.' },
    ];
    expect(latestUserText(path)).toBe('what is in cart.ts?');
    expect([...calledToolNames(path)]).toEqual(['read_file']);
    expect(latestUserText([])).toBe('');
  });
});
