/**
 * Structured answers in the chat (a `/` prompt whose front matter declares `output:`): which schema a
 * request answering a node must pass, and what the webview shows of each step (the accepted answer's
 * card, an invalid answer's problems, the correction turn's note). Pure: it reads nodes only.
 */
import { nodeMetadata, OutputValidationError, type ConversationNode, type NodeMetadata } from '../../core/index';
import type { ErrorView, StructuredView } from '../../shared/protocol';

/** What a chat request passes to `streamComplete` for a structured answer. */
export interface StructuredRequest {
  outputSchema: Record<string, unknown>;
  retries?: number;
  /** The prompt message that asked for it. */
  questionId: string;
}

/** Most nodes walked up from a correction turn to its question (each retry adds two). */
const MAX_WALK = 64;

/**
 * The structured answer the request answering `nodeId` asks for: the node's own `promptOutput` when it is
 * a prompt message, or, when it is a correction turn (Regenerate or Retry of a later attempt), that of the
 * question its attempts answer. `undefined` for any other node: the chat answers as usual.
 */
export function structuredRequestFor(getNode: (id: string) => ConversationNode, nodeId: string): StructuredRequest | undefined {
  let node = getNode(nodeId);
  for (let walked = 0; walked < MAX_WALK; walked++) {
    const md = nodeMetadata(node.metadata);
    if (node.message.role === 'user' && md.structured?.kind !== 'correction') {
      const output = md.promptOutput;
      return output ? { outputSchema: output.schema, ...(output.retries !== undefined ? { retries: output.retries } : {}), questionId: node.nodeId } : undefined;
    }
    // Only the steps of a structured answer lead back to its question: anything else ends the walk.
    if (!md.structured || node.parentId === null) return undefined;
    node = getNode(node.parentId);
  }
  return undefined;
}

/** Whether a node is a correction turn (the user turn that sent an invalid answer's problems back). */
export function isCorrectionTurn(node: ConversationNode): boolean {
  return nodeMetadata(node.metadata).structured?.kind === 'correction';
}

/** The webview's view of a structured step, from its node's metadata; `undefined` for any other node. */
export function structuredView(md: NodeMetadata): StructuredView | undefined {
  const step = md.structured;
  const output = md.structuredOutput;
  if (!step && !output) return undefined;
  const problems = step?.problems?.length ? { problems: step.problems.map((p) => ({ path: p.path, message: p.message })) } : {};
  return {
    kind: step?.kind ?? 'answer',
    attempt: step?.attempt ?? 1,
    attempts: step?.attempts ?? 1,
    ...problems,
    ...(output && step?.kind !== 'correction' ? { accepted: true, value: output.value } : {}),
  };
}

/**
 * The chat's view of a structured answer that never matched its schema (the last answer is kept, its
 * problems in the message), with Retry: the model may well answer to the schema when asked again.
 * `undefined` for any other failure.
 */
export function structuredFailureView(err: unknown): ErrorView | undefined {
  return err instanceof OutputValidationError ? { message: err.message, kind: 'output', retryable: true } : undefined;
}
