/**
 * Where a chat's next message goes: a pending Branch from Here (the banner, and Cancel back to where
 * the reader was) and the unanswered question at the end of the path, with the failure that left it
 * so. Two user messages never follow each other: the controller sends a message on a user message as
 * its sibling, and this is what the chat shows about it.
 */
import type { ConversationManager, ConversationNode } from '../../core/index';
import type { BranchPoint, ErrorView } from '../../shared/protocol';
import { messageDisplayText } from '../conversations/conversationRules';
import { firstLine } from '../base/labels';

/** The banner of a pending Branch from Here at `node`. */
export function branchPointView(node: ConversationNode): BranchPoint {
  const replaces = node.message.role === 'user';
  const text = messageDisplayText(node);
  return { nodeId: node.nodeId, preview: firstLine(text, 60), replaces, ...(replaces ? { text } : {}) };
}

/** The branch point and the unanswered question of one chat. */
export class ChatBranching {
  /** Branch from Here is pending at `nodeId`; Cancel returns to `returnTo`. */
  private point?: { nodeId: string; returnTo: string };
  /** Why the last request failed before any answer, by the user message it was for (this window only). */
  private readonly failures = new Map<string, ErrorView>();

  /**
   * Branch from Here: shows the path up to `nodeId` and makes the next message start a new branch
   * there. After an answer (or any message but a user's) the next message is a new follow-up beside
   * the others; on a user message it is a new version of that message (its sibling). A banner says so
   * until the message is sent or Cancel is pressed.
   */
  async start(manager: ConversationManager, nodeId: string): Promise<void> {
    const returnTo = this.point?.returnTo ?? manager.currentNodeId;
    const node = manager.getNode(nodeId);
    await manager.switchToNode(node.nodeId);
    this.point = { nodeId: node.nodeId, returnTo };
  }

  /** Cancel on the banner: back to where the reader was before Branch from Here. */
  async cancel(manager: ConversationManager): Promise<void> {
    const point = this.point;
    this.point = undefined;
    if (point && manager.hasNode(point.returnTo)) await manager.switchToNode(point.returnTo);
  }

  /** The reader went elsewhere or sent the message: the banner goes. */
  clear(): void {
    this.point = undefined;
  }

  /** The banner while the reader stays at the branch point (another window may move on). */
  view(manager: ConversationManager): BranchPoint | undefined {
    if (this.point && this.point.nodeId !== manager.currentNodeId) this.point = undefined;
    return this.point && branchPointView(manager.getNode(this.point.nodeId));
  }

  /** A request for the question `nodeId` failed before any answer arrived. */
  failed(nodeId: string, error: ErrorView): void {
    this.failures.set(nodeId, error);
  }

  /** A request for the question `nodeId` started again. */
  retrying(nodeId: string): void {
    this.failures.delete(nodeId);
  }

  /** The user message at the end of the path when it has no answer (`pending`: one is on its way). */
  unansweredAt(manager: ConversationManager, pending: boolean): { nodeId: string; error?: ErrorView } | undefined {
    if (pending) return undefined;
    const node = manager.getNode(manager.currentNodeId);
    if (node.message.role !== 'user' || manager.getChildren(node.nodeId).length > 0) return undefined;
    const error = this.failures.get(node.nodeId);
    return error ? { nodeId: node.nodeId, error } : { nodeId: node.nodeId };
  }
}
