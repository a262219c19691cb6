/**
 * Every message between the extension host and the chat webview, both directions. Each side
 * switches on `type` exhaustively, so a message added here is a compile error until both handle it.
 * Requests that expect an answer carry a `requestId`; a model answer streams as `streamStart`, any
 * number of `streamDelta`, then one `streamDone`. The host posts nothing before the webview's `ready`.
 */

/** Something attached to a message as context: a file, a line range of one, or the editor's selection. */
export interface Attachment {
  kind: 'file' | 'selection';
  /** Workspace-relative path with `/` separators. */
  path: string;
  /** 1-based inclusive lines; absent for a whole file. */
  startLine?: number;
  endLine?: number;
  language?: string;
  /** The text itself, for selections. Files are read by the host when the message is sent. */
  text?: string;
}

/** A piece of retrieved context shown as a chip under a message. */
export interface ContextChip {
  path: string;
  startLine?: number;
  endLine?: number;
  score?: number;
  /** Which retrieval filled it, e.g. "workspace" or "files". */
  source?: string;
}

/** Where a message sits among its siblings, for the `‹ 2/3 ›` switcher. */
export interface SiblingInfo {
  /** 1-based position. */
  index: number;
  count: number;
  prevNodeId?: string;
  nextNodeId?: string;
}

/** One message of the current path, as the webview shows it. */
export interface MessageView {
  nodeId: string;
  parentId: string | null;
  role: 'system' | 'user' | 'assistant' | 'tool' | 'function';
  content: string;
  thinking?: string;
  /** ISO time. */
  timestamp: string;
  branchName?: string;
  model?: string;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  costUsd?: number;
  /** The answer was cut short (Stop, an error, a closed stream). */
  interrupted?: boolean;
  /** The provider's actionable message when the answer failed. */
  error?: string;
  siblings: SiblingInfo;
  chips: ContextChip[];
  attachments: Attachment[];
  promptName?: string;
}

/** A prompt of the workspace library offered by the `/` menu. */
export interface PromptSummary {
  name: string;
  description?: string;
  params: Array<{ name: string; required: boolean; default?: string; description?: string }>;
}

/** Everything the chat shows; sent whole whenever the path changes. */
export interface ChatState {
  conversationId: string;
  title: string;
  currentNodeId: string;
  /** Root→current, without the empty root. */
  path: MessageView[];
  totalCostUsd: number;
  model: string;
  provider: string;
  /** A request is streaming; the Stop button shows. */
  busy: boolean;
  /** Restricted mode (untrusted workspace): no workspace prompts, no retrieval. */
  restricted: boolean;
}

/** A provider failure as the chat shows it, with the fix in the message. */
export interface ErrorView {
  message: string;
  kind: string;
  retryable: boolean;
}

// ---- host → webview ----

/** Host: the whole chat, after `ready` and after every change of the path. */
export interface StateMessage {
  type: 'state';
  state: ChatState;
}
/** Host: an answer started streaming after `parentNodeId`. */
export interface StreamStartMessage {
  type: 'streamStart';
  requestId: string;
  parentNodeId: string;
  model: string;
}
/** Host: more text (and/or thinking text) of the streaming answer. */
export interface StreamDeltaMessage {
  type: 'streamDelta';
  requestId: string;
  delta: string;
  thinkingDelta?: string;
}
/** Host: the stream ended; `error` when it failed (the partial answer is kept in the next `state`). */
export interface StreamDoneMessage {
  type: 'streamDone';
  requestId: string;
  error?: ErrorView;
}
/** Host: the models the provider lists, for the picker. */
export interface ModelsMessage {
  type: 'models';
  models: string[];
  current: string;
}
/** Host: the prompts of the workspace library, for the `/` menu. */
export interface PromptsMessage {
  type: 'prompts';
  prompts: PromptSummary[];
}
/** Host: attach context to the message being written (Ask About Selection, `#file`, `#selection`). */
export interface AttachMessage {
  type: 'attach';
  attachments: Attachment[];
  /** Text to put in the input box, when given. */
  text?: string;
}
/** Host: the answer to a request that has a `requestId` and no stream. */
export interface ResponseMessage {
  type: 'response';
  requestId: string;
  result?: unknown;
  error?: ErrorView;
}
/** Host: an error not tied to a stream (e.g. no model server reachable), with its fix. */
export interface NoticeMessage {
  type: 'notice';
  level: 'info' | 'warning' | 'error';
  message: string;
}

export type ToWebview =
  | StateMessage
  | StreamStartMessage
  | StreamDeltaMessage
  | StreamDoneMessage
  | ModelsMessage
  | PromptsMessage
  | AttachMessage
  | ResponseMessage
  | NoticeMessage;

// ---- webview → host ----

/** Webview: loaded and listening; the host may post now. */
export interface ReadyMessage {
  type: 'ready';
}
/** Webview: send a new user message (or a `/` prompt with params) and stream the answer. */
export interface SendMessage {
  type: 'send';
  requestId: string;
  text: string;
  attachments: Attachment[];
  promptName?: string;
  params?: Record<string, string>;
  model?: string;
}
/** Webview: Stop the streaming answer; the partial text is kept and marked. */
export interface StopMessage {
  type: 'stop';
  requestId: string;
}
/** Webview: Regenerate an answer as a new sibling, optionally with another model. */
export interface RegenerateMessage {
  type: 'regenerate';
  requestId: string;
  nodeId: string;
  model?: string;
}
/** Webview: Edit a user message into a sibling with new text and answer it. */
export interface EditMessage {
  type: 'edit';
  requestId: string;
  nodeId: string;
  text: string;
}
/** Webview: the `‹ ›` switcher moved to another sibling; show its branch. */
export interface SwitchMessage {
  type: 'switch';
  nodeId: string;
}
/** Webview: Retry after an error (answer the current user message again). */
export interface RetryMessage {
  type: 'retry';
  requestId: string;
}
/** Webview: copy text to the clipboard. */
export interface CopyMessage {
  type: 'copy';
  text: string;
}
/** Webview: insert a code block at the cursor of the last active editor. */
export interface InsertMessage {
  type: 'insert';
  text: string;
}
/** Webview: open a file at a line range (a context chip was clicked). */
export interface OpenFileMessage {
  type: 'openFile';
  path: string;
  startLine?: number;
  endLine?: number;
}
/** Webview: the model picker changed. */
export interface SelectModelMessage {
  type: 'selectModel';
  model: string;
}
/** Webview: list workspace files matching `query`, for `#file`. Answered by `response` with `string[]`. */
export interface FindFilesMessage {
  type: 'findFiles';
  requestId: string;
  query: string;
}
/** Webview: attach the active editor's selection (`#selection`); answered by `attach`. */
export interface AttachSelectionMessage {
  type: 'attachSelection';
}

export type FromWebview =
  | ReadyMessage
  | SendMessage
  | StopMessage
  | RegenerateMessage
  | EditMessage
  | SwitchMessage
  | RetryMessage
  | CopyMessage
  | InsertMessage
  | OpenFileMessage
  | SelectModelMessage
  | FindFilesMessage
  | AttachSelectionMessage;

/** Compile-time exhaustiveness check for `switch (msg.type)`. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled message: ${JSON.stringify(value)}`);
}
