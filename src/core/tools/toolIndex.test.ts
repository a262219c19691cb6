import { describe, expect, it } from 'vitest';
import { toolSet } from '../../../test/fixtures/toolCatalog';
import type { ToolDefinition } from '../types';
import { stemToolWord, ToolIndex, toolIndexFor } from './toolIndex';

const tool = (name: string, description = '', parameters?: Record<string, unknown>): ToolDefinition => ({ type: 'function', function: { name, description, ...(parameters ? { parameters } : {}) } });

describe('ToolIndex', () => {
  const tools = toolSet(53);
  const index = new ToolIndex(tools);

  it('ranks the tool a question needs near the top among 53 tools', () => {
    expect(index.rank('read src/cart.ts').slice(0, 3)).toContain('read_file');
    expect(index.rank('add 2 and 40 with the everything server')[0]).toBe('mcp_everything_get-sum');
    expect(index.rank('what changed since the last commit?').slice(0, 3)).toContain('git_log');
    expect(index.rank('rename utils.ts to helpers.ts')[0]).toBe('mcp_filesystem_move_file');
  });

  it('splits names on _, -, ., › and camelCase', () => {
    const small = new ToolIndex([tool('alpha'), tool('fetchWeatherReport'), tool('everything › get-sum'), tool('db.query_rows'), tool('kebab-case-thing')]);
    expect(small.rank('weather')[0]).toBe('fetchWeatherReport');
    expect(small.rank('sum')[0]).toBe('everything › get-sum');
    expect(small.rank('rows')[0]).toBe('db.query_rows');
    expect(small.rank('thing')[0]).toBe('kebab-case-thing');
  });

  it('weighs the name above the description and the description above the parameters', () => {
    const small = new ToolIndex([
      tool('other', 'Nothing here.', { type: 'object', properties: { invoice: { type: 'string', description: 'An id.' } } }),
      tool('misc', 'Looks up an invoice.'),
      tool('invoice_lookup', 'Looks up something.'),
    ]);
    expect(small.rank('invoice')).toEqual(['invoice_lookup', 'misc', 'other']);
  });

  it('keeps the input order for ties and for tools that match nothing', () => {
    const small = new ToolIndex([tool('c_tool', 'zebra'), tool('a_tool', 'zebra'), tool('b_tool', 'lion')]);
    expect(small.rank('zebra')).toEqual(['c_tool', 'a_tool', 'b_tool']);
    expect(small.rank('nothing matches')).toEqual(['c_tool', 'a_tool', 'b_tool']);
    expect(new ToolIndex([]).rank('x')).toEqual([]);
  });

  it('matches word forms and a few synonyms', () => {
    expect(['reads', 'reading', 'read'].map(stemToolWord)).toEqual(['read', 'read', 'read']);
    expect(stemToolWord('running')).toBe('run');
    expect(stemToolWord('directories')).toBe('directory');
    const small = new ToolIndex([tool('alpha', 'Deletes nothing.'), tool('beta', 'Removes a file.')]);
    expect(small.rank('delete the file')[0]).toBe('beta');
  });

  it('indexes a huge description without reading all of it', () => {
    const huge = tool('huge', `${'word '.repeat(100_000)} needle`);
    expect(new ToolIndex([tool('small', 'x'), huge]).scores('needle')[1]).toBe(0);
  });
});

describe('toolIndexFor', () => {
  it('reuses the index of the same tool set and builds a new one when a description changes', () => {
    const a = toolIndexFor(toolSet(13));
    expect(toolIndexFor(toolSet(13))).toBe(a);
    const changed = toolSet(13);
    changed[0] = tool(changed[0].function.name, 'Another description.');
    expect(toolIndexFor(changed)).not.toBe(a);
  });
});
