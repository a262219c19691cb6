/**
 * Reading a flow run back from the tree: the `metadata.flow` marker of a node, the last step on a path that
 * completed (it carries the memory after it and the next state), and the first node of a step (it carries
 * the memory the step started from). Resume and Branch from Here start from these.
 */
import type { ConversationReader } from '../conversation/conversationReader';
import { readNodeMetadata } from '../metadataKeys';
import type { ConversationNode } from '../types';
import { FlowError } from './flowErrors';
import { type FlowNodeInfo } from '../metadataKeys';

/** The flow marker of a node, or `undefined` when a flow did not write it. */
export function flowNodeInfo(node: ConversationNode): FlowNodeInfo | undefined {
  return readNodeMetadata(node.metadata, 'flow');
}

/** The newest flow marker on the path root→`nodeId` (default: the current node): which flow ran there, for the host to load. */
export function flowRunAt(conversation: ConversationReader, nodeId: string = conversation.currentNodeId): FlowNodeInfo | undefined {
  const path = conversation.getPathIds(nodeId);
  for (let i = path.length - 1; i >= 0; i--) {
    const info = flowNodeInfo(conversation.getNode(path[i]));
    if (info) return info;
  }
  return undefined;
}

/** The deepest node of run `runId` on `path` that closes a completed step (it has `memory`). */
export function lastCompletedStep(conversation: ConversationReader, path: readonly string[], runId: string): { nodeId: string; info: FlowNodeInfo } | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const info = flowNodeInfo(conversation.getNode(path[i]));
    if (info?.runId === runId && info.memory) return { nodeId: path[i], info };
  }
  return undefined;
}

/** The first node of the step `nodeId` belongs to: up the path while the parent is the same run and step. */
export function stepStartOf(conversation: ConversationReader, nodeId: string, info: FlowNodeInfo): { nodeId: string; info: FlowNodeInfo } {
  const path = conversation.getPathIds(nodeId);
  let i = path.length - 1;
  while (i > 0) {
    const above = flowNodeInfo(conversation.getNode(path[i - 1]));
    if (above?.runId !== info.runId || above.step !== info.step) break;
    i--;
  }
  const start = flowNodeInfo(conversation.getNode(path[i]));
  if (!start) throw new FlowError(`Node "${nodeId}" is not part of a flow run.`);
  return { nodeId: path[i], info: start };
}
