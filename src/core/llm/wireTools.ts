/**
 * Tool definitions as both wire formats carry them: OpenAI's `tools` and Ollama's `tools` are the same
 * `{type: 'function', function: {name, description, parameters}}` array. The providers send this array
 * and the token counters count its JSON, so the meter and the request guard count what is sent.
 */
import type { ToolDefinition } from '../types';

/** `tools` reduced to the fields the wire carries, in the order it carries them (anything else a caller added is not sent). */
export function toolsOnWire(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => {
    const { name, description, parameters } = tool.function;
    const fn: ToolDefinition['function'] = { name };
    if (description !== undefined) fn.description = description;
    if (parameters !== undefined) fn.parameters = parameters;
    return { type: 'function', function: fn };
  });
}

/** The JSON text of the `tools` array a request carries ('' for none): what token counters count. */
export function toolsJson(tools: readonly ToolDefinition[] | undefined): string {
  return tools?.length ? JSON.stringify(toolsOnWire(tools)) : '';
}
