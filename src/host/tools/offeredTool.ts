/**
 * A tool as the chat offers it: the engine's `Tool` with where it comes from, which decides how its
 * calls are approved (built-in read-only tools inside the workspace run without asking; MCP servers'
 * and other extensions' tools ask), and the name the user reads on its card.
 */
import type { Tool } from '../../core/index';

/** Where a tool comes from. */
export type ToolSource = 'builtin' | 'mcp' | 'extension';

/**
 * A tool's own verdict on one call, for the approval layer to apply before grants and policies:
 * `deny` refuses it without asking (`reason` is what the model is told); `ask` puts it to the user even
 * when the tool is granted, `reason` naming the path or command asked about; `run` runs it without
 * asking (a command on `arbor.tools.commandAllowList`).
 */
export interface CallVerdict {
  kind: 'run' | 'ask' | 'deny';
  reason: string;
  /**
   * With `ask`: no grant covers this call and no Allow of it is kept beyond it (a protected file), so
   * the card offers Allow once and Deny only.
   */
  once?: boolean;
}

/** A proposed change as an approval card shows it, computed without writing. */
export interface FileChangePreview {
  /** Absolute path. */
  path: string;
  /** What the user reads. */
  shown: string;
  /** `undefined`: the file is created. */
  before: string | undefined;
  after: string;
  /** Unified diff (`--- a/…`, `+++ b/…`, hunks). */
  diff: string;
  added: number;
  removed: number;
  /** Why the user must be asked by name (outside the workspace, an ignored file). */
  askReason?: string;
}

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
   * The tool's own name where `displayName` is not it (an MCP tool's name on its server); unlike the
   * wire name it is never renumbered, so the tools picker keys its choices on it.
   */
  readonly ownName?: string;
  /**
   * Built-in tools: the path outside the workspace this input would read, if any. Such a call is asked
   * about even when the tool otherwise runs without asking.
   */
  outsideWorkspace?(input: Record<string, unknown>): string | undefined;
  /**
   * Tools that change the workspace: this call's verdict (see `CallVerdict`); `undefined` when the
   * usual rules decide. Never rejects.
   */
  checkCall?(input: Record<string, unknown>): Promise<CallVerdict | undefined>;
  /**
   * Tools that change files: the change this call would make, computed without writing, for the
   * approval card's diff. Rejects with the error the call would fail with now (a search text that is
   * not in the file, a refused path), which the card can show instead of a diff.
   */
  previewChange?(input: Record<string, unknown>): Promise<FileChangePreview>;
}
