/**
 * The token count of a path as it would be sent, kept up to date cheaply: each node's message is
 * counted once and remembered by node id and content, so while the user types only the draft (and
 * whatever else changed) is counted again. Pure; the meter and compaction share it.
 */
import { InvalidArgumentError } from '../errors';
import type { LLMMessage, ToolCall, ToolDefinition } from '../types';
import type { TokenCounter } from './tokenCount';

/** A node of the path: its id and the message sent for it. */
export interface CountableNode {
  nodeId: string;
  message: LLMMessage;
}

/** The count of a request, whole and by part. */
export interface PathTokenCount {
  total: number;
  /**
   * Tokens by part: `path` (the nodes' messages), `priming` (the reply's framing), `tools` (when given),
   * and each extra by its own name (`system`, `draft`, `retrieved`…).
   */
  byPart: Record<string, number>;
}

/** Extra parts of a request: a string counts as bare text, a message with its chat framing. */
export type ExtraParts = Readonly<Record<string, string | LLMMessage | undefined>>;

const RESERVED_PARTS = new Set(['path', 'priming', 'tools']);

interface NodeEntry {
  message: LLMMessage;
  tokens: number;
}

/**
 * Counts a path of nodes plus extra parts with a per-node cache. The cache follows the counter: a new
 * counter (another model) or a recalibrated one (its `revision` moved) starts it afresh.
 */
export class PathTokenCache {
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly extras = new Map<string, { value: string | LLMMessage; tokens: number }>();
  private tools?: { value: readonly ToolDefinition[]; tokens: number };
  private revision: number;

  constructor(private _counter: TokenCounter) {
    this.revision = _counter.revision;
  }

  /** The counter in use. */
  get counter(): TokenCounter {
    return this._counter;
  }

  /** Switches to another counter (another model); every cached count is dropped. */
  set counter(counter: TokenCounter) {
    if (counter === this._counter) return;
    this._counter = counter;
    this.clear();
  }

  /**
   * Counts `nodes` (in path order) with `extras` and `tools`. Only messages not seen before under their
   * node id, or changed since, are counted; the rest come from the cache. Extra names `path`, `priming`
   * and `tools` are taken by the result's own parts.
   */
  count(nodes: readonly CountableNode[], extras: ExtraParts = {}, tools?: readonly ToolDefinition[]): PathTokenCount {
    if (this._counter.revision !== this.revision) this.clear();
    let path = 0;
    for (const node of nodes) path += this.nodeTokens(node);
    const byPart: Record<string, number> = { path, priming: this._counter.countMessages([]) };
    if (tools?.length) byPart.tools = this.toolTokens(tools);
    for (const [name, value] of Object.entries(extras)) {
      if (RESERVED_PARTS.has(name)) throw new InvalidArgumentError(`"${name}" is a part of every count; name the extra part differently.`);
      if (value === undefined) continue;
      byPart[name] = this.extraTokens(name, value);
    }
    if (this.nodes.size > 2 * nodes.length + 256) this.prune(nodes);
    let total = 0;
    for (const tokens of Object.values(byPart)) total += tokens;
    return { total, byPart };
  }

  /** The cached count of one node's message, if it was counted. */
  tokensOf(nodeId: string): number | undefined {
    return this.nodes.get(nodeId)?.tokens;
  }

  /** Drops every cached count. */
  clear(): void {
    this.nodes.clear();
    this.extras.clear();
    this.tools = undefined;
    this.revision = this._counter.revision;
  }

  private nodeTokens(node: CountableNode): number {
    const cached = this.nodes.get(node.nodeId);
    if (cached && sameCountedMessage(cached.message, node.message)) return cached.tokens;
    const tokens = this._counter.countMessage(node.message);
    this.nodes.set(node.nodeId, { message: snapshot(node.message), tokens });
    return tokens;
  }

  private extraTokens(name: string, value: string | LLMMessage): number {
    const cached = this.extras.get(name);
    if (cached && (typeof value === 'string' ? cached.value === value : typeof cached.value !== 'string' && sameCountedMessage(cached.value, value))) {
      return cached.tokens;
    }
    const tokens = typeof value === 'string' ? this._counter.countText(value) : this._counter.countMessage(value);
    this.extras.set(name, { value: typeof value === 'string' ? value : snapshot(value), tokens });
    return tokens;
  }

  private toolTokens(tools: readonly ToolDefinition[]): number {
    if (this.tools?.value === tools) return this.tools.tokens;
    const tokens = this._counter.countTools(tools);
    this.tools = { value: tools, tokens };
    return tokens;
  }

  // Keeps the nodes of the current path; other branches' counts are dropped once they outnumber it.
  private prune(nodes: readonly CountableNode[]): void {
    const keep = new Set(nodes.map((n) => n.nodeId));
    for (const id of this.nodes.keys()) if (!keep.has(id)) this.nodes.delete(id);
  }
}

// The fields a count depends on, copied so a later change to the caller's object is seen as a change.
function snapshot(m: LLMMessage): LLMMessage {
  return {
    role: m.role,
    content: m.content,
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
    ...(m.toolCalls ? { toolCalls: m.toolCalls.map((c) => ({ id: c.id, type: c.type, function: { name: c.function.name, arguments: c.function.arguments } })) } : {}),
    ...(m.images ? { images: [...m.images] } : {}),
  };
}

function sameCountedMessage(a: LLMMessage, b: LLMMessage): boolean {
  return a.content === b.content && a.role === b.role && a.name === b.name && a.toolCallId === b.toolCallId
    && sameList(a.toolCalls, b.toolCalls, sameCall) && sameList(a.images, b.images, (x, y) => x === y);
}

function sameCall(a: ToolCall, b: ToolCall): boolean {
  return a.function.name === b.function.name && a.function.arguments === b.function.arguments;
}

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined, same: (x: T, y: T) => boolean): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((item, i) => same(item, y[i]));
}
