/**
 * The cards of an answer's tool calls: each call with the result that follows it on the path (its
 * status, duration and output) or, while a run is going, its live status (waiting for approval,
 * running). Pure, so the chat state is tested without VS Code.
 */
import { readNodeMetadata, type ConversationNode } from '../../core/index';
import type { ToolCallState, ToolCallView, ToolChangePreview } from '../../shared/protocol';
import type { ToolSource } from './offeredTool';

/** Most characters of a result the card holds (the model read all of it, up to the tool's own cap). */
export const CARD_OUTPUT_CHARS = 20_000;

/** A call of the run going now, as its events left it. */
export interface LiveToolCall {
  state: 'pendingApproval' | 'running';
  startedAt?: string;
  /** Waiting for the user: why it asks, whether only Allow once is offered (`once`), and the change a file tool would make. */
  approval?: { reason: string; once?: boolean; covers?: string; preview?: ToolChangePreview };
}

/** What the chat knows besides the path: the tools it offers and the calls of a run going now. */
export interface ToolCallLookup {
  describe(toolName: string): { displayName: string; source: ToolSource } | undefined;
  live(callId: string): LiveToolCall | undefined;
}

/** The arguments as the card shows them: pretty JSON, or the text as the model wrote it. */
export function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * The cards of `answer`'s calls; `following` are the path's nodes after it (its results come first).
 * A call with neither a result nor a live run shows as interrupted: the next request closes it.
 */
export function toolCallViews(answer: ConversationNode, following: readonly ConversationNode[], lookup: ToolCallLookup): ToolCallView[] | undefined {
  const calls = answer.message.toolCalls;
  if (!calls?.length) return undefined;
  const results = new Map<string, ConversationNode>();
  for (const node of following) {
    if (node.message.role !== 'tool') break;
    if (node.message.toolCallId) results.set(node.message.toolCallId, node);
  }
  return calls.map((call) => {
    const described = lookup.describe(call.function.name);
    const base = {
      callId: call.id,
      toolName: call.function.name,
      displayName: described?.displayName ?? call.function.name,
      ...(described ? { source: described.source } : {}),
      arguments: prettyArguments(call.function.arguments),
    };
    const result = results.get(call.id);
    if (result) {
      const info = readNodeMetadata(result.metadata, 'toolResult');
      const edited = result.metadata.editedInput;
      const output = result.message.content;
      const durationMs = info?.startedAt ? Date.parse(info.endedAt) - Date.parse(info.startedAt) : undefined;
      return {
        ...base,
        state: (info?.status ?? 'done') as ToolCallState,
        ...(edited && typeof edited === 'object' ? { editedArguments: JSON.stringify(edited, null, 2) } : {}),
        ...(durationMs !== undefined && Number.isFinite(durationMs) ? { durationMs: Math.max(0, durationMs) } : {}),
        output: output.length > CARD_OUTPUT_CHARS ? output.slice(0, CARD_OUTPUT_CHARS) : output,
        ...(output.length > CARD_OUTPUT_CHARS ? { outputCut: true } : {}),
      };
    }
    const live = lookup.live(call.id);
    if (live) return { ...base, state: live.state, ...(live.approval ? { approval: { ...live.approval } } : {}) };
    return { ...base, state: 'interrupted' as const };
  });
}
