import { describe, expect, it } from 'vitest';
import type { OfferedTool } from './offeredTool';
import { choiceFromPick, chosenTools, isToolChosen, isToolPinned, toolChoiceKey } from './toolChoice';

const tool = (name: string, source: OfferedTool['source'], extra: Partial<OfferedTool> = {}): OfferedTool => ({
  tool: { name, description: `${name} does things`, inputSchema: { type: 'object' }, readOnly: true, run: () => '' },
  source,
  displayName: name,
  ...extra,
});
const readFile = tool('read_file', 'builtin');
const echo = tool('mcp_everything_echo', 'mcp', { displayName: 'everything › echo', server: 'everything', ownName: 'echo' });
const leaves = tool('leaf_counter', 'extension');

describe('tool choice keys', () => {
  it('name the source, the server and the own name, not the wire name', () => {
    expect(toolChoiceKey(readFile)).toBe('builtin/read_file');
    expect(toolChoiceKey(echo)).toBe('mcp/everything/echo');
    expect(toolChoiceKey(leaves)).toBe('extension/leaf_counter');
    // Renumbered on the wire after a clash: the same key.
    expect(toolChoiceKey({ ...echo, tool: { ...echo.tool, name: 'mcp_everything_echo_2' } })).toBe('mcp/everything/echo');
    expect(toolChoiceKey({ ...leaves, tool: { ...leaves.tool, name: 'leaf_counter_2' } })).toBe('extension/leaf_counter');
  });

  it('cannot be forged by a server or tool name that holds the separator', () => {
    const a = tool('w1', 'mcp', { server: 'a/b', ownName: 'c', displayName: 'a/b › c' });
    const b = tool('w2', 'mcp', { server: 'a', ownName: 'b/c', displayName: 'a › b/c' });
    expect(toolChoiceKey(a)).not.toBe(toolChoiceKey(b));
    // An extension tool named like a built-in one is still another extension's.
    expect(toolChoiceKey(tool('read_file', 'extension'))).not.toBe(toolChoiceKey(readFile));
  });
});

describe('which tools a chat offers', () => {
  it('offers built-in and MCP tools, and leaves other extensions\' tools out until ticked', () => {
    expect(chosenTools([readFile, echo, leaves], undefined, undefined)).toEqual([readFile, echo]);
    expect(isToolChosen(leaves, undefined, undefined)).toBe(false);
    expect(isToolChosen(leaves, { on: ['extension/leaf_counter'], off: [] }, undefined)).toBe(true);
  });

  it('follows the chat\'s choice, else the default\'s', () => {
    const defaults = { on: ['extension/leaf_counter'], off: ['builtin/read_file'] };
    expect(chosenTools([readFile, echo, leaves], undefined, defaults)).toEqual([echo, leaves]);
    const chat = { on: ['builtin/read_file'], off: ['mcp/everything/echo'] };
    // The chat ticked read_file back and unticked echo; leaf_counter it never chose, so the default's tick holds.
    expect(chosenTools([readFile, echo, leaves], chat, defaults)).toEqual([readFile, leaves]);
  });

  it('keeps the order it was given', () => {
    expect(chosenTools([leaves, echo, readFile], { on: ['extension/leaf_counter'], off: [] }, undefined)).toEqual([leaves, echo, readFile]);
  });

  it('pins from the chat, else from the default', () => {
    expect(isToolPinned(readFile, undefined, { on: [], off: [], pinned: ['builtin/read_file'] })).toBe(true);
    expect(isToolPinned(readFile, { on: [], off: [], pinned: [] }, { on: [], off: [], pinned: ['builtin/read_file'] })).toBe(false);
    expect(isToolPinned(readFile, { on: [], off: [] }, undefined)).toBe(false);
  });
});

describe('the choice a pick saves', () => {
  it('records every shown tool as ticked or not, with its pins, and keeps what it said of tools not shown', () => {
    const previous = { on: ['mcp/gone/tool'], off: ['mcp/gone/other', 'builtin/read_file'], pinned: ['mcp/gone/tool', 'builtin/read_file'] };
    const saved = choiceFromPick([readFile, echo, leaves], new Set(['builtin/read_file', 'extension/leaf_counter']), new Set(['extension/leaf_counter']), previous);
    expect(saved).toEqual({
      on: ['mcp/gone/tool', 'builtin/read_file', 'extension/leaf_counter'],
      off: ['mcp/gone/other', 'mcp/everything/echo'],
      pinned: ['mcp/gone/tool', 'extension/leaf_counter'],
    });
    expect(chosenTools([readFile, echo, leaves], saved, { on: ['mcp/everything/echo'], off: ['extension/leaf_counter'] })).toEqual([readFile, leaves]);
  });
});
