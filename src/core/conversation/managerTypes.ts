import type { ImageInput } from '../images/imageInfo';
import type { CompletionOptions, LLMProvider } from '../llm/provider';
import type { TokenCounter } from '../llm/tokenCount';
import type { ConversationPromptBuilder, RagConfig } from '../promptContracts';
import type { ConversationStorage } from '../storage/storage';
import type { MessageTokenEstimator } from './contextWindow';
import type { ConversationMiddleware } from './middleware/middleware';
import type { ToolLoopOptions } from '../tools/toolLoop';
import type { ConversationNode, LLMMessage, Role, ToolCall, ToolDefinition } from '../types';

/** What every manager needs: the model, the store, and how requests are built. */
export interface ConversationManagerOptions {
  llm: LLMProvider;
  storage: ConversationStorage;
  promptBuilder?: ConversationPromptBuilder;
  middleware?: ConversationMiddleware[];
  /** Store what each prompt's retrieval found on its node (`metadata.ragMetadata`). */
  cacheRagResults?: boolean;
  /** Reuse stored retrievals of the same prompt and role from any branch instead of searching again. */
  reuseRagOnBranch?: boolean;
  /** Most non-system messages per request (context window). */
  maxHistory?: number;
  /** The largest image `addMessage` takes, in bytes (`arbor.images.maxBytes`; default 5 MB). */
  maxImageBytes?: number;
  /** Most estimated tokens per request (context window). */
  maxContextTokens?: number;
  /** Token estimate per message for the context window and the UI. */
  estimateTokens?: MessageTokenEstimator;
  /** Tokens of the newest tool outputs a request carries whole; older ones become a one-line marker (default 40,000). */
  keepToolOutputTokens?: number;
}

/** Options of `ConversationManager.create`. */
export interface CreateConversationOptions extends ConversationManagerOptions {
  systemPrompt?: string;
  systemPromptName?: string;
  systemParams?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  conversationId?: string;
}

/** A message to add. Give `content`, or `promptName` to render a template from the prompt library. */
export interface AddMessageOptions {
  role: Role;
  content?: string;
  promptName?: string;
  params?: Record<string, unknown>;
  includeRag?: boolean;
  ragConfigs?: RagConfig[];
  metadata?: Record<string, unknown>;
  name?: string;
  toolCallId?: string;
  toolCalls?: ToolCall[];
  /** Store `content` exactly as typed instead of rendering it as a template. */
  raw?: boolean;
  /**
   * Images of a `user` message (at most 20, each at most `maxImageBytes`): stored with the node, each
   * distinct image once, and sent to models that take images.
   */
  images?: ImageInput[];
}

/** Per-call model settings that override the provider's. */
export type ConfigOverrides = Pick<CompletionOptions, 'model' | 'temperature' | 'maxTokens' | 'topP' | 'stop' | 'seed' | 'think' | 'extra'>;

/** Options of `complete` and `streamComplete`. */
export interface CompleteOptions {
  branchName?: string;
  /** Merged into the new assistant node's metadata. */
  metadata?: Record<string, unknown>;
  configOverrides?: ConfigOverrides;
  /** System prompt for this call only; the stored root is unchanged. */
  systemPromptOverride?: string;
  /**
   * The workspace's instruction files as one section (see `renderInstructions`), sent in the system
   * message right after the system prompt, for this call only.
   */
  instructions?: string;
  tools?: ToolDefinition[];
  signal?: AbortSignal;
  /**
   * Answer this node instead of the current one (`streamComplete`): several answers to one question
   * stream at once, each stored under it whatever the current node became meanwhile.
   */
  parentNodeId?: string;
  /**
   * Send these messages instead of the path's (a merge of answers): no context window or request
   * middleware is applied to them; the answer is still stored under the node it answers.
   */
  requestMessages?: readonly LLMMessage[];
  /**
   * `streamComplete`: told the answer's node once it is stored (a stopped or failed one's too). With
   * `outputSchema`, told every node the call stores, in order: each attempt's answer and each correction turn.
   */
  onStored?: (node: ConversationNode) => void;
  /**
   * Ask for a JSON answer matching this JSON Schema (draft-07 by default; draft 2019-09 or 2020-12 when its
   * `$schema` says so). The provider is asked for JSON in its own way (`CompletionOptions.responseFormat`);
   * the answer (bare JSON, or one ```json fence) is parsed and validated with Ajv. An answer that fails gets
   * a correction turn (a user node listing each problem with its JSON path) and is asked again, up to
   * `retries` times; the valid value is returned as `LLMResponse.parsed` and stored on its node
   * (`metadata.structuredOutput`). After the last failure `OutputValidationError`. Not with `tools` or
   * `requestMessages`. See `src/core/structured/structuredRun.ts`.
   */
  outputSchema?: object;
  /** With `outputSchema`: how many more answers to ask for after an invalid one (default 2; 0 to 10). */
  retries?: number;
  /**
   * The model's window: a request whose messages and tool definitions count more than `maxPromptTokens`
   * (the window less the answer's reserve) is refused with `RequestTooLargeError` before anything is
   * sent or stored. Checked for every request (each step of a tool run, each attempt of `outputSchema`).
   */
  window?: RequestWindow;
}

/** The limit a request is checked against, and how it is counted (the same counter as the context meter's). */
export interface RequestWindow {
  maxPromptTokens: number;
  counter: Pick<TokenCounter, 'countMessages' | 'countTools'>;
  /** For the refusal's message. */
  model?: string;
}

/**
 * Options of `runWithTools`: the loop's (tools, approval, limit, Stop, events) and those of `complete`
 * for each of its answers (the tools offered come from the executor, or from `toolsForStep` when given; the
 * branch name goes on the first; `window` is checked for every step).
 */
export interface ToolRunOptions extends Omit<CompleteOptions, 'tools' | 'outputSchema' | 'retries'>, ToolLoopOptions {}

/** A child of a node, as the branch picker shows it. */
export interface BranchInfo {
  nodeId: string;
  branchName?: string;
  role: Role;
  /** The first 100 characters of the message. */
  preview: string;
  timestamp: string;
}

/** What changed in a conversation; the extension's views listen to it. */
export interface ConversationChangeEvent {
  conversationId: string;
  kind: 'nodeAdded' | 'nodeUpdated' | 'branchDeleted' | 'currentChanged' | 'metadataChanged' | 'reloaded';
  nodeIds: string[];
  currentNodeId: string;
}
