import { InvalidArgumentError } from '../errors';
import { ConversationTree, ROOT_NODE_ID, childIdOf, isValidNodeId, parentIdOf } from './conversationTree';
import type { ConversationNode, ConversationState, LLMMessage, Role, ToolCall } from '../types';

/** The schema version written, the one `dataknobs_llm` (1.1.0) writes and reads without migration. */
export const DATAKNOBS_SCHEMA_VERSION = '1.1.0';

/** A message as `dataknobs_llm`'s `LLMMessage.to_dict()` writes it (Arbor adds `thinking` and `images`). */
export interface DataknobsMessageDict {
  role: string;
  content: string;
  name?: string;
  tool_call_id?: string;
  tool_calls?: Array<{ name: string; parameters: unknown; id?: string; arguments?: string }>;
  thinking?: string;
  images?: string[];
  metadata?: Record<string, unknown>;
}

/** A node as `ConversationNode.to_dict()` writes it. */
export interface DataknobsNodeDict {
  node_id: string;
  message: DataknobsMessageDict;
  timestamp: string;
  prompt_name: string | null;
  branch_name: string | null;
  metadata: Record<string, unknown>;
}

/** A conversation in the `ConversationState.to_dict()` shape of `dataknobs_llm`. */
export interface DataknobsConversationDict {
  schema_version: string;
  conversation_id: string;
  nodes: DataknobsNodeDict[];
  edges: Array<[string, string]>;
  current_node_id: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** Arbor-only: ids of deleted subtrees (dataknobs ignores unknown keys). */
  arbor?: { tombstones: string[] };
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool', 'function'];

/**
 * A UTC time without a zone suffix, like the naive `datetime.isoformat()` dataknobs writes: a
 * dataknobs process that adds naive times to the same conversation can still sort them with ours
 * (Python refuses to compare naive and aware times). Read back, a time without a zone is UTC.
 */
function toPythonIso(iso: string): string {
  return iso.endsWith('Z') ? iso.slice(0, -1) : iso;
}

/** Reads an ISO time; one without a zone (dataknobs writes naive local times) is taken as UTC. */
function fromIso(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidArgumentError(`${field} must be an ISO 8601 time string, got ${JSON.stringify(value)}.`);
  }
  const hasZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(value);
  const ms = Date.parse(hasZone ? value : `${value}Z`);
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError(`${field} is not a valid ISO 8601 time: "${value}".`);
  }
  return new Date(ms).toISOString();
}

function exportToolCalls(calls: ToolCall[]): DataknobsMessageDict['tool_calls'] {
  return calls.map((c) => {
    let parameters: unknown;
    try {
      parameters = JSON.parse(c.function.arguments);
    } catch {
      parameters = undefined;
    }
    const isObject = typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters);
    return isObject
      ? { name: c.function.name, parameters, id: c.id }
      : { name: c.function.name, parameters: {}, id: c.id, arguments: c.function.arguments };
  });
}

function importToolCalls(raw: unknown, nodeId: string): ToolCall[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    return undefined;
  }
  return raw.map((item: any, i) => {
    const fn = item?.function;
    const name = typeof fn?.name === 'string' ? fn.name : item?.name;
    if (typeof name !== 'string') {
      throw new InvalidArgumentError(`Tool call ${i} of node "${nodeId}" has no name.`);
    }
    const args =
      typeof fn?.arguments === 'string'
        ? fn.arguments
        : typeof item?.arguments === 'string'
          ? item.arguments
          : JSON.stringify(item?.parameters ?? {});
    return { id: typeof item?.id === 'string' ? item.id : `call_${nodeId || 'root'}_${i}`, type: 'function', function: { name, arguments: args } };
  });
}

function exportMessage(m: LLMMessage): DataknobsMessageDict {
  const out: DataknobsMessageDict = { role: m.role, content: m.content };
  if (m.name !== undefined) out.name = m.name;
  if (m.toolCallId !== undefined) out.tool_call_id = m.toolCallId;
  if (m.toolCalls?.length) out.tool_calls = exportToolCalls(m.toolCalls);
  if (m.thinking !== undefined) out.thinking = m.thinking;
  if (m.images?.length) out.images = m.images;
  if (m.metadata && Object.keys(m.metadata).length > 0) out.metadata = m.metadata;
  return out;
}

function importMessage(raw: any, nodeId: string): LLMMessage {
  if (typeof raw !== 'object' || raw === null) {
    throw new InvalidArgumentError(`Node "${nodeId}" has no message object.`);
  }
  if (!ROLES.includes(raw.role)) {
    throw new InvalidArgumentError(`Node "${nodeId}" has role ${JSON.stringify(raw.role)}; expected one of ${ROLES.join(', ')}.`);
  }
  const m: LLMMessage = { role: raw.role, content: typeof raw.content === 'string' ? raw.content : raw.content == null ? '' : String(raw.content) };
  if (typeof raw.name === 'string') m.name = raw.name;
  if (typeof raw.tool_call_id === 'string') m.toolCallId = raw.tool_call_id;
  const calls = importToolCalls(raw.tool_calls, nodeId);
  if (calls) m.toolCalls = calls;
  if (typeof raw.thinking === 'string') m.thinking = raw.thinking;
  if (Array.isArray(raw.images)) m.images = raw.images.filter((x: unknown): x is string => typeof x === 'string');
  if (raw.metadata && typeof raw.metadata === 'object' && Object.keys(raw.metadata).length > 0) m.metadata = raw.metadata;
  return m;
}

/** Writes a conversation in the dataknobs `to_dict` shape: nodes breadth first, edges `[parent, child]`. */
export function toDataknobsDict(state: ConversationState): DataknobsConversationDict {
  const tree = new ConversationTree(state.nodes, state.tombstones);
  const nodes: DataknobsNodeDict[] = [];
  const edges: Array<[string, string]> = [];
  const queue = [tree.root];
  while (queue.length > 0) {
    const node = queue.shift() as ConversationNode;
    nodes.push({
      node_id: node.nodeId,
      message: exportMessage(node.message),
      timestamp: toPythonIso(node.timestamp),
      prompt_name: node.promptName ?? null,
      branch_name: node.branchName ?? null,
      metadata: node.metadata,
    });
    for (const child of tree.children(node.nodeId)) {
      edges.push([node.nodeId, child.nodeId]);
      queue.push(child);
    }
  }
  return {
    schema_version: DATAKNOBS_SCHEMA_VERSION,
    conversation_id: state.conversationId,
    nodes,
    edges,
    current_node_id: state.currentNodeId,
    metadata: state.metadata,
    created_at: toPythonIso(state.createdAt),
    updated_at: toPythonIso(state.updatedAt),
    ...(state.tombstones.length > 0 ? { arbor: { tombstones: [...state.tombstones] } } : {}),
  };
}

/**
 * Maps the file's node ids to Arbor's. Ids that already are the dot paths their edges describe
 * are kept; otherwise ids are given again from the edges, children in the order listed.
 */
function resolveIds(rawNodes: any[], edges: Array<[string, string]>): Map<string, string> {
  const ids = rawNodes.map((n) => n.node_id as string);
  const parentOf = new Map<string, string>();
  for (const [parent, child] of edges) {
    parentOf.set(child, parent);
  }
  const consistent =
    ids.includes(ROOT_NODE_ID) &&
    ids.every((id) => isValidNodeId(id) && (id === ROOT_NODE_ID || !parentOf.has(id) || parentOf.get(id) === parentIdOf(id)));
  if (consistent) {
    return new Map(ids.map((id) => [id, id]));
  }
  const roots = ids.filter((id) => !parentOf.has(id));
  if (roots.length !== 1) {
    throw new InvalidArgumentError(`The conversation must have exactly one root node (a node that is no edge's child); found ${roots.length}.`);
  }
  const childrenOf = new Map<string, string[]>();
  for (const [parent, child] of edges) {
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), child]);
  }
  const mapping = new Map<string, string>([[roots[0], ROOT_NODE_ID]]);
  const queue = [roots[0]];
  while (queue.length > 0) {
    const old = queue.shift() as string;
    (childrenOf.get(old) ?? []).forEach((child, i) => {
      mapping.set(child, childIdOf(mapping.get(old) as string, i));
      queue.push(child);
    });
  }
  return mapping;
}

/** Reads a conversation in the dataknobs `to_dict` shape (written by Arbor or by dataknobs). */
export function fromDataknobsDict(obj: unknown): ConversationState {
  if (typeof obj !== 'object' || obj === null) {
    throw new InvalidArgumentError('Expected a conversation object in the dataknobs to_dict shape ({conversation_id, nodes, edges, ...}).');
  }
  const data = obj as Record<string, any>;
  const major = String(data.schema_version ?? '1.0.0').split('.')[0];
  if (Number(major) > 1) {
    throw new InvalidArgumentError(`Conversation schema ${data.schema_version} is newer than this Arbor understands (1.x). Update Arbor to import it.`);
  }
  if (typeof data.conversation_id !== 'string' || data.conversation_id.length === 0) {
    throw new InvalidArgumentError('The conversation has no "conversation_id" string.');
  }
  if (!Array.isArray(data.nodes) || data.nodes.length === 0) {
    throw new InvalidArgumentError(`Conversation "${data.conversation_id}" has no "nodes" list.`);
  }
  for (const [i, n] of data.nodes.entries()) {
    if (typeof n?.node_id !== 'string') {
      throw new InvalidArgumentError(`Node ${i} of conversation "${data.conversation_id}" has no "node_id" string.`);
    }
  }
  const rawEdges: unknown = data.edges ?? [];
  if (!Array.isArray(rawEdges) || !rawEdges.every((e) => Array.isArray(e) && e.length >= 2 && typeof e[0] === 'string' && typeof e[1] === 'string')) {
    throw new InvalidArgumentError(`The "edges" of conversation "${data.conversation_id}" must be a list of [parent_id, child_id] pairs.`);
  }
  const edges = rawEdges as Array<[string, string]>;
  const mapping = resolveIds(data.nodes, edges);
  const now = new Date().toISOString();
  const nodes: ConversationNode[] = data.nodes
    .filter((n: any) => mapping.has(n.node_id))
    .map((n: any) => {
      const nodeId = mapping.get(n.node_id) as string;
      const metadata: Record<string, unknown> = n.metadata && typeof n.metadata === 'object' ? { ...n.metadata } : {};
      if (metadata.costUsd === undefined && typeof metadata.cost_usd === 'number') {
        metadata.costUsd = metadata.cost_usd;
      }
      const node: ConversationNode = {
        nodeId,
        parentId: parentIdOf(nodeId),
        message: importMessage(n.message, n.node_id),
        timestamp: n.timestamp === undefined ? now : fromIso(n.timestamp, `The timestamp of node "${n.node_id}"`),
        metadata,
      };
      if (typeof n.prompt_name === 'string') node.promptName = n.prompt_name;
      if (typeof n.branch_name === 'string') node.branchName = n.branch_name;
      return node;
    });
  const tombstones = Array.isArray(data.arbor?.tombstones) ? data.arbor.tombstones.filter((t: unknown) => typeof t === 'string') : [];
  const tree = new ConversationTree(nodes, tombstones);
  const current = mapping.get(data.current_node_id ?? ROOT_NODE_ID);
  return {
    conversationId: data.conversation_id,
    nodes: tree.all(),
    currentNodeId: current !== undefined && tree.has(current) ? current : ROOT_NODE_ID,
    metadata: data.metadata && typeof data.metadata === 'object' ? { ...data.metadata } : {},
    tombstones,
    createdAt: data.created_at === undefined ? now : fromIso(data.created_at, 'created_at'),
    updatedAt: data.updated_at === undefined ? now : fromIso(data.updated_at, 'updated_at'),
  };
}
