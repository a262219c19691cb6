import { InvalidArgumentError } from '../errors';
import { ROOT_NODE_ID, formatNodeId } from '../nodeIds';
import type { ConversationNode, ConversationState, LLMMessage, Role, ToolCall } from '../types';
import { ConversationTree } from './conversationTree';
import { fromDataknobsMetadata, fromLocalIso, toDataknobsMetadata, toLocalIso } from './exchangeFields';

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
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool', 'function'];

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

/** The conversation's metadata for a file: Arbor's navigation state names its own node ids, which a file re-numbers. */
function exportedMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const { lastVisitedChild: _visited, ...rest } = metadata;
  return rest;
}

/**
 * Writes a conversation in the dataknobs `to_dict` shape, exactly as dataknobs writes it: node ids
 * are dot paths of sibling indexes ("0.1.2", the root ""), nodes breadth first, edges
 * `[parent, child]`, times naive local ISO, and node metadata carries the keys dataknobs reads
 * (`cost_usd`, `usage.prompt_tokens`…, `finish_reason`, `rag_metadata`) beside Arbor's own.
 */
export function toDataknobsDict(state: ConversationState): DataknobsConversationDict {
  const tree = new ConversationTree(state.nodes);
  const nodes: DataknobsNodeDict[] = [];
  const edges: Array<[string, string]> = [];
  const paths = new Map<string, string>([[ROOT_NODE_ID, '']]);
  const queue: ConversationNode[] = [tree.root];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    const path = paths.get(node.nodeId) as string;
    nodes.push({
      node_id: path,
      message: exportMessage(node.message),
      timestamp: toLocalIso(node.timestamp),
      prompt_name: node.promptName ?? null,
      branch_name: node.branchName ?? null,
      metadata: toDataknobsMetadata(node.metadata),
    });
    tree.children(node.nodeId).forEach((child, i) => {
      const childPath = path === '' ? String(i) : `${path}.${i}`;
      paths.set(child.nodeId, childPath);
      edges.push([path, childPath]);
      queue.push(child);
    });
  }
  return {
    schema_version: DATAKNOBS_SCHEMA_VERSION,
    conversation_id: state.conversationId,
    nodes,
    edges,
    current_node_id: paths.get(state.currentNodeId) ?? '',
    metadata: exportedMetadata(state.metadata),
    created_at: toLocalIso(state.createdAt),
    updated_at: toLocalIso(state.updatedAt),
  };
}

/**
 * The file's nodes as a tree: each node's parent, from `edges` (or, for a file without edges, from
 * its dot-path ids), and the order of each node's children as the file lists them.
 */
function fileTree(rawNodes: any[], edges: Array<[string, string]>): { root: string; children: Map<string, string[]> } {
  const ids = new Set(rawNodes.map((n) => n.node_id as string));
  const links: Array<[string, string]> = edges.length > 0 ? edges : dotPathLinks([...ids]);
  const parentOf = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const [parent, child] of links) {
    if (!ids.has(parent) || !ids.has(child) || parentOf.has(child) || parent === child) continue;
    parentOf.set(child, parent);
    const list = children.get(parent);
    if (list) list.push(child);
    else children.set(parent, [child]);
  }
  const roots = [...ids].filter((id) => !parentOf.has(id));
  if (roots.length !== 1) {
    throw new InvalidArgumentError(`The conversation must have exactly one root node (a node that is no edge's child); found ${roots.length}.`);
  }
  // A file that lists its nodes by dot path keeps that sibling order, whatever the edge order.
  for (const list of children.values()) list.sort((a, b) => siblingKey(a) - siblingKey(b));
  return { root: roots[0], children };
}

/** The last index of a dot-path id, to order siblings as the file numbered them (others keep their order). */
function siblingKey(id: string): number {
  const m = /^(?:\d+\.)*(\d+)$/.exec(id);
  return m ? Number(m[1]) : 0;
}

function dotPathLinks(ids: string[]): Array<[string, string]> {
  const links: Array<[string, string]> = [];
  for (const id of ids) {
    if (id === '' || !/^\d+(\.\d+)*$/.test(id)) continue;
    const dot = id.lastIndexOf('.');
    links.push([dot < 0 ? '' : id.slice(0, dot), id]);
  }
  return links;
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
  const { root, children } = fileTree(data.nodes, edges);
  const byFileId = new Map<string, any>(data.nodes.map((n: any) => [n.node_id, n]));
  const now = new Date().toISOString();
  // New ids breadth first from the root; a sibling's position is its index in the file.
  const mapping = new Map<string, string>();
  const nodes: ConversationNode[] = [];
  const queue: Array<{ fileId: string; parentId: string | null; position: number }> = [{ fileId: root, parentId: null, position: 0 }];
  if (byFileId.get(root)?.message?.role !== 'system') {
    // dataknobs makes the first message the root; Arbor's root is always a system node, empty here.
    nodes.push({ nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: now, metadata: {} });
    queue[0].parentId = ROOT_NODE_ID;
  }
  for (let head = 0; head < queue.length; head++) {
    const { fileId, parentId, position } = queue[head];
    const n = byFileId.get(fileId);
    const nodeId = formatNodeId(nodes.length);
    mapping.set(fileId, nodeId);
    const node: ConversationNode = {
      nodeId,
      parentId,
      position,
      message: importMessage(n.message, fileId),
      timestamp: n.timestamp === undefined ? now : fromLocalIso(n.timestamp, `The timestamp of node "${fileId}"`),
      metadata: fromDataknobsMetadata(n.metadata),
    };
    if (typeof n.prompt_name === 'string') node.promptName = n.prompt_name;
    if (typeof n.branch_name === 'string') node.branchName = n.branch_name;
    nodes.push(node);
    (children.get(fileId) ?? []).forEach((child, i) => queue.push({ fileId: child, parentId: nodeId, position: i }));
  }
  return {
    conversationId: data.conversation_id,
    nodes,
    currentNodeId: mapping.get(data.current_node_id ?? root) ?? ROOT_NODE_ID,
    metadata: data.metadata && typeof data.metadata === 'object' ? { ...data.metadata } : {},
    nextNodeSeq: nodes.length,
    createdAt: data.created_at === undefined ? now : fromLocalIso(data.created_at, 'created_at'),
    updatedAt: data.updated_at === undefined ? now : fromLocalIso(data.updated_at, 'updated_at'),
  };
}
