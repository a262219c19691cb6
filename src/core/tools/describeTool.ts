/**
 * `describe_tool`: offered when a request could not carry every tool whole (some left out, some
 * descriptions shortened to fit the model's window), it answers any tool's full description and input
 * schema, so the model can learn and then call a tool it was not shown (approval applies as usual).
 */
import type { ToolDefinition } from '../types';
import { defineTool, type JsonSchema, type Tool } from './tool';

/** The name `describe_tool` is offered under. */
export const DESCRIBE_TOOL_NAME = 'describe_tool';

const DESCRIPTION =
  'Shows the full description and JSON input schema of a tool by its name, including tools not listed in this request (some were left out or shortened to fit the context window). Any tool it describes may then be called by that name.';

const INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string', description: 'The exact name of the tool to describe.' } },
  required: ['name'],
  additionalProperties: false,
};

/** The definition sent for `describe_tool` (the same whatever the catalog holds). */
export const DESCRIBE_TOOL_DEFINITION: ToolDefinition = {
  type: 'function',
  function: { name: DESCRIBE_TOOL_NAME, description: DESCRIPTION, parameters: INPUT_SCHEMA },
};

/** Most characters of one answer (a server's huge schema must not flood the context). */
const MAX_ANSWER_CHARS = 12_000;
/** Most characters of the list of known names given for an unknown one. */
const MAX_NAMES_CHARS = 2_000;

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (cut at ${max.toLocaleString('en-US')} characters)`;
}

/** The list of `names`, cut to `MAX_NAMES_CHARS` with a count of the rest. */
function nameList(names: readonly string[]): string {
  let out = '';
  for (let i = 0; i < names.length; i++) {
    const next = out ? `${out}, ${names[i]}` : names[i];
    if (next.length > MAX_NAMES_CHARS) return `${out} and ${names.length - i} more`;
    out = next;
  }
  return out;
}

/**
 * The `describe_tool` tool over `catalog` (every tool the chat could call, offered or not; read on each
 * call, so tools that join later are described too). Read-only.
 */
export function describeToolTool(catalog: () => readonly ToolDefinition[]): Tool<{ name: string }> {
  return defineTool<{ name: string }>({
    name: DESCRIBE_TOOL_NAME,
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    readOnly: true,
    run: ({ name }) => {
      const tools = catalog().filter((t) => t.function.name !== DESCRIBE_TOOL_NAME);
      const wanted = name.trim();
      const found = tools.find((t) => t.function.name === wanted) ?? tools.find((t) => t.function.name.toLowerCase() === wanted.toLowerCase());
      if (!found) {
        const known = nameList(tools.map((t) => t.function.name));
        return `There is no tool named "${bounded(wanted, 200)}". ${known ? `The tools are: ${known}.` : 'No tools are available.'}`;
      }
      const { name: exact, description, parameters } = found.function;
      const schema = JSON.stringify(parameters ?? { type: 'object', properties: {} }, null, 2);
      return bounded(
        [`Tool "${exact}": you may call it by this name.`, '', 'Description:', description?.trim() || '(none)', '', 'Input (JSON Schema):', schema].join('\n'),
        MAX_ANSWER_CHARS,
      );
    },
  });
}
