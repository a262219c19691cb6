import { describe, expect, it } from 'vitest';
import { builtinToolDefs, toolSet } from '../../../test/fixtures/toolCatalog';
import { EstimatingTokenCounter, exactTokenCounter } from '../llm/tokenCount';
import type { ToolDefinition } from '../types';
import { DESCRIBE_TOOL_DEFINITION, DESCRIBE_TOOL_NAME } from './describeTool';
import { firstSentence, fitTools, shortenTool } from './toolFit';

const names = (defs: readonly ToolDefinition[]) => defs.map((d) => d.function.name);

describe('firstSentence', () => {
  it('ends at the first sentence end, not at abbreviations, versions or file names', () => {
    expect(firstSentence('Reads a file. Then more.')).toBe('Reads a file.');
    expect(firstSentence('Lists things, e.g. files and folders. More text.')).toBe('Lists things, e.g. files and folders.');
    expect(firstSentence('Formats text (i.e. wraps it) with v1.2.3 rules. More.')).toBe('Formats text (i.e. wraps it) with v1.2.3 rules.');
    expect(firstSentence('Opens package.json and reads it! Next.')).toBe('Opens package.json and reads it!');
    expect(firstSentence('Is it there? Yes.')).toBe('Is it there?');
    expect(firstSentence('A heading without a period\n\nThe body. More.')).toBe('A heading without a period');
  });

  it('keeps about 200 characters of a text with no sentence end, cut at a word', () => {
    expect(firstSentence('no period here')).toBe('no period here');
    const long = 'word '.repeat(100);
    const cut = firstSentence(long);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBeGreaterThan(150);
    expect(cut.length).toBeLessThanOrEqual(201);
    expect(cut).not.toMatch(/wor…$/);
  });
});

describe('shortenTool', () => {
  it('cuts the description and the parameters\' descriptions, keeping the schema otherwise', () => {
    const def = builtinToolDefs().find((d) => d.function.name === 'read_file') as ToolDefinition;
    const short = shortenTool(def);
    expect(short.function.description).toBe('Reads a text file of the workspace and returns its lines with line numbers.');
    const props = (short.function.parameters as { properties: Record<string, { description: string; type: string }> }).properties;
    expect(props.path).toEqual({ type: 'string', description: 'Workspace-relative path of the file, e.g. src/app.ts.' });
    expect((short.function.parameters as { required: string[] }).required).toEqual(['path']);
    expect(def.function.description).toContain('Prefer this');
    const plain: ToolDefinition = { type: 'function', function: { name: 'x', description: 'One.' } };
    expect(shortenTool(plain)).toBe(plain);
  });
});

describe('fitTools', () => {
  const counter = new EstimatingTokenCounter();
  const countTools = (defs: readonly ToolDefinition[]) => counter.countTools(defs);
  const tools = toolSet(53);
  const all = countTools(tools);

  it('sends everything unchanged when it fits', () => {
    const fit = fitTools({ tools, query: 'hi', budgetTokens: all, countTools });
    expect(fit.offered).toEqual(tools);
    expect(fit).toMatchObject({ leftOut: [], shortened: [], tokens: all, allTokens: all, overBudget: false });
  });

  it('shortens descriptions, the biggest savings first, when that is enough, and offers describe_tool', () => {
    const builtins = builtinToolDefs();
    const whole = countTools(builtins);
    const fit = fitTools({ tools: builtins, query: 'hi', budgetTokens: whole, countTools });
    expect(fit.leftOut).toEqual([]);
    const tight = fitTools({ tools: builtins, query: 'hi', budgetTokens: whole - 20, countTools });
    expect(tight.leftOut).toEqual([]);
    expect(tight.shortened.length).toBeGreaterThan(0);
    expect(tight.shortened.length).toBeLessThan(builtins.length);
    expect(names(tight.offered)).toEqual([...names(builtins), DESCRIBE_TOOL_NAME]);
    expect(tight.tokens).toBe(countTools(tight.offered));
    expect(tight.tokens).toBeLessThanOrEqual(whole - 20);
    expect(fit.shortened).toEqual([]);
  });

  it('offers the kept and the most relevant tools within the budget, in the input order', () => {
    const fit = fitTools({ tools, query: 'add 2 and 40 with the everything server', budgetTokens: 600, countTools, keep: new Set(['git_log']) });
    const offered = names(fit.offered);
    expect(offered).toContain('mcp_everything_get-sum');
    expect(offered).toContain('git_log');
    expect(offered[offered.length - 1]).toBe(DESCRIBE_TOOL_NAME);
    expect(offered.length).toBeLessThan(tools.length);
    expect(fit.tokens).toBe(countTools(fit.offered));
    expect(fit.tokens).toBeLessThanOrEqual(600);
    expect(fit.overBudget).toBe(false);
    expect(fit.allTokens).toBe(all);
    const order = names(tools);
    const positions = offered.slice(0, -1).map((n) => order.indexOf(n));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set([...offered, ...fit.leftOut]).size).toBe(tools.length + 1);
    expect(fit.leftOut.length + offered.length - 1).toBe(tools.length);
  });

  it('keeps the needed tool for each target question with the 53 tools in a quarter of a 4,096-token window, counted by o200k', async () => {
    const exact = await exactTokenCounter('o200k_base');
    const count = (d: readonly ToolDefinition[]) => exact.countTools(d);
    for (const [query, needed] of [['read src/cart.ts', 'read_file'], ['add 2 and 40 with the everything server', 'mcp_everything_get-sum']]) {
      const fit = fitTools({ tools, query, budgetTokens: 1024, countTools: count });
      expect(names(fit.offered)).toContain(needed);
      expect(fit.tokens).toBeLessThanOrEqual(1024);
      expect(count(fit.offered)).toBe(fit.tokens);
    }
  });

  it('goes over the budget only by the kept tools, and says so', () => {
    const keep = new Set(names(tools).slice(0, 20));
    const fit = fitTools({ tools, query: 'x', budgetTokens: 100, countTools, keep });
    expect(fit.overBudget).toBe(true);
    expect(names(fit.offered)).toEqual(names(tools).slice(0, 20));
    expect(fit.leftOut).toHaveLength(tools.length - 20);
    const none = fitTools({ tools, query: 'x', budgetTokens: 10, countTools });
    expect(none).toMatchObject({ offered: [], tokens: 0, overBudget: false });
  });

  it('drops the least relevant tools when the exact count is over the per-tool estimate', () => {
    // A counter whose count of several tools is more than the sum of their counts alone.
    const padded = (d: readonly ToolDefinition[]) => countTools(d) + 15 * d.length * d.length;
    const fit = fitTools({ tools, query: 'read src/cart.ts', budgetTokens: 1500, countTools: padded });
    const plain = fitTools({ tools, query: 'read src/cart.ts', budgetTokens: 1500, countTools });
    expect(fit.offered.length).toBeLessThan(plain.offered.length);
    expect(fit.tokens).toBe(padded(fit.offered));
    expect(fit.tokens).toBeLessThanOrEqual(1500);
    expect(names(fit.offered)).toContain('read_file');
  });

  it('refuses a budget that is not a number of 0 or more', () => {
    expect(() => fitTools({ tools, query: 'x', budgetTokens: Number.NaN, countTools })).toThrow(/budgetTokens/);
    expect(() => fitTools({ tools, query: 'x', budgetTokens: -1, countTools })).toThrow(/budgetTokens/);
  });

  it('treats a describe_tool in the list as its own: offered only when something is cut', () => {
    const withDescribe = [...builtinToolDefs(), DESCRIBE_TOOL_DEFINITION];
    const roomy = fitTools({ tools: withDescribe, query: 'x', budgetTokens: 100_000, countTools });
    expect(names(roomy.offered)).not.toContain(DESCRIBE_TOOL_NAME);
    const tight = fitTools({ tools: withDescribe, query: 'x', budgetTokens: 400, countTools });
    expect(names(tight.offered).filter((n) => n === DESCRIBE_TOOL_NAME)).toHaveLength(1);
    expect(tight.leftOut).not.toContain(DESCRIBE_TOOL_NAME);
  });
});
