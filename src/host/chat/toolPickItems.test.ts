import { describe, expect, it } from 'vitest';
import { tokenCounterFor } from '../../core/index';
import type { OfferedTool } from '../tools/offeredTool';
import { firstLine, MAX_COUNTED_DEFINITION_CHARS, MAX_DETAIL_CHARS, toolPickItems, toolTokens, type ToolPickRow } from './toolPickItems';

const tool = (name: string, source: OfferedTool['source'], description: string, extra: Partial<OfferedTool> = {}): OfferedTool => ({
  tool: { name, description, inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, readOnly: true, run: () => '' },
  source,
  displayName: name,
  ...extra,
});
const mcp = (server: string, own: string) => tool(`mcp_${server}_${own}`, 'mcp', `${own} on ${server}`, { server, ownName: own, displayName: `${server} › ${own}` });
const readFile = tool('read_file', 'builtin', '\n  Reads a file of the workspace.  \nSecond line.');
const leaves = tool('leaf_counter', 'extension', 'Counts leaves.');
const echo = mcp('everything', 'echo');
const sum = mcp('everything', 'get-sum');
const write = mcp('filesystem', 'write_file');

describe('the tools picker rows', () => {
  it('groups built-in tools, each MCP server in order of first appearance, then other extensions', () => {
    const items = toolPickItems([leaves, write, echo, readFile, sum], [10, 20, 30, 40, 50], undefined, undefined);
    expect(items.map((i) => (i.kind === 'separator' ? `# ${i.label}` : i.label))).toEqual([
      '# Built-in',
      'read_file',
      '# MCP: filesystem',
      'filesystem › write_file',
      '# MCP: everything',
      'everything › echo',
      'everything › get-sum',
      '# Other extensions',
      'leaf_counter',
    ]);
  });

  it('shows each tool\'s cost, the first line of its description, and whether it is ticked and pinned', () => {
    const rows = toolPickItems([readFile, echo, leaves], [1234.4, 7, 99], { on: [], off: ['mcp/everything/echo'] }, { on: [], off: [], pinned: ['builtin/read_file'] }).filter(
      (i): i is ToolPickRow => i.kind === 'tool',
    );
    expect(rows.map((r) => [r.key, r.description, r.detail, r.picked, r.pinned])).toEqual([
      ['builtin/read_file', '~1,234 tokens', 'Reads a file of the workspace.', true, true],
      ['mcp/everything/echo', '~7 tokens', 'echo on everything', false, false],
      ['extension/leaf_counter', '~99 tokens', 'Counts leaves.', false, false],
    ]);
    expect(rows[0].tokens).toBe(1234);
  });

  it('leaves out empty groups and has no rows for no tools', () => {
    expect(toolPickItems([], [], undefined, undefined)).toEqual([]);
    expect(toolPickItems([echo], [1], undefined, undefined).map((i) => i.kind)).toEqual(['separator', 'tool']);
  });

  it('shows a server\'s icon syntax as text and cuts a long first line', () => {
    const odd = tool('odd', 'extension', `$(warning) ${'y'.repeat(MAX_DETAIL_CHARS * 3)}`, { displayName: '$(check) trusted' });
    const row = toolPickItems([odd], [1], undefined, undefined)[1] as ToolPickRow;
    expect(row.label).not.toContain('$(');
    expect(row.detail?.startsWith('$\u200b(warning)')).toBe(true);
    expect(row.detail).toHaveLength(MAX_DETAIL_CHARS);
    expect(firstLine('  \n\n')).toBeUndefined();
  });

  it('counts a tool as the JSON of its definition, with the model\'s tokenizer', async () => {
    const counter = await tokenCounterFor('openai', 'gpt-4o');
    const json = JSON.stringify([{ type: 'function', function: { name: 'read_file', description: readFile.tool.description, parameters: readFile.tool.inputSchema } }]);
    expect(toolTokens(counter, readFile)).toBe(counter.countText(json));
    expect(toolTokens(counter, readFile)).toBeGreaterThan(toolTokens(counter, leaves));
  });

  it('estimates a huge definition by its length instead of tokenizing it', async () => {
    const counter = await tokenCounterFor('openai', 'gpt-4o');
    const huge = tool('huge', 'mcp', 'x', { server: 's', ownName: 'huge' });
    const schema = { type: 'object', description: 'ab '.repeat(MAX_COUNTED_DEFINITION_CHARS) };
    const withSchema = { ...huge, tool: { ...huge.tool, inputSchema: schema } };
    const chars = JSON.stringify([{ type: 'function', function: { name: 'huge', description: 'x', parameters: schema } }]).length;
    expect(toolTokens(counter, withSchema)).toBe(Math.ceil(chars / 4));
  });
});
