/**
 * Builds a conversation in the dataknobs `to_dict` shape that `ConversationManager.importJson` reads,
 * one node at a time, so each importer of another tool's history only says what hangs where. Node ids
 * are dot paths of sibling indexes ("0.1"), the root is "" and always a system message (empty unless
 * the source had a system prompt), times are UTC ISO strings (which `fromLocalIso` reads as instants).
 */
import { DATAKNOBS_SCHEMA_VERSION, type DataknobsConversationDict, type DataknobsMessageDict, type DataknobsNodeDict } from '../exchange';

/** The root's id in a built file. */
export const BUILT_ROOT = '';

/** What a new node carries. */
export interface BuiltMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  name?: string;
  toolCallId?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  thinking?: string;
  images?: string[];
  /** When the source says (UTC ISO); the conversation's own time otherwise. */
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

/** Seconds since the epoch (ChatGPT) or milliseconds (VS Code, Continue) to UTC ISO; `undefined` for anything else. */
export function isoFromEpoch(value: unknown, unit: 's' | 'ms'): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  const date = new Date(unit === 's' ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A conversation under construction in the dataknobs shape. */
export class DataknobsBuilder {
  private readonly nodes: DataknobsNodeDict[] = [];
  private readonly edges: Array<[string, string]> = [];
  private readonly childCount = new Map<string, number>();
  private current = BUILT_ROOT;

  /**
   * @param conversationId the source's id (a second import of it becomes a copy)
   * @param createdAt when the conversation began (UTC ISO); the root and undated nodes take it
   */
  constructor(
    private readonly conversationId: string,
    private readonly createdAt: string,
    rootContent = '',
    rootMetadata: Record<string, unknown> = {},
  ) {
    this.nodes.push(node(BUILT_ROOT, { role: 'system', content: rootContent }, createdAt, rootMetadata));
  }

  /** Appends text to the root's system message (a custom instruction found before the first message). */
  appendToRoot(text: string): void {
    const root = this.nodes[0].message;
    root.content = root.content ? `${root.content}\n\n${text}` : text;
  }

  /** Adds a message as the next child of `parent`; returns its id. */
  add(parent: string, message: BuiltMessage): string {
    const index = this.childCount.get(parent) ?? 0;
    this.childCount.set(parent, index + 1);
    const id = parent === BUILT_ROOT ? String(index) : `${parent}.${index}`;
    const out: DataknobsMessageDict = { role: message.role, content: message.content };
    if (message.name) out.name = message.name;
    if (message.toolCallId) out.tool_call_id = message.toolCallId;
    if (message.toolCalls?.length) out.tool_calls = message.toolCalls.map((c) => ({ id: c.id, name: c.name, parameters: {}, arguments: c.arguments }));
    if (message.thinking) out.thinking = message.thinking;
    if (message.images?.length) out.images = message.images;
    this.nodes.push(node(id, out, message.timestamp ?? this.createdAt, message.metadata ?? {}));
    this.edges.push([parent, id]);
    return id;
  }

  /** Sets the node the conversation opens on (the end of the branch the source showed last). */
  setCurrent(id: string): void {
    this.current = id;
  }

  /** The finished conversation, in the shape `ConversationManager.importJson` reads. */
  build(metadata: Record<string, unknown>, updatedAt?: string): DataknobsConversationDict {
    const last = this.nodes.reduce((max, n) => (n.timestamp > max ? n.timestamp : max), this.createdAt);
    return {
      schema_version: DATAKNOBS_SCHEMA_VERSION,
      conversation_id: this.conversationId,
      nodes: this.nodes,
      edges: this.edges,
      current_node_id: this.current,
      metadata,
      created_at: this.createdAt,
      updated_at: updatedAt ?? last,
    };
  }
}

function node(id: string, message: DataknobsMessageDict, timestamp: string, metadata: Record<string, unknown>): DataknobsNodeDict {
  return { node_id: id, message, timestamp, prompt_name: null, branch_name: null, metadata };
}
