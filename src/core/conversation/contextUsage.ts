/**
 * How full the context is: the tokens the next request would carry (what is really sent: the
 * system prompt with any summary, the path after the compaction, attachments and retrieved context
 * inside their messages, the draft being typed) against the model's limit, with the answer's
 * reserve. Pure; a counter that caches per node makes it cheap to call on every keystroke.
 */
import { estimateMessageTokens, estimateTokens } from '../llm/tokens';
import { toolsJson } from '../llm/wireTools';
import { readNodeMetadata } from '../metadataKeys';
import type { ConversationNode, LLMMessage, ToolDefinition } from '../types';
import { requestPath } from './compaction';
import type { ConversationTree } from './conversationTree';

/** Counts tokens; `exact` when a real tokenizer does it, otherwise an estimate. */
export interface UsageCounter {
  readonly exact: boolean;
  countMessage(message: LLMMessage): number;
  /** A node's message; a counter may cache it by node id and content. */
  countNode?(node: ConversationNode): number;
  /** Called first with every node the request carries, so a caching counter can count them in one pass. */
  prepare?(nodes: readonly ConversationNode[]): void;
  /** Tokens of tool definitions as the wire carries them (`TokenCounter.countTools`), the count the request guard uses. */
  countTools?(tools: readonly ToolDefinition[]): number;
}

/** The estimate counter (chars / 4), used when no other is given. */
export const ESTIMATE_COUNTER: UsageCounter = { exact: false, countMessage: estimateMessageTokens, countTools: (tools) => estimateTokens(toolsJson(tools)) };

/** The tokens the next request would carry, and where they come from. */
export interface ContextUsage {
  /** Tokens of the request (parts below, without the reserve). */
  used: number;
  /** The model's context length, when known. */
  limit?: number;
  /** Tokens kept free for the answer. */
  reserved: number;
  /** `used + reserved` as a share of `limit`, 0..1 (can pass 1); undefined when the limit is unknown. */
  fraction?: number;
  /** A real tokenizer counted; otherwise an estimate. */
  exact: boolean;
  parts: {
    /** The system prompt, with the summary of a compaction. */
    system: number;
    /** The workspace's instruction files (AGENTS.md, rules) sent with the system prompt. */
    instructions: number;
    /** Messages as typed and answered. */
    history: number;
    /** Attached files and selections inside user messages. */
    attachments: number;
    /** What prompt templates added: retrieved context and the template's own text. */
    retrieval: number;
    /** The message being written. */
    draft: number;
    /** The definitions of the tools the request offers (names, descriptions, input schemas). */
    tools: number;
  };
  /** The compaction in effect on this path, if any. */
  compactionNodeId?: string;
}

/** What `contextUsage` measures against. */
export interface ContextUsageOptions {
  /** Text being written in the composer, counted as the next user message. */
  draft?: string;
  /** The tools the request offers: their definitions travel with it. */
  tools?: readonly ToolDefinition[];
  /** The system prompt the request will carry instead of the root's (the chat's picked prompt). */
  systemOverride?: string;
  /** The instruction files' section the request carries after the system prompt. */
  instructions?: string;
  /** The model's context length. */
  limit?: number;
  /** Tokens to keep free for the answer (default 0). */
  reserve?: number;
  counter?: UsageCounter;
}

/** The usage of a request for the path root→`nodeId` plus a draft (see `ContextUsage`). */
export function contextUsage(tree: ConversationTree, nodeId: string, options: ContextUsageOptions = {}): ContextUsage {
  const counter = options.counter ?? ESTIMATE_COUNTER;
  const countNode = (n: ConversationNode) => (counter.countNode ? counter.countNode(n) : counter.countMessage(n.message));
  const { system, nodes, compaction } = requestPath(tree, nodeId, options.systemOverride, options.instructions);
  counter.prepare?.(nodes);
  const parts = { system: 0, instructions: 0, history: 0, attachments: 0, retrieval: 0, draft: 0, tools: 0 };
  if (system !== undefined) {
    // One system message carries both: the instructions' share is their own count, the rest is the system prompt's.
    const whole = counter.countMessage({ role: 'system', content: system });
    parts.instructions = options.instructions ? Math.min(whole, counter.countMessage({ role: 'system', content: options.instructions })) : 0;
    parts.system = whole - parts.instructions;
  }
  for (const node of nodes) {
    const total = countNode(node);
    const typed = readNodeMetadata(node.metadata, 'displayText');
    if (node.message.role !== 'user' || typed === undefined || typed === node.message.content) {
      parts.history += total;
      continue;
    }
    // The typed text is history; the rest of the message is what was attached or rendered around it.
    const own = Math.min(total, counter.countMessage({ role: 'user', content: typed }));
    parts.history += own;
    if ((readNodeMetadata(node.metadata, 'attachments') ?? []).length > 0) parts.attachments += total - own;
    else parts.retrieval += total - own;
  }
  if (options.draft?.trim()) parts.draft = counter.countMessage({ role: 'user', content: options.draft });
  // Counted as the JSON the wire carries (the same count as the request guard's), without message framing.
  if (options.tools?.length) parts.tools = counter.countTools ? counter.countTools(options.tools) : Math.max(0, counter.countMessage({ role: 'system', content: toolsJson(options.tools) }) - counter.countMessage({ role: 'system', content: '' }));
  const used = parts.system + parts.instructions + parts.history + parts.attachments + parts.retrieval + parts.draft + parts.tools;
  const reserved = Math.max(0, options.reserve ?? 0);
  const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
  return {
    used,
    ...(limit !== undefined ? { limit, fraction: (used + reserved) / limit } : {}),
    reserved,
    exact: counter.exact,
    parts,
    ...(compaction ? { compactionNodeId: compaction.nodeId } : {}),
  };
}
