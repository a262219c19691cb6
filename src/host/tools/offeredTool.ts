/**
 * A tool as the chat offers it: the engine's `Tool` with where it comes from, which decides how its
 * calls are approved (built-in read-only tools inside the workspace run without asking; MCP servers'
 * and other extensions' tools ask), and the name the user reads on its card.
 */
import type { Tool } from '../../core/index';

/** Where a tool comes from. */
export type ToolSource = 'builtin' | 'mcp' | 'extension';

/** A tool the chat may offer to a model. */
export interface OfferedTool {
  /** The engine's tool; `tool.name` is the wire name the model calls. */
  readonly tool: Tool;
  readonly source: ToolSource;
  /** What the user reads: `read_file`, `server › tool`, or an extension tool's own name. */
  readonly displayName: string;
  /** The MCP server's name (source `mcp`). */
  readonly server?: string;
  /**
   * Built-in tools: the path outside the workspace this input would read, if any. Such a call is asked
   * about even when the tool otherwise runs without asking.
   */
  outsideWorkspace?(input: Record<string, unknown>): string | undefined;
}
