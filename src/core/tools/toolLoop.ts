/**
 * The tool loop: the model answers, the calls it made are approved and run, their results go into the
 * tree, and the model answers again, until it answers without calls, the step limit is reached or the
 * user stops. Every answer and every result is committed as it happens, always in call order, so the
 * path is valid for a request at every moment a process could die (and `repairToolPath` closes what a
 * kill left open). Read-only calls of one step run side by side; a call that may change something waits
 * for the ones before it and runs alone.
 */
import { InvalidArgumentError } from '../errors';
import type { NewNode } from '../storage/storage';
import type { ConversationNode, LLMResponse, LLMStreamChunk, ToolCall, ToolDefinition } from '../types';
import type { Tool } from './tool';
import type { PreparedToolCall, ToolExecutor } from './toolExecutor';
import { TOOL_RESULT_TEXTS, toolResultNode, type ToolResultRecord } from './toolResults';

/** Steps (model answers) one run may take by default. */
export const DEFAULT_MAX_TOOL_STEPS = 25;

/**
 * The user's answer to a call: run it, run it with arguments the user edited (checked against the
 * tool's schema again; the model is told of the change), or refuse it with a reason the model reads.
 */
export type ApprovalDecision = 'allow' | { allow: Record<string, unknown> } | { deny: string };

/** What the host shows the user to approve one call. */
export interface ApprovalRequest {
  call: ToolCall;
  tool: Tool;
  /** The checked input (defaults filled in), as the tool will get it. */
  input: Record<string, unknown>;
  readOnly: boolean;
  step: number;
  /** The answer that made the call. */
  answerNodeId: string;
  /** Aborts when the user stops the run: the host may take its question down. */
  signal: AbortSignal;
}

/** Asks whether a call may run; the host's policy and UI (auto-approve read-only tools, ask for the rest…). */
export type ToolApprover = (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

/** Where a call is: waiting for the user, running, or ended one of four ways. */
export type ToolCallStatus = 'pendingApproval' | 'running' | 'done' | 'failed' | 'denied' | 'cancelled';

/** One change of a call's status, for the UI to follow. */
export interface ToolCallEvent {
  step: number;
  /** The answer node that made the call. */
  answerNodeId: string;
  callId: string;
  toolName: string;
  status: ToolCallStatus;
  /** ISO time of this event. */
  at: string;
  /** ISO time the tool started running (from `running` on; absent for a call that never ran). */
  startedAt?: string;
  /** ISO time it ended (on `done`, `failed`, `denied`, `cancelled`). */
  endedAt?: string;
  /** The checked input, once known to be valid. */
  input?: Record<string, unknown>;
  /** `failed`: what the model was told; `denied`: the reason; `cancelled`: why it did not run or finish. */
  message?: string;
}

/** How a run goes: the tools and their approval, its limit, the stop signal, and what to tell the UI. */
export interface ToolLoopOptions {
  executor: ToolExecutor;
  approve: ToolApprover;
  /** Most model answers in the run (default 25); the calls of the last one are not run. */
  maxSteps?: number;
  /** Stop: ends the model's answer, takes down pending approvals, tells running tools, and ends the run. */
  signal?: AbortSignal;
  /** Every status change of every call. */
  onEvent?: (event: ToolCallEvent) => void;
  /** The model's streamed pieces, with the step they belong to. */
  onChunk?: (chunk: LLMStreamChunk, step: number) => void;
  /** Stream the model's answers (default true): a stopped answer keeps its text. */
  stream?: boolean;
  /**
   * A tool result node was stored (awaited before the next call is stored, so what it records, such as
   * a file checkpoint, is in the store before the run goes on; a failure of it is the listener's own).
   */
  onResultStored?: (node: ConversationNode) => Promise<void> | void;
  /**
   * The tools step `step` offers, asked before each step (after the previous step's results are
   * stored), e.g. the ones that fit the window for the question as it now stands; `undefined` offers
   * every tool of the executor. Not asked when the model does not take tools. The executor still runs
   * any of its tools the model calls, offered or not.
   */
  toolsForStep?: (step: number) => ToolDefinition[] | undefined | Promise<ToolDefinition[] | undefined>;
}

/** Why a run ended: the model answered without calls, the step limit came, or the user stopped it. */
export type ToolRunStopReason = 'answer' | 'maxSteps' | 'stopped';

/** What a run did. */
export interface ToolRunResult {
  stopReason: ToolRunStopReason;
  /** Model answers made. */
  steps: number;
  /** The last answer the model finished (with `cumulativeCostUsd`); absent when none was (a stop or failure in the first). */
  response?: LLMResponse;
  /** Every node the run added, in order: answers and tool results. */
  nodeIds: string[];
  /** Whether the tools were offered (false when the model does not take tools, or there are none). */
  toolsOffered: boolean;
}

/** One model answer, as the loop asks the conversation for it. */
export interface ToolAnswerRequest {
  step: number;
  tools?: ToolDefinition[];
  stream: boolean;
  signal?: AbortSignal;
  onChunk?: (chunk: LLMStreamChunk) => void;
  /** Called with the answer's node as soon as it is stored, also when a failed or stopped stream keeps a partial answer. */
  onCommitted: (node: ConversationNode) => void;
}

/** What the loop needs of a conversation: implemented by `ConversationManager.runWithTools`. */
export interface ToolLoopHost {
  /** The node the run answers. */
  readonly startNodeId: string;
  /** Whether the model takes tools (Ollama's capabilities, the OpenAI-compatible setting). */
  supportsTools(): Promise<boolean>;
  /** Asks the model to answer the path ending at `parentId` and stores the answer under it. */
  answer(parentId: string, request: ToolAnswerRequest): Promise<{ node: ConversationNode; response: LLMResponse }>;
  /** Stores a node and returns it with its id. */
  commit(node: NewNode): Promise<ConversationNode>;
}

const now = () => new Date().toISOString();
const ABORTED = Symbol('aborted');

/** Whether an approval carries edited arguments. */
function isEdit(decision: ApprovalDecision): decision is { allow: Record<string, unknown> } {
  return typeof decision === 'object' && decision !== null && 'allow' in decision && typeof decision.allow === 'object' && decision.allow !== null && !Array.isArray(decision.allow);
}

/** Resolves with `promise`, or with `ABORTED` as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof ABORTED> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(ABORTED);
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** `maxSteps` checked: a whole number of 1 or more. */
function stepLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_TOOL_STEPS;
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`maxSteps must be a whole number of 1 or more; got ${String(value)}.`);
  return value;
}

/** Runs the loop on `host`; see the file's header. Rejects only when the model call fails (after closing its calls). */
export async function runToolLoop(host: ToolLoopHost, options: ToolLoopOptions): Promise<ToolRunResult> {
  const maxSteps = stepLimit(options.maxSteps);
  if (typeof options?.executor?.prepare !== 'function') throw new InvalidArgumentError('runWithTools needs an executor (a ToolExecutor holding the tools).');
  if (typeof options.approve !== 'function') throw new InvalidArgumentError('runWithTools needs an approve function: it decides which calls may run.');
  return new ToolRun(host, options, maxSteps).run();
}

class ToolRun {
  private readonly nodeIds: string[] = [];
  private tip: string;
  private response: LLMResponse | undefined;
  private steps = 0;
  private toolsOffered = false;

  constructor(
    private readonly host: ToolLoopHost,
    private readonly options: ToolLoopOptions,
    private readonly maxSteps: number,
  ) {
    this.tip = host.startNodeId;
  }

  async run(): Promise<ToolRunResult> {
    const { executor, signal } = this.options;
    this.toolsOffered = executor.tools.length > 0 && (await this.host.supportsTools());
    const all = this.toolsOffered ? executor.definitions() : undefined;
    for (let step = 1; ; step++) {
      if (signal?.aborted) return this.result('stopped');
      const tools = all && this.options.toolsForStep ? ((await this.options.toolsForStep(step)) ?? all) : all;
      if (signal?.aborted) return this.result('stopped');
      let answer: ConversationNode | undefined;
      try {
        const answered = await this.host.answer(this.tip, {
          step,
          tools,
          stream: this.options.stream ?? true,
          signal,
          onChunk: this.options.onChunk ? (chunk) => this.options.onChunk?.(chunk, step) : undefined,
          onCommitted: (node) => {
            answer = node;
            this.added(node);
          },
        });
        this.response = answered.response;
        answer = answered.node;
      } catch (error) {
        // A stopped or broken stream may still have kept an answer with calls: they get results too.
        if (answer?.message.toolCalls?.length) {
          const text = signal?.aborted ? TOOL_RESULT_TEXTS.stoppedBeforeRun : TOOL_RESULT_TEXTS.answerBroke;
          await this.closeUnrun(step, answer, answer.message.toolCalls, text);
        }
        if (signal?.aborted) return this.result('stopped');
        throw error;
      } finally {
        if (answer) this.steps = step;
      }
      const calls = answer.message.toolCalls ?? [];
      if (calls.length === 0) return this.result('answer');
      if (step >= this.maxSteps) {
        await this.closeUnrun(step, answer, calls, TOOL_RESULT_TEXTS.stepLimit(this.maxSteps));
        return this.result('maxSteps');
      }
      await this.runStep(step, answer, calls);
      if (signal?.aborted) return this.result('stopped');
    }
  }

  /** Runs one step's calls: consecutive read-only calls together, any other call alone, results stored in call order. */
  private async runStep(step: number, answer: ConversationNode, calls: ToolCall[]): Promise<void> {
    const batches: PreparedToolCall[][] = [];
    let parallel = false;
    for (const call of calls) {
      const prepared = await this.options.executor.prepare(call);
      // A call that cannot run (unknown tool, bad input) changes nothing, so it never splits a batch.
      const readOnly = !prepared.ok || prepared.tool.readOnly;
      if (readOnly && parallel) batches[batches.length - 1].push(prepared);
      else batches.push([prepared]);
      parallel = readOnly;
    }
    for (const batch of batches) {
      const settled = batch.map((prepared) => this.settle(step, answer.nodeId, prepared));
      for (const record of settled) await this.store(await record);
    }
  }

  /** Takes one call through approval and its run to a result; never rejects. */
  private async settle(step: number, answerNodeId: string, prepared: PreparedToolCall): Promise<ToolResultRecord> {
    const { call } = prepared;
    const { signal, executor } = this.options;
    const base = { step, answerNodeId, callId: call.id, toolName: call.function.name };
    const end = (status: ToolResultRecord['status'] & ToolCallStatus, content: string, extra: Partial<ToolResultRecord> = {}, message?: string): ToolResultRecord => {
      const endedAt = now();
      this.emit({ ...base, status, at: endedAt, endedAt, ...(extra.startedAt ? { startedAt: extra.startedAt } : {}), ...(prepared.ok ? { input: prepared.input } : {}), ...(message !== undefined ? { message } : {}) });
      return { call, status, content, step, endedAt, ...extra };
    };
    if (!prepared.ok) return end('failed', prepared.error, {}, prepared.error);
    if (signal?.aborted) return end('cancelled', TOOL_RESULT_TEXTS.stoppedBeforeRun, {}, 'stopped before it ran');
    this.emit({ ...base, status: 'pendingApproval', at: now(), input: prepared.input });
    let decision: ApprovalDecision | typeof ABORTED;
    try {
      const request: ApprovalRequest = { call, tool: prepared.tool, input: prepared.input, readOnly: prepared.tool.readOnly, step, answerNodeId, signal: signal ?? new AbortController().signal };
      decision = await unlessAborted(Promise.resolve(this.options.approve(request)), signal);
    } catch (error) {
      const text = TOOL_RESULT_TEXTS.failed(call.function.name, `Arbor could not ask the user to approve it (${error instanceof Error ? error.message : String(error)})`);
      return end('failed', text, {}, text);
    }
    if (decision === ABORTED) return end('cancelled', TOOL_RESULT_TEXTS.stoppedBeforeRun, {}, 'stopped while waiting for approval');
    let running = prepared;
    let edited: Record<string, unknown> | undefined;
    if (isEdit(decision)) {
      // The user changed the arguments: the same checks as the model's own, then the tool runs with them.
      const again = await executor.prepare({ ...call, function: { name: call.function.name, arguments: JSON.stringify(decision.allow) } });
      if (!again.ok) return end('failed', again.error, {}, again.error);
      running = again;
      edited = again.input;
    } else if (decision !== 'allow') {
      const reason = typeof decision === 'object' && decision !== null && 'deny' in decision && typeof decision.deny === 'string' ? decision.deny : '';
      return end('denied', TOOL_RESULT_TEXTS.denied(reason), {}, reason);
    }
    const startedAt = now();
    this.emit({ ...base, status: 'running', at: startedAt, startedAt, input: running.input });
    const outcome = await executor.run(running, signal);
    const extra: Partial<ToolResultRecord> = { startedAt };
    if (outcome.modifiedFiles) extra.modifiedFiles = outcome.modifiedFiles;
    const metadata = edited ? { ...(outcome.metadata ?? {}), editedInput: edited } : outcome.metadata;
    if (metadata) extra.metadata = metadata;
    const content = edited ? `${TOOL_RESULT_TEXTS.edited(edited)}\n${outcome.content}` : outcome.content;
    return end(outcome.status, content, extra, outcome.status === 'done' ? undefined : outcome.content);
  }

  /** Gives every call of `calls` a result that says why it was not run (stop, broken answer, step limit). */
  private async closeUnrun(step: number, answer: ConversationNode, calls: ToolCall[], text: string): Promise<void> {
    this.tip = answer.nodeId;
    for (const call of calls) {
      const endedAt = now();
      this.emit({ step, answerNodeId: answer.nodeId, callId: call.id, toolName: call.function.name, status: 'cancelled', at: endedAt, endedAt, message: text });
      await this.store({ call, status: 'cancelled', content: text, step, endedAt });
    }
  }

  private async store(record: ToolResultRecord): Promise<void> {
    const node = await this.host.commit(toolResultNode(this.tip, record));
    this.added(node);
    try {
      await this.options.onResultStored?.(node);
    } catch {
      // As for `onEvent`: a broken listener must not break the run.
    }
  }

  private added(node: ConversationNode): void {
    this.nodeIds.push(node.nodeId);
    this.tip = node.nodeId;
  }

  private emit(event: ToolCallEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A broken listener must not break the run (its calls still need results).
    }
  }

  private result(stopReason: ToolRunStopReason): ToolRunResult {
    const result: ToolRunResult = { stopReason, steps: this.steps, nodeIds: [...this.nodeIds], toolsOffered: this.toolsOffered };
    if (this.response) result.response = this.response;
    return result;
  }
}
