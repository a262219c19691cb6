/**
 * The message and tree types of Arbor's conversation engine. They follow the `dataknobs_llm`
 * conversation model (messages in a tree) with camelCase names.
 */

/** Who speaks a message. `function` is kept for files written by older OpenAI-style tools. */
export type Role = 'system' | 'user' | 'assistant' | 'tool' | 'function';

/** A tool call requested by the model; `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool the model may call, in the OpenAI function-calling shape. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** One message as sent to or received from a model. */
export interface LLMMessage {
  role: Role;
  content: string;
  name?: string;
  /** For `tool` messages: the id of the call this message answers. */
  toolCallId?: string;
  /** For `assistant` messages: the calls the model asked for. */
  toolCalls?: ToolCall[];
  /** Reasoning text the model produced beside its answer, never sent back unless asked. */
  thinking?: string;
  /** Base64-encoded images attached to the message. */
  images?: string[];
  metadata?: Record<string, unknown>;
}

/**
 * A node of the conversation tree. `nodeId` is a short opaque id the store gave it ("" is the root);
 * it is never changed or reused. Its place among its siblings is `position`, the order in which the
 * parent's children were created; the dataknobs dot path of a node ("0.1.2") is computed from the
 * tree when asked for (`ConversationManager.getDotPath`), never stored as an id.
 */
export interface ConversationNode {
  nodeId: string;
  /** `null` for the root. */
  parentId: string | null;
  /** Creation order among the parent's children (gaps where siblings were deleted); 0 for the root. */
  position: number;
  message: LLMMessage;
  /** ISO 8601 time the node was created. */
  timestamp: string;
  /** Name of the prompt template that produced the message, when one did. */
  promptName?: string;
  branchName?: string;
  metadata: Record<string, unknown>;
}

/** Token counts of one model call. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Why a model stopped: the provider's own word is kept when it has no equivalent here. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'aborted' | (string & {});

/** A complete answer from a model. */
export interface LLMResponse {
  content: string;
  model: string;
  finishReason: FinishReason;
  usage?: Usage;
  toolCalls?: ToolCall[];
  thinking?: string;
  costUsd?: number;
  /** Set by the manager: the cost of every call on the path root→this answer. */
  cumulativeCostUsd?: number;
  /**
   * Set by the manager when the call asked for `outputSchema`: the answer's JSON, parsed and valid against
   * the schema (the text stays in `content`).
   */
  parsed?: unknown;
  metadata: Record<string, unknown>;
}

/** One piece of a streamed answer. The last chunk has `done: true` and carries usage when known. */
export interface LLMStreamChunk {
  delta: string;
  thinkingDelta?: string;
  /** Tool calls, complete, on the chunk where the provider finished them. */
  toolCalls?: ToolCall[];
  done: boolean;
  finishReason?: FinishReason;
  usage?: Usage;
  model?: string;
  /** Cost of the whole call in USD, on the last chunk, when the provider knows the model's price. */
  costUsd?: number;
}

/** The whole persisted state of one conversation. */
export interface ConversationState {
  conversationId: string;
  nodes: ConversationNode[];
  currentNodeId: string;
  metadata: Record<string, unknown>;
  /**
   * The store's node counter: the next node gets `formatNodeId(nextNodeSeq)`. It never goes down,
   * so ids of deleted nodes are never given again. Optional when saving a new conversation (the
   * store then starts past the highest id in `nodes`).
   */
  nextNodeSeq?: number;
  /**
   * Set on conversations migrated from a 1.x store: sibling positions below it are the child
   * indexes of the old dot-path ids, so an old id ("0.1.2") saved somewhere still finds its node.
   */
  legacyIdLimit?: number;
  createdAt: string;
  updatedAt: string;
}
