/**
 * Compare on an answer of an Ask Several Models run: two answers side by side in VS Code's diff editor,
 * served as read-only documents of the proposed-content scheme (as Apply's diffs are).
 */
import * as vscode from 'vscode';
import type { ConversationManager } from '../../../core/index';
import { PROPOSED_SCHEME } from '../../base/constants';
import type { ChatServices } from '../chatServices';
import { answerDocument, answerLabel } from './severalView';

/** Opens the answers `leftNodeId` and `rightNodeId` (each with its model on its first line) in a diff editor. */
export async function compareAnswers(services: ChatServices, manager: ConversationManager, leftNodeId: string, rightNodeId: string): Promise<void> {
  const left = manager.getNode(leftNodeId);
  const right = manager.getNode(rightNodeId);
  if (left.message.role !== 'assistant' || right.message.role !== 'assistant') throw new Error('Compare takes two answers: pick assistant messages.');
  if (left.nodeId === right.nodeId) throw new Error('Pick two different answers to compare.');
  const uri = (node: typeof left) =>
    vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/answer-${node.nodeId}.md`, query: `compare=${manager.conversationId}-${node.nodeId}` });
  const leftUri = uri(left);
  const rightUri = uri(right);
  services.codeApply.setContent(leftUri, answerDocument(left));
  services.codeApply.setContent(rightUri, answerDocument(right));
  await vscode.commands.executeCommand('vscode.diff', leftUri, rightUri, `${answerLabel(left)} ↔ ${answerLabel(right)}`, { preview: true });
}
