import { describe, expect, it } from 'vitest';
import { toolSet } from '../../../test/fixtures/toolCatalog';
import type { ToolCall, ToolDefinition } from '../types';
import { DESCRIBE_TOOL_DEFINITION, DESCRIBE_TOOL_NAME, describeToolTool } from './describeTool';
import { ToolExecutor } from './toolExecutor';

async function ask(catalog: ToolDefinition[], name: unknown): Promise<{ status: string; content: string }> {
  const executor = new ToolExecutor([describeToolTool(() => catalog)]);
  const call: ToolCall = { id: 'c1', type: 'function', function: { name: DESCRIBE_TOOL_NAME, arguments: JSON.stringify({ name }) } };
  const prepared = await executor.prepare(call);
  if (!prepared.ok) throw new Error(prepared.error);
  const outcome = await executor.run(prepared, new AbortController().signal);
  await executor.dispose();
  return outcome;
}

describe('describe_tool', () => {
  const catalog = toolSet(53);

  it('answers the full description and input schema of any tool, and that it may be called', async () => {
    const fs = catalog.find((t) => t.function.name === 'mcp_filesystem_read_text_file') as ToolDefinition;
    const { status, content } = await ask(catalog, 'mcp_filesystem_read_text_file');
    expect(status).toBe('done');
    expect(content).toContain(fs.function.description as string);
    expect(content).toContain(JSON.stringify(fs.function.parameters, null, 2));
    expect(content).toContain('you may call it by this name');
  });

  it('answers the known names for an unknown one, in bounded length', async () => {
    const many = toolSet(200);
    const { content } = await ask(many, 'no_such_tool');
    expect(content).toContain('There is no tool named "no_such_tool"');
    expect(content).toContain('read_file');
    expect(content).toMatch(/and \d+ more/);
    expect(content.length).toBeLessThan(2_400);
  });

  it('is read-only, and its definition matches the tool', () => {
    const tool = describeToolTool(() => catalog);
    expect(tool.readOnly).toBe(true);
    expect(DESCRIBE_TOOL_DEFINITION.function).toEqual({ name: tool.name, description: tool.description, parameters: tool.inputSchema });
  });

  it('bounds the answer for a huge schema', async () => {
    const huge: ToolDefinition = { type: 'function', function: { name: 'huge', description: 'x'.repeat(50_000) } };
    const { content } = await ask([huge], 'huge');
    expect(content.length).toBeLessThan(12_100);
    expect(content).toContain('cut at 12,000 characters');
  });
});
