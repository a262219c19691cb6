/**
 * Tool results as nodes of the tree, and the rule that keeps a path valid for the next request: every
 * call an answer made has a result before anything else follows. Pure: the texts a model reads for each
 * way a call can end, the node a result becomes, the repair of a path left with unanswered calls (after a
 * kill or a reload), and the same guarantee applied to the messages of a request.
 */
import type { ToolResultInfo, ToolResultStatus } from '../metadataKeys';
import type { NewNode } from '../storage/storage';
import type { ConversationNode, LLMMessage, ToolCall } from '../types';

/** What the model reads for a call that did not run to its own result. */
export const TOOL_RESULT_TEXTS = {
  denied: (reason?: string) =>
    `The user denied this call${reason?.trim() ? `: ${reason.trim()}` : '.'} Do not make it again unless the user asks for it; find another way or ask the user.`,
  edited: (input: Record<string, unknown>) => `The user changed the arguments before approving; the call ran with ${JSON.stringify(input)}.`,
  stoppedBeforeRun: 'Not run: the user stopped the answer before this call ran.',
  stoppedWhileRunning: 'Stopped by the user while it ran; it may have partly taken effect. Check before making it again.',
  answerBroke: 'Not run: the answer that made this call broke off before it was complete.',
  stepLimit: (maxSteps: number) =>
    `Not run: Arbor stops a run after ${maxSteps} model steps. Tell the user what is done and what is left; they can ask you to go on.`,
  interrupted:
    'No result: this call was interrupted before it returned (Arbor was closed or stopped while it ran). It may or may not have taken effect; check before making it again.',
  failed: (toolName: string, message: string) =>
    `${toolName} failed: ${message}\nFix the arguments or try another way; if it keeps failing, tell the user what went wrong.`,
  unknownTool: (toolName: string, available: readonly string[]) =>
    `There is no tool named "${toolName}". ${available.length ? `The tools you can call: ${available.join(', ')}.` : 'No tools are available now; answer without them.'}`,
} as const;

/** One call's result, before it is a node. */
export interface ToolResultRecord {
  call: ToolCall;
  status: ToolResultStatus;
  /** What the model reads. */
  content: string;
  /** The run's step (1: the first answer of the run). */
  step?: number;
  /** ISO time the tool started running; absent when it never ran. */
  startedAt?: string;
  /** ISO time the result was known. */
  endedAt: string;
  /** Files the tool changed (compactions list them). */
  modifiedFiles?: string[];
  /** The tool's own metadata for the UI (never sent). */
  metadata?: Record<string, unknown>;
}

/** The `tool` node a result becomes under `parentId`: the message answers the call by id and names the tool. */
export function toolResultNode(parentId: string, record: ToolResultRecord): NewNode {
  const info: ToolResultInfo = { status: record.status, endedAt: record.endedAt };
  if (record.step !== undefined) info.step = record.step;
  if (record.startedAt !== undefined) info.startedAt = record.startedAt;
  const metadata: Record<string, unknown> = { ...(record.metadata ?? {}), toolResult: info };
  if (record.modifiedFiles?.length) metadata.modifiedFiles = [...record.modifiedFiles];
  return {
    parentId,
    message: { role: 'tool', content: record.content, toolCallId: record.call.id, name: record.call.function.name },
    timestamp: record.endedAt,
    metadata,
  };
}

function isResult(message: LLMMessage): boolean {
  return message.role === 'tool' || (message.role === 'function' && message.toolCallId !== undefined);
}

/**
 * The calls of the path's last answer that are still without a result, when nothing but tool results
 * follows that answer (the shape a run leaves when it is killed or stopped mid-step); `undefined` when
 * every call is answered or the path does not end in a tool step.
 */
export function unansweredToolCalls(path: readonly ConversationNode[]): { answer: ConversationNode; calls: ToolCall[] } | undefined {
  const answered = new Set<string>();
  let i = path.length - 1;
  for (; i >= 0 && isResult(path[i].message); i--) {
    const id = path[i].message.toolCallId;
    if (id !== undefined) answered.add(id);
  }
  const answer = i >= 0 ? path[i] : undefined;
  if (!answer || answer.message.role !== 'assistant' || !answer.message.toolCalls?.length) return undefined;
  const calls = answer.message.toolCalls.filter((c) => !answered.has(c.id));
  return calls.length ? { answer, calls } : undefined;
}

/**
 * The repair of a path a run left unfinished: an "interrupted" result for each unanswered call of its
 * last answer, in call order, to be added one under the other below the path's last node. Empty when
 * the path is valid as it is.
 */
export function repairToolPath(path: readonly ConversationNode[], now: Date = new Date()): ToolResultRecord[] {
  const open = unansweredToolCalls(path);
  if (!open) return [];
  const endedAt = now.toISOString();
  return open.calls.map((call) => ({ call, status: 'interrupted' as const, content: TOOL_RESULT_TEXTS.interrupted, endedAt }));
}

/**
 * The messages of a request with a result for every call: wherever an answer's calls are not all
 * answered by the tool messages right after it (a path written by an older version, or cut by a crash
 * where the repair could not reach), an "interrupted" result is put in, so no provider rejects the
 * request for an orphan call. The same array when nothing is missing.
 */
export function withToolResults(messages: readonly LLMMessage[]): LLMMessage[] {
  let out: LLMMessage[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const calls = messages[i].role === 'assistant' ? messages[i].toolCalls : undefined;
    if (!calls?.length) {
      out?.push(messages[i]);
      continue;
    }
    let end = i + 1;
    const answered = new Set<string>();
    while (end < messages.length && isResult(messages[end])) answered.add(messages[end++].toolCallId ?? '');
    const missing = calls.filter((c) => !answered.has(c.id));
    if (missing.length && !out) out = messages.slice(0, i);
    if (out) {
      out.push(...messages.slice(i, end));
      for (const c of missing) out.push({ role: 'tool', content: TOOL_RESULT_TEXTS.interrupted, toolCallId: c.id, name: c.function.name });
    }
    i = end - 1;
  }
  return out ?? (messages as LLMMessage[]);
}
