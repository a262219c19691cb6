/**
 * The tool calls of the chat, between the host and the webview: how a call shows on its card (status,
 * arguments, output, the approval it waits for), and what the card's buttons send back. Kept apart
 * from `protocol.ts`, which re-exports it.
 */

/** Where a call is; `interrupted`: it has no result and no run is going (closed by the next request). */
export type ToolCallState = 'pendingApproval' | 'running' | 'done' | 'failed' | 'denied' | 'cancelled' | 'interrupted';

/** One call an answer made, as its card shows it. */
export interface ToolCallView {
  readonly callId: string;
  /** The tool's wire name, as the model called it. */
  readonly toolName: string;
  /** What the user reads: `read_file`, `server › tool`. */
  readonly displayName: string;
  /** `builtin`, `mcp` or `extension`; absent when the tool is not offered now. */
  readonly source?: 'builtin' | 'mcp' | 'extension';
  /** The arguments as the model wrote them, pretty-printed when they are JSON. */
  readonly arguments: string;
  /** The arguments the call ran with, when the user edited them before approving. */
  readonly editedArguments?: string;
  readonly state: ToolCallState;
  /** How long it ran, when it ran. */
  readonly durationMs?: number;
  /** What the model read back (capped for the card). */
  readonly output?: string;
  /** The output was cut for the card. */
  readonly outputCut?: boolean;
  /**
   * Waiting for the user: why it asks (an MCP tool, a read outside the workspace…), and the change a file
   * tool would make. `once`: no grant covers this call (a protected file), so the card offers Allow
   * once and Deny only.
   */
  readonly approval?: { readonly reason: string; readonly once?: boolean; readonly covers?: string; readonly preview?: ToolChangePreview };
}

/** The change a call of a file tool would make, shown on its card before it is allowed. */
export type ToolChangePreview =
  | { readonly path: string; readonly diff: string; readonly added: number; readonly removed: number; readonly created: boolean }
  | { readonly error: string };

/** How far an Allow reaches. */
export type ToolGrantScope = 'once' | 'conversation' | 'workspace' | 'always';

/** Webview: the user's answer to a call waiting for approval. */
export interface ToolDecisionMessage {
  readonly type: 'toolDecision';
  readonly callId: string;
  /** Allow, this far; absent with `deny`. */
  readonly scope?: ToolGrantScope;
  /** Deny, with the reason the model reads ('' for none). */
  readonly deny?: string;
  /** The arguments as the user edited them (JSON text); absent when unchanged. */
  readonly input?: string;
}

/** Webview: the toolbar's toggle: offer tools in this chat, or not. */
export interface SetToolsEnabledMessage {
  readonly type: 'setToolsEnabled';
  readonly enabled: boolean;
}

/** Webview: the header's "Choose tools…" button: open the tools picker for this chat. */
export interface ChooseToolsMessage {
  readonly type: 'chooseTools';
}

/** The chat's tools, for the toolbar toggle. */
export interface ChatToolsView {
  /** Tools are offered to the model in this chat. */
  readonly enabled: boolean;
}

/** One file a message changed, as its chip shows it. */
export interface FileChangeView {
  /** The node whose checkpoint holds the change (the message, or a tool result of it). */
  readonly nodeId: string;
  /** Workspace-relative, `/` separators. */
  readonly path: string;
  readonly kind: 'created' | 'modified' | 'deleted';
  /** Lines added and removed; absent for a binary file. */
  readonly added?: number;
  readonly removed?: number;
}

/** The files a message changed (an accepted Apply, its tools' edits), and the node Restore Files to Here restores to. */
export interface MessageFileChanges {
  readonly files: readonly FileChangeView[];
  readonly restoreNodeId: string;
}

/** Webview: Restore Files to Here on a message's file chips. */
export interface RestoreFilesMessage {
  readonly type: 'restoreFiles';
  readonly nodeId: string;
}

/** Webview: a file chip was clicked: show that node's change of that file as a diff. */
export interface OpenFileChangeMessage {
  readonly type: 'openFileChange';
  readonly nodeId: string;
  readonly path: string;
}
