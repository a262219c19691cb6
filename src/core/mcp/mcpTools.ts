/**
 * MCP tools as Arbor tools: a display name `server › tool` for people, a wire name a model API accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`, unique across servers), and `run` that calls the server and turns its
 * content into text for the model.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { safeToolName, uniqueToolName } from '../tools/toolNames';
import type { McpServerConnection, McpToolInfo } from './mcpConnection';

/**
 * What a run returns: `content`, the text the model reads, and `metadata` for the result node, the shape
 * of the engine's `ToolOutput` object; plus `isError` (the tool said it failed, its text says why, for
 * the model to read and correct) and the server's raw `result` (images and all) for a UI that shows more.
 */
export interface McpToolOutput {
  content: string;
  isError: boolean;
  metadata: { mcpServer: string; mcpTool: string; isError: boolean };
  result: CallToolResult;
}

/**
 * An MCP tool as an Arbor tool. Structurally an engine `Tool` (src/core/tools/tool.ts: `name`,
 * `description`, `inputSchema`, `readOnly`, `run(input, ctx)` returning `{ content, metadata }`), so it
 * can be registered as one; `displayName`, `serverName` and `toolName` are extra, for the UI.
 */
export interface McpArborTool {
  /** The name the model sees and calls: `mcp_<server>_<tool>`, made safe and unique. */
  name: string;
  /** The name people see: `server › tool`. */
  displayName: string;
  description: string;
  /** The tool's JSON Schema for its arguments, as the server gave it. */
  inputSchema: Record<string, unknown>;
  /** From the server's `annotations.readOnlyHint`; false when it does not say. */
  readOnly: boolean;
  serverName: string;
  /** The tool's own name on its server. */
  toolName: string;
  /** Calls the tool; aborting `context.signal` cancels the call on the server and rejects with an AbortError. */
  run(input: Record<string, unknown>, context: { signal?: AbortSignal }): Promise<McpToolOutput>;
}

/** `server › tool`, the name the UI shows. */
export const mcpDisplayName = (serverName: string, toolName: string): string => `${serverName} › ${toolName}`;

/**
 * A function name model APIs accept for `server`'s `tool`: unsafe characters become `_`; a name longer
 * than 64 characters is cut and ends in a short hash of the full name, so different long names stay apart.
 */
export function mcpWireName(serverName: string, toolName: string): string {
  return safeToolName(`mcp_${serverName}_${toolName}`, `${serverName}\u0000${toolName}`);
}

/** The text a tool result gives the model: text parts as they are, other parts as a short note. */
export function mcpResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case 'text':
        return part.text;
      case 'image':
      case 'audio':
        return `[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
      case 'resource':
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri} (${part.resource.mimeType ?? 'binary'})]`;
      case 'resource_link':
        return `[resource ${part.uri}${part.name ? ` "${part.name}"` : ''}]`;
      default:
        return `[${(part as { type: string }).type} content]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

/** Adapts one tool of a running server. */
export function toArborTool(connection: McpServerConnection, tool: McpToolInfo, wireName = mcpWireName(connection.name, tool.name)): McpArborTool {
  return {
    name: wireName,
    displayName: mcpDisplayName(connection.name, tool.name),
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: tool.inputSchema as Record<string, unknown>,
    readOnly: tool.annotations?.readOnlyHint === true,
    serverName: connection.name,
    toolName: tool.name,
    async run(input, context) {
      const result = await connection.callTool(tool.name, input, context.signal);
      const isError = result.isError === true;
      return { content: mcpResultText(result), isError, metadata: { mcpServer: connection.name, mcpTool: tool.name, isError }, result };
    },
  };
}

/**
 * Adapts the tools of several servers, making wire names unique (a clash after sanitising gets `_2`,
 * `_3`…, in server order, so names stay the same from one listing to the next).
 */
export function toArborTools(entries: ReadonlyArray<{ connection: McpServerConnection; tools: readonly McpToolInfo[] }>): McpArborTool[] {
  const used = new Set<string>();
  const out: McpArborTool[] = [];
  for (const { connection, tools } of entries) {
    for (const tool of tools) out.push(toArborTool(connection, tool, uniqueToolName(mcpWireName(connection.name, tool.name), used)));
  }
  return out;
}
