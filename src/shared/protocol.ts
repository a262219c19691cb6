/**
 * Every message between the extension host and the chat webview, both directions. Each side
 * switches on `type` exhaustively, so a message added here is a compile error until both handle it.
 * Requests that expect an answer carry a `requestId` and are listed in `WebviewRequests` with the
 * messages that answer them; a model answer streams as `streamStart`, any number of `streamDelta`,
 * then one `streamDone`. The host posts nothing before the webview's `ready`. Messages are values
 * posted across a process boundary, so every field is `readonly`.
 */
import type { Attachment, ErrorAction, ErrorActionCommand, ErrorView, ImageView } from './commonViews';
export type { Attachment, ErrorAction, ErrorActionCommand, ErrorView, ImageView } from './commonViews';
import type { ChatToolsView, ChooseToolsMessage, MessageFileChanges, OpenFileChangeMessage, RestoreFilesMessage, SetToolsEnabledMessage, ToolCallView, ToolDecisionMessage } from './toolProtocol';
import type { MergeAnswersMessage, SeveralFromWebview, SeveralToWebview, SeveralView } from './severalProtocol';
export type { CompareAnswersMessage, MergeAnswersMessage, SendSeveralMessage, SeveralAnswerView, SeveralColumnDoneMessage, SeveralDeltaMessage, SeveralFromWebview, SeveralStartMessage, SeveralToWebview, SeveralView } from './severalProtocol';
export { SEVERAL_MAX_MODELS, SEVERAL_MIN_MODELS, severalModelsProblem } from './severalProtocol';
import type { FlowFromWebview, FlowMarkView, FlowToWebview } from './flowProtocol';
export type { FlowFromWebview, FlowMarkView, FlowPanelMessage, FlowPanelView, FlowRerunMessage, FlowResumeMessage, FlowStateView, FlowStopMessage, FlowToWebview } from './flowProtocol';
export type { ChatToolsView, ChooseToolsMessage, FileChangeView, MessageFileChanges, OpenFileChangeMessage, RestoreFilesMessage, SetToolsEnabledMessage, ToolCallState, ToolCallView, ToolChangePreview, ToolDecisionMessage, ToolGrantScope } from './toolProtocol';

/** A piece of retrieved context shown as a chip under a message. */
export interface ContextChip {
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
  readonly score?: number;
  /** Which retrieval filled it, e.g. "workspace" or "files". */
  readonly source?: string;
  /**
   * The file is one the workspace's rules leave out (`.gitignore`, excludes, `node_modules`) and was
   * read only because the user picked it by hand; the chip says so.
   */
  readonly ignored?: boolean;
}

/**
 * A step of a structured answer (a prompt with `output:`): an answer (accepted with its parsed `value`, or
 * with the `problems` that failed the schema) or the correction turn that sent those problems back.
 */
export interface StructuredView {
  readonly kind: 'answer' | 'correction';
  /** Which answer it is (1: the first), or for a correction, which answer it corrects. */
  readonly attempt: number;
  /** How many answers the request could ask for in all. */
  readonly attempts: number;
  /** Where and how the answer failed the schema; absent on a valid answer. */
  readonly problems?: readonly { readonly path: string; readonly message: string }[];
  /** The answer passed the schema: `value` is its parsed JSON. */
  readonly accepted?: boolean;
  readonly value?: unknown;
}

/** Where a message sits among its siblings, for the `‹ 2/3 ›` switcher. */
export interface SiblingInfo {
  /** 1-based position. */
  readonly index: number;
  readonly count: number;
  readonly prevNodeId?: string;
  readonly nextNodeId?: string;
}

/** One message of the current path, as the webview shows it. */
export interface MessageView {
  readonly nodeId: string;
  readonly parentId: string | null;
  readonly role: 'system' | 'user' | 'assistant' | 'tool' | 'function';
  readonly content: string;
  readonly thinking?: string;
  /** ISO time. */
  readonly timestamp: string;
  readonly branchName?: string;
  readonly model?: string;
  readonly usage?: { readonly promptTokens: number; readonly completionTokens: number; readonly totalTokens: number };
  readonly costUsd?: number;
  /** The answer was cut short (Stop, an error, a closed stream). */
  readonly interrupted?: boolean;
  /** The provider's actionable message when the answer failed. */
  readonly error?: string;
  readonly siblings: SiblingInfo;
  readonly chips: readonly ContextChip[];
  readonly attachments: readonly Attachment[];
  readonly promptName?: string;
  /**
   * A user message at the end of the path that has no answer (its request failed, or never ran):
   * the chat offers Retry on it, with the failure when this window saw it.
   */
  readonly unanswered?: { readonly error?: ErrorView };
  /** Answer: the library system prompt it was made with, and that file's version (its git blob id). */
  readonly systemPrompt?: { readonly name: string; readonly path: string; readonly version: string };
  /** The reader bookmarked this message ("Arbor: Go to Bookmark" lists it). */
  readonly bookmarked?: boolean;
  /** The reader's note on this message: shown here and in the tree, never sent to a model. */
  readonly note?: string;
  /** A compaction: the summary stands for the messages above it from the start (or the previous summary). */
  readonly compaction?: CompactionView;
  /** The message is summarised by a compaction below it on this path: shown collapsed, not sent. */
  readonly covered?: boolean;
  /** A branch summary: what a branch the reader left found, carried into this one. */
  readonly branchSummary?: { readonly coveredCount: number; readonly model?: string };
  /** A step of a structured answer: the answer's card, or the correction turn's note. */
  readonly structured?: StructuredView;
  /** What a message made from a prompt template was sent with (see `PromptMessageInfo`). */
  readonly prompt?: PromptMessageInfo;
  /** An answer's tool calls, each with its state and result. */
  readonly toolCalls?: readonly ToolCallView[];
  /** A tool result: shown on its call's card, not as a message of its own. */
  readonly toolResultOf?: string;
  /** The files this message changed (with its tool results), from the store's file checkpoints. */
  readonly fileChanges?: MessageFileChanges;
  /** The images of a user message, in the order they were attached. */
  readonly images?: readonly ImageView[];
  /**
   * The node Restore Files to Here brings the files back to for this message (the message, or its last
   * tool result): set on every message once the conversation has changed a file anywhere.
   */
  readonly restoreFilesNodeId?: string;
  /** A user message: the instruction files (AGENTS.md, rules) that applied to its answer's request. */
  readonly instructions?: readonly InstructionChipView[];
  /** An answer of an Ask Several Models run (or a merge of one): the run's answers, for Compare and Merge. */
  readonly several?: SeveralView;
  /** A message a flow wrote: its flow, state and step. */
  readonly flow?: FlowMarkView;
}

/** An instruction file that applied to a request, as its chip on the request message shows it. */
export interface InstructionChipView {
  /** Workspace-relative path. */
  readonly path: string;
  /** `agents`, `copilot`, `copilotInstructions`, `claude`, `cursor` or `continue`. */
  readonly kind: string;
  /** It was sent with this answer's request (not excluded then). */
  readonly sent: boolean;
  /** The chat excludes it now: the next requests leave it out. */
  readonly excluded: boolean;
  /** `changed`: edited since this answer; `missing`: gone; `current`: as sent; `unknown`: cannot tell. */
  readonly status: 'current' | 'changed' | 'missing' | 'unknown';
}

/** A message made from a prompt template: which version of which file, the values it was filled with, and what it became. */
export interface PromptMessageInfo {
  readonly name: string;
  /** `user` for a `/` prompt, `messages` for one message of a few-shot prompt. */
  readonly kind: 'user' | 'messages';
  /** Path in the prompts folder, `/` separators; workspace-relative for another tool's prompt file (`.github/prompts/…`). */
  readonly path: string;
  /** The git blob id of the file version that rendered it ('' when unknown). */
  readonly gitBlobId: string;
  /** `current`: the file is unchanged; `changed`: it was edited since; `missing`: the library has no such prompt now; `unknown`: no library to ask. */
  readonly status: 'current' | 'changed' | 'missing' | 'unknown';
  /** The form's values as sent; absent when the message is older than Arbor keeping them. */
  readonly params?: Readonly<Record<string, string>>;
  /** The text typed beside the form. */
  readonly text: string;
  /** The rendered text the model got. */
  readonly rendered: string;
}

/** What a compaction node says about itself in the chat. */
export interface CompactionView {
  readonly coveredCount: number;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** `fallback`: written without a model (the user's messages kept, answers shortened). */
  readonly method: 'model' | 'fallback';
  readonly trigger: 'manual' | 'auto' | 'overflow';
  readonly focus?: string;
  readonly model?: string;
}

/** How full the next request's context is, for the header's meter. */
export interface UsageView {
  /** Tokens the next request carries, the draft included. */
  readonly used: number;
  /** The model's context length, when known. */
  readonly limit?: number;
  /** Tokens kept free for the answer. */
  readonly reserved: number;
  /** Counted by the model's tokenizer; otherwise estimated. */
  readonly exact: boolean;
  readonly parts: { readonly system: number; readonly instructions: number; readonly history: number; readonly attachments: number; readonly retrieval: number; readonly draft: number; readonly tools: number };
  /** Share of the window (0..1) at which Arbor compacts before sending. */
  readonly autoCompactAt: number;
  /** With tools on: how many the next request offers of those the chat has (fewer when the window is small). */
  readonly tools?: { readonly offered: number; readonly total: number };
}

/** A prompt of the workspace library offered by the `/` menu. */
export interface PromptSummary {
  readonly name: string;
  /** `messages`: a few-shot prompt whose messages go on the path before the typed text; `flow`: a flow of `prompts/flows/`; absent means `user`. */
  readonly kind?: 'user' | 'messages' | 'flow';
  readonly description?: string;
  /** The tool whose prompt file it is ("Copilot", "Continue", "Claude"); absent for the workspace's own `prompts/`. */
  readonly source?: string;
  readonly params: ReadonlyArray<{ readonly name: string; readonly required: boolean; readonly default?: string; readonly description?: string }>;
}

/**
 * What the chat shows, sent after `ready` and after every change. The path root→current (without an
 * empty root) can be thousands of messages long, so the webview holds a window of it, the newest
 * messages plus any older ones it asked for (`loadEarlier`), and each state carries only what changed:
 * the window's ids from the first one that differs, and the views the webview does not have yet.
 */
/** What the composer must know of images: the limits (the host checks them again) and whether the chat's model takes them. */
export interface ImageSupport {
  /** `arbor.images.maxBytes`. */
  readonly maxBytes: number;
  readonly maxCount: number;
  readonly model: string;
  /** False: images go to the model as a text placeholder; the composer says so before sending. */
  readonly supportsVision: boolean;
}

export interface ChatState {
  readonly conversationId: string;
  readonly title: string;
  readonly currentNodeId: string;
  /** How many messages the whole path holds. */
  readonly pathLength: number;
  /** Index in the path of the window's first message; older ones come with `loadEarlier`. */
  readonly windowStart: number;
  /** How many leading ids of the window the webview held before stay as they were (0: all new). */
  readonly keep: number;
  /** The window's node ids from index `keep` on, oldest first. */
  readonly ids: readonly string[];
  /** Views of the window's messages that are new to the webview or changed; the rest it has. */
  readonly views: readonly MessageView[];
  readonly totalCostUsd: number;
  /** The cost of the answers on the path root→current: what this branch cost. */
  readonly branchCostUsd: number;
  readonly model: string;
  readonly provider: string;
  /** A request is streaming; the Stop button shows. */
  readonly busy: boolean;
  /** Restricted mode (untrusted workspace): no workspace prompts, no retrieval. */
  readonly restricted: boolean;
  /** Branch from Here is pending: the next message starts a new branch at this node (a banner says so). */
  readonly branchPoint?: BranchPoint;
  /** The chat's tools toggle. */
  readonly tools: ChatToolsView;
  /** Images in messages: limits and whether the model takes them. */
  readonly imageSupport?: ImageSupport;
}

/**
 * Where the next message starts a new branch (Branch from Here). After an answer, the message is a
 * new follow-up beside any others; on a user message, it is a new version of that message.
 */
export interface BranchPoint {
  readonly nodeId: string;
  /** The first line of the node's text, for the banner. */
  readonly preview: string;
  /** The node is a user message: the next message becomes its sibling, starting from its text. */
  readonly replaces: boolean;
  /** The replaced message's text, to start the composer with (only when `replaces`). */
  readonly text?: string;
}

/** A chat's request options as the header's form edits them; a field left out is not sent. */
export interface RequestOptionsView {
  readonly temperature?: number;
  readonly maxTokens?: number;
  /** `true`/`false` (Ollama's `think`) or a level (also OpenAI's `reasoning_effort`). */
  readonly think?: boolean | 'low' | 'medium' | 'high';
}

// ---- host → webview ----

/** Host: the chat, after `ready` and after every change (only what changed, see `ChatState`). */
export interface StateMessage {
  readonly type: 'state';
  readonly state: ChatState;
}
/** Host: an answer started streaming after `parentNodeId`. */
export interface StreamStartMessage {
  readonly type: 'streamStart';
  readonly requestId: string;
  readonly parentNodeId: string;
  readonly model: string;
}
/** Host: more text (and/or thinking text) of the streaming answer. */
export interface StreamDeltaMessage {
  readonly type: 'streamDelta';
  readonly requestId: string;
  readonly delta: string;
  readonly thinkingDelta?: string;
}
/** Host: the stream ended; `error` when it failed (the partial answer is kept in the next `state`). */
export interface StreamDoneMessage {
  readonly type: 'streamDone';
  readonly requestId: string;
  readonly error?: ErrorView;
}
/** Host: how full the context is (after each state, and as the draft changes). */
export interface UsageMessage {
  readonly type: 'usage';
  readonly usage: UsageView;
}
/** Host: the models the provider lists, for the picker. */
export interface ModelsMessage {
  readonly type: 'models';
  readonly models: readonly string[];
  readonly current: string;
  /** VS Code's own models (`vscode:` ids, not in `models`), listed in their own "VS Code" group. */
  readonly vscodeModels?: readonly VscodeModelView[];
}
/** One of VS Code's models in the pickers. */
export interface VscodeModelView {
  /** Arbor's id, `vscode:<vendor>/<id>`: what is picked and stored. */
  readonly id: string;
  /** VS Code's name of the model ("GPT-4o"). */
  readonly name: string;
  /** Vendor and family ("copilot · gpt-4o"). */
  readonly description: string;
}
/** Host: the chat's system prompt and request options, for the header's picker and options form. */
export interface ChatOptionsMessage {
  readonly type: 'chatOptions';
  /** The prompts of `prompts/system/`. */
  readonly systemPrompts: ReadonlyArray<{ readonly name: string; readonly description?: string }>;
  /** The one this chat sends; `''` for none. */
  readonly systemPrompt: string;
  /** Why no library prompt can be picked (restricted mode, no folder), when so. */
  readonly systemPromptNote?: string;
  readonly requestOptions: RequestOptionsView;
  /**
   * Thinking for the chat's model: `supported`/`unsupported` as Ollama reports it, `unknown` when the
   * server does not say (OpenAI-compatible: levels are offered and sent as `reasoning_effort`).
   */
  readonly thinking: 'supported' | 'unsupported' | 'unknown';
  /** The provider's wire format: Ollama takes on/off and levels, OpenAI-compatible servers levels only. */
  readonly provider: string;
}
/** Host: the prompts of the workspace library, for the `/` menu. */
export interface PromptsMessage {
  readonly type: 'prompts';
  readonly prompts: readonly PromptSummary[];
}
/** Host: attach context to the message being written (Ask About Selection, `#file`, `#selection`). */
export interface AttachMessage {
  readonly type: 'attach';
  readonly attachments: readonly Attachment[];
  /** Text to put in the input box, when given. */
  readonly text?: string;
}
/** Host: the answer to `findFiles`: the matching workspace paths, or why there are none. */
export interface FindFilesResponse {
  readonly type: 'response';
  readonly requestId: string;
  readonly result?: readonly string[];
  readonly error?: ErrorView;
}

/** Host: scroll to this message of the path and highlight it (Go to Bookmark, a search result). */
export interface RevealMessage {
  readonly type: 'reveal';
  readonly nodeId: string;
}

/** Host: the one answer to a request that has a `requestId` and no stream (one per such request). */
export type ResponseMessage = FindFilesResponse;
/** Host: an error not tied to a stream (e.g. no model server reachable), with its fix. */
export interface NoticeMessage {
  readonly type: 'notice';
  readonly level: 'info' | 'warning' | 'error';
  readonly message: string;
  /** A compaction just made: the notice offers Undo for it. */
  readonly undoCompaction?: string;
  /** The reader left a branch ending at this node: the notice offers to carry a summary of it. */
  readonly offerBranchSummary?: string;
  /** Buttons that fix the failure (the team store's settings or password). */
  readonly actions?: readonly ErrorAction[];
  /** The chat could not be loaded (the team store unreachable): the notice offers Retry, which asks for it again. */
  readonly retryLoad?: boolean;
}

export type ToWebview =
  | StateMessage
  | UsageMessage
  | StreamStartMessage
  | StreamDeltaMessage
  | StreamDoneMessage
  | ModelsMessage
  | PromptsMessage
  | ChatOptionsMessage
  | AttachMessage
  | ResponseMessage
  | NoticeMessage
  | RevealMessage
  | SeveralToWebview
  | FlowToWebview;

// ---- webview → host ----

/** Webview: loaded and listening; the host may post now. */
export interface ReadyMessage {
  readonly type: 'ready';
}
/** Webview: send a new user message (or a `/` prompt with params) and stream the answer. */
export interface SendMessage {
  readonly type: 'send';
  readonly requestId: string;
  readonly text: string;
  readonly attachments: readonly Attachment[];
  readonly promptName?: string;
  /** Which folder `promptName` is from; absent means `user`; `flow` runs the flow of that name with `params` as its inputs. */
  readonly promptKind?: 'user' | 'messages' | 'flow';
  readonly params?: Readonly<Record<string, string>>;
  readonly model?: string;
  /** Images pasted, dropped or attached in the composer (the host checks type, size and count again). */
  readonly images?: readonly ImageView[];
}
/** Webview: Stop the streaming answer; the partial text is kept and marked. */
export interface StopMessage {
  readonly type: 'stop';
  readonly requestId: string;
}
/** Webview: Regenerate an answer as a new sibling, optionally with another model. */
export interface RegenerateMessage {
  readonly type: 'regenerate';
  readonly requestId: string;
  readonly nodeId: string;
  readonly model?: string;
}
/** Webview: Edit a user message into a sibling with new text and answer it. */
export interface EditMessage {
  readonly type: 'edit';
  readonly requestId: string;
  readonly nodeId: string;
  readonly text: string;
  /** Set when a prompt message was edited in its form: render this prompt again with `params`. */
  readonly promptName?: string;
  readonly params?: Readonly<Record<string, string>>;
}
/** Webview: the `‹ ›` switcher moved to another sibling; show its branch. */
export interface SwitchMessage {
  readonly type: 'switch';
  readonly nodeId: string;
}
/** Webview: Branch from Here on a message of the chat; the host answers with a `state` carrying its `branchPoint`. */
export interface BranchHereMessage {
  readonly type: 'branchHere';
  readonly nodeId: string;
}
/** Webview: the draft changed (debounced); the host answers with `usage`. */
export interface DraftMessage {
  readonly type: 'draft';
  readonly text: string;
  readonly attachments: readonly Attachment[];
}
/** Webview: Undo on a summary: the conversation goes back to the full history (the summary's parent). */
export interface UndoCompactionMessage {
  readonly type: 'undoCompaction';
  readonly nodeId: string;
}
/** Webview: the notice's offer was taken: summarise the branch left at `fromNodeId` into the current one. */
export interface SummariseBranchMessage {
  readonly type: 'summariseBranch';
  readonly fromNodeId: string;
}
/** Webview: Remove on a branch summary. */
export interface RemoveBranchSummaryMessage {
  readonly type: 'removeBranchSummary';
  readonly nodeId: string;
}
/** Webview: Compact up to Here on a message: its older turns become a summary below it. */
export interface CompactHereMessage {
  readonly type: 'compactHere';
  readonly nodeId: string;
}
/** Webview: Cancel on the new-branch banner; the chat returns to where the reader was. */
export interface CancelBranchMessage {
  readonly type: 'cancelBranch';
}
/** Webview: Retry after an error (answer the current user message again). */
export interface RetryMessage {
  readonly type: 'retry';
  readonly requestId: string;
}
/** Webview: copy text to the clipboard. */
export interface CopyMessage {
  readonly type: 'copy';
  readonly text: string;
}
/** Webview: insert a code block at the cursor of the last active editor. */
export interface InsertMessage {
  readonly type: 'insert';
  readonly text: string;
}
/** Webview: Apply on a code block: the host finds its file and shows the change as a diff to accept or reject. */
export interface ApplyCodeMessage {
  readonly type: 'applyCode';
  /** The answer holding the block; absent for a block still streaming. */
  readonly nodeId?: string;
  readonly code: string;
}
/** Webview: open a file at a line range (a context chip was clicked). */
export interface OpenFileMessage {
  readonly type: 'openFile';
  readonly path: string;
  readonly startLine?: number;
  readonly endLine?: number;
}
/** Webview: the model picker changed. */
export interface SelectModelMessage {
  readonly type: 'selectModel';
  readonly model: string;
}
/** Webview: the header's system prompt picker changed (`''`: none); applies from the next request. */
export interface SelectSystemPromptMessage {
  readonly type: 'selectSystemPrompt';
  readonly name: string;
}
/** Webview: the header's request options form was applied; replaces the chat's options. */
export interface SetRequestOptionsMessage {
  readonly type: 'setRequestOptions';
  readonly options: RequestOptionsView;
}
/** Webview: an error's action button was clicked; the host runs its command. */
export interface RunActionMessage {
  readonly type: 'runAction';
  readonly command: ErrorActionCommand;
}
/** Webview: list workspace files matching `query`, for `#file`. Answered by `FindFilesResponse`. */
export interface FindFilesMessage {
  readonly type: 'findFiles';
  readonly requestId: string;
  readonly query: string;
}
/** Webview: attach the active editor's selection (`#selection`); answered by `attach`. */
export interface AttachSelectionMessage {
  readonly type: 'attachSelection';
}
/** Webview: a prompt message's version chip was clicked: diff the version that rendered it against the file now. */
export interface OpenPromptDiffMessage {
  readonly type: 'openPromptDiff';
  readonly nodeId: string;
}
/** Webview: bookmark a message, or remove its bookmark. */
export interface SetBookmarkMessage {
  readonly type: 'setBookmark';
  readonly nodeId: string;
  readonly bookmarked: boolean;
}
/** Webview: set the note on a message (an empty note removes it). */
export interface SetNoteMessage {
  readonly type: 'setNote';
  readonly nodeId: string;
  readonly note: string;
}
/** Webview: an instruction chip's toggle: leave that file out of this chat's requests, or send it again. */
export interface SetInstructionExcludedMessage {
  readonly type: 'setInstructionExcluded';
  readonly path: string;
  readonly excluded: boolean;
}
/** Webview: the reader reached the top of the window; send older messages of the path (a new `state`). */
export interface LoadEarlierMessage {
  readonly type: 'loadEarlier';
}

export type FromWebview =
  | ReadyMessage
  | SendMessage
  | StopMessage
  | RegenerateMessage
  | EditMessage
  | SwitchMessage
  | BranchHereMessage
  | CancelBranchMessage
  | DraftMessage
  | UndoCompactionMessage
  | CompactHereMessage
  | SummariseBranchMessage
  | RemoveBranchSummaryMessage
  | RetryMessage
  | CopyMessage
  | InsertMessage
  | ApplyCodeMessage
  | OpenFileMessage
  | SelectModelMessage
  | SelectSystemPromptMessage
  | SetRequestOptionsMessage
  | RunActionMessage
  | FindFilesMessage
  | AttachSelectionMessage
  | LoadEarlierMessage
  | OpenPromptDiffMessage
  | SetBookmarkMessage
  | SetNoteMessage
  | ToolDecisionMessage
  | SetToolsEnabledMessage
  | ChooseToolsMessage
  | RestoreFilesMessage
  | OpenFileChangeMessage
  | SetInstructionExcludedMessage
  | SeveralFromWebview
  | FlowFromWebview;

// ---- requests and their answers ----

/** What answers a streamed request: `streamStart`, any number of `streamDelta`, then one `streamDone`. */
export type StreamAnswer = StreamStartMessage | StreamDeltaMessage | StreamDoneMessage;

/**
 * Every webview request the host answers, by `type`: the request message and the messages that
 * answer it, all with the request's `requestId`. The host posts answers and the webview awaits them
 * through these types, so a request and its answer cannot drift apart on one side only.
 * (Continue's `core/protocol`, vscode-eslint's `customMessages.ts`.)
 */
export interface WebviewRequests {
  send: { request: SendMessage; answer: StreamAnswer };
  regenerate: { request: RegenerateMessage; answer: StreamAnswer };
  edit: { request: EditMessage; answer: StreamAnswer };
  retry: { request: RetryMessage; answer: StreamAnswer };
  mergeAnswers: { request: MergeAnswersMessage; answer: StreamAnswer };
  findFiles: { request: FindFilesMessage; answer: FindFilesResponse };
}

/** The `type` of a request the host answers. */
export type RequestType = keyof WebviewRequests;
/** The message of a request (of all of them, without `K`). */
export type RequestMessage<K extends RequestType = RequestType> = WebviewRequests[K]['request'];
/** The messages that answer a request. */
export type AnswerMessage<K extends RequestType = RequestType> = WebviewRequests[K]['answer'];
/** The requests answered by a model stream. */
export type StreamedRequestType = { [K in RequestType]: AnswerMessage<K> extends StreamAnswer ? K : never }[RequestType];
/** The requests answered by one `response`. */
export type ResponseRequestType = Exclude<RequestType, StreamedRequestType>;
/** What the `response` to a request carries when it succeeds. */
export type ResponseResult<K extends ResponseRequestType> = NonNullable<AnswerMessage<K>['result']>;

// A request whose `type` is not its key, that is missing from `FromWebview` or has no `requestId`, or
// an answer missing from `ToWebview` or without the `requestId`, is a compile error here.
type Holds<T extends true> = T;
type WellFormed<K extends RequestType> = [RequestMessage<K>] extends [FromWebview & { type: K; requestId: string }]
  ? [AnswerMessage<K>] extends [ToWebview & { requestId: string }]
    ? true
    : false
  : false;
type _RequestsAreWellFormed = Holds<{ [K in RequestType]: WellFormed<K> }[RequestType]>;

const STREAMED: { readonly [K in StreamedRequestType]: true } = { send: true, regenerate: true, edit: true, retry: true, mergeAnswers: true };

/** Whether a message is a request the host answers with a stream (so a failure ends that stream). */
export function isStreamedRequest(message: FromWebview): message is RequestMessage<StreamedRequestType> {
  return Object.prototype.hasOwnProperty.call(STREAMED, message.type);
}

/** Compile-time exhaustiveness check for `switch (msg.type)`. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled message: ${JSON.stringify(value)}`);
}
