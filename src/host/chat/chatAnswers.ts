/**
 * The model answers of one chat: streams the answer to the current node into the webview (after an
 * automatic compaction when the context is full, and once more after a compaction when the model
 * refuses the length), keeps what arrived when stopped or cut, and records failures on the question.
 */
import { InvalidOperationError, isContextLengthError, RequestTooLargeError, type CompleteOptions, type ConversationManager, type ConversationNode, type ToolDefinition } from '../../core/index';
import type { AnswerMessage, NoticeMessage, RequestMessage, StreamedRequestType, ToWebview } from '../../shared/protocol';
import type { ChatBranching } from './chatBranching';
import type { ChatContext } from './chatContext';
import type { ChatOptions, RequestPlan } from './chatOptions';
import { conversationModel, pinModelUpdate } from '../conversations/conversationModel';
import { totalCostUpdate } from '../conversations/conversationRules';
import { checkReadyToSend } from './errorActions';
import { isNoServer, isUserAbort, toErrorView } from './errorView';
import type { ChatServices } from './chatServices';
import { noServerHint } from '../settings/settings';
import type { PromptRequestOverrides } from '../prompts/foreignPromptSend';
import type { ChatTools, PreparedToolRun } from './chatTools';
import { windowRaiseOffer } from '../llm/windowRaise';
import { isCorrectionTurn, structuredFailureView, structuredRequestFor, type StructuredRequest } from './structuredChat';

/** After Stop, how long to wait for the next chunk before cutting the connection. */
const STOP_GRACE_MS = 1000;

/** An answer's messages without the `requestId`, which `reply` copies from the request. */
export type AnswerFields<M extends RequestMessage> = AnswerMessage<M['type']> extends infer A ? (A extends unknown ? Omit<A, 'requestId'> : never) : never;

/** The answer streaming now. */
export interface ActiveStream {
  /** The request this stream answers. */
  request: RequestMessage<StreamedRequestType>;
  abort: AbortController;
  /** Stop was pressed: the loop ends at the next chunk (so the answer is kept as stopped, not failed). */
  stopRequested: boolean;
  parentNodeId: string;
  model: string;
  text: string;
  thinking: string;
  /** A tool run: Stop ends it at once (its calls get cancelled results), not at the next chunk. */
  tools?: boolean;
}

/** A request sized for the model's window (see `ChatAnswers.size`). */
interface SizedRequest {
  /** The chat's plan with the window guard. */
  plan: RequestPlan & { window?: CompleteOptions['window'] };
  /** The tools the latest step offered. */
  offered(): ToolDefinition[] | undefined;
  /** The tools each step of a tool run offers. */
  toolsForStep(step: number): Promise<ToolDefinition[] | undefined>;
}

/** What answering needs of its chat. */
export interface ChatAnswersDeps {
  services: ChatServices;
  conversationId: string;
  context: ChatContext;
  options: ChatOptions;
  branching: ChatBranching;
  tools: ChatTools;
  reply<M extends RequestMessage>(request: M, answer: AnswerFields<M>): void;
  post(message: ToWebview): void;
  notify(notice: NoticeMessage | undefined): void;
  postState(): Promise<void>;
  /** Another kind of answer streams in this chat (Ask Several Models): requests wait for it too. */
  otherRunning?(): boolean;
}

/** Streams a chat's answers, one at a time. */
export class ChatAnswers {
  /** The answer streaming now, if any. */
  active?: ActiveStream;

  constructor(private readonly deps: ChatAnswersDeps) {}

  /** Refuses a request while another answer streams (the webview says why); true when refused. */
  refuseWhileBusy(request: RequestMessage<StreamedRequestType>): boolean {
    if (!this.active && !this.deps.otherRunning?.()) return false;
    this.deps.reply(request, { type: 'streamDone', error: { message: 'An answer is still streaming: stop it or wait for it first.', kind: 'busy', retryable: true } });
    return true;
  }

  /** A page that loaded again mid-answer gets the answer so far. */
  replay(): void {
    const s = this.active;
    if (!s) return;
    this.deps.reply(s.request, { type: 'streamStart', parentNodeId: s.parentNodeId, model: s.model });
    if (s.text || s.thinking) this.deps.reply(s.request, { type: 'streamDelta', delta: s.text, thinkingDelta: s.thinking || undefined });
  }

  /**
   * Streams the model's answer to the current node into the webview; the node is kept even when stopped.
   * `overrides` (from another tool's prompt file) set the system message and the allowed tools of this request only.
   */
  async answer(request: RequestMessage<StreamedRequestType>, model?: string, overrides?: PromptRequestOverrides): Promise<void> {
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const metadata = manager.getMetadata() as Record<string, unknown>;
    const chosen = model && model.trim() ? model.trim() : conversationModel(metadata, this.deps.services.settings);
    // The first answer pins the default on the chat, so a model picked later in another chat leaves this one be.
    const pin = pinModelUpdate(metadata, this.deps.services.settings);
    if (pin) await manager.setMetadata(pin);
    const stream: ActiveStream = { request, abort: new AbortController(), stopRequested: false, parentNodeId: manager.currentNodeId, model: chosen, text: '', thinking: '' };
    this.active = stream;
    this.deps.branching.retrying(stream.parentNodeId);
    this.deps.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model: chosen });
    let error: ReturnType<typeof toErrorView> | undefined;
    // The request as sized for the window, to learn from the server's own count of it once it answers.
    let sized: SizedRequest | undefined;
    // A `/` prompt with `output:` (or a later attempt of its answer) is answered with its schema, read before a compaction moves the answer.
    let structured: StructuredRequest | undefined;
    try {
      structured = structuredRequestFor((id) => manager.getNode(id), stream.parentNodeId);
      await checkReadyToSend(this.deps.services, chosen);
      const chatPlan = await this.deps.options.plan(manager, chosen);
      const plan = overrides?.system ? { ...chatPlan, systemPromptOverride: overrides.system } : chatPlan;
      await this.deps.services.whileBusy(this.deps.conversationId, async () => {
        // A structured answer is a plain JSON answer: no tools are offered with it.
        const tools = structured ? undefined : await this.deps.tools.prepare(manager, overrides?.tools, { describe: true });
        try {
          sized = await this.size(manager, stream, plan, tools);
          await this.stream(manager, stream, sized, tools, structured);
        } finally {
          await tools?.executor.dispose().catch((err: unknown) => this.deps.services.logger.warn(`Could not close the tools' resources: ${String(err)}`));
        }
      });
    } catch (err) {
      if (!stream.stopRequested && !isUserAbort(err, stream.abort.signal)) {
        error = structuredFailureView(err) ?? toErrorView(err);
        this.deps.services.logger.warn(`Answer failed: ${error.message}`);
        // No answer was kept (nothing had arrived): the error and Retry stay on the question.
        if (manager.currentNodeId === stream.parentNodeId) this.deps.branching.failed(stream.parentNodeId, error);
        if (isNoServer(err)) {
          const hasKey = !!(await this.deps.services.apiKeys.get());
          this.deps.post({ type: 'notice', level: 'error', message: `No model server is reachable. ${noServerHint(this.deps.services.settings, hasKey)}` });
        }
      }
    } finally {
      this.active = undefined;
      if (!error && sized && manager.currentNodeId !== stream.parentNodeId) {
        const { plan, offered } = sized;
        await this.deps.context.calibrate(manager, chosen, manager.getNode(manager.currentNodeId), plan.systemPromptOverride, plan.instructions, offered()).catch(() => undefined);
      }
      this.deps.reply(request, { type: 'streamDone', error });
      // The list shows the cost from the metadata; it is written only when it changed.
      const update = totalCostUpdate(manager.getMetadata() as Record<string, unknown>, manager.getTotalCost());
      if (update) await manager.setMetadata(update).catch(() => undefined);
      await this.deps.postState();
    }
  }

  /**
   * Sizes the request for the model's window: the tools first (their share of the window, the most
   * relevant kept), then the messages (an automatic compaction when they fill it), and the window as a
   * guard the engine holds every request of the answer to, so none is sent larger than the model reads.
   */
  private async size(manager: ConversationManager, stream: ActiveStream, plan: RequestPlan, tools: PreparedToolRun | undefined): Promise<SizedRequest> {
    const { context } = this.deps;
    const { model, request } = stream;
    const measure = async () => {
      const window = await context.requestWindow(manager, model, plan.systemPromptOverride, plan.instructions);
      return { window, fitted: tools && context.fitTools(manager, window, tools) };
    };
    let { window, fitted } = await measure();
    // Compacts only when the messages fill the window: what the tools took is already within their share.
    const compacted = await context.compactIfFull(manager, model, plan.systemPromptOverride, fitted?.offered, plan.instructions);
    if (compacted) {
      this.deps.notify(compacted);
      stream.parentNodeId = manager.currentNodeId;
      this.deps.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model });
      ({ window, fitted } = await measure());
    }
    // A model Ollama runs with less than it was trained for can take all its tools once the window is larger.
    const needed = fitted?.leftOut.length ? window.rest.used + window.reserve + window.counter.countTools(tools?.definitions) : 0;
    const canRaise = needed > 0 && (await windowRaiseOffer(await this.deps.services.provider(), model, needed).catch(() => undefined)) !== undefined;
    this.deps.notify(this.deps.tools.leftOutNotice(fitted, model, window.limit, canRaise));
    let offered = fitted?.offered;
    const guard = window.limit ? { window: { maxPromptTokens: window.limit - window.reserve, counter: window.counter.cache.counter, model } } : {};
    return {
      plan: { ...plan, ...guard },
      offered: () => offered,
      // Each later step of a tool run carries more messages (the results): its tools are fitted again.
      toolsForStep: async (step) => {
        if (step > 1) offered = (await measure()).fitted?.offered;
        return offered;
      },
    };
  }

  /**
   * Streams the answer (with tools when the chat offers them); when the model refuses the request as
   * too long, or it would not fit the window, compacts without a model call (never dropping silently)
   * and asks once more.
   */
  private async stream(manager: ConversationManager, stream: ActiveStream, sized: SizedRequest, tools: PreparedToolRun | undefined, structured?: StructuredRequest): Promise<void> {
    const { request } = stream;
    const { plan } = sized;
    for (let attempt = 0; ; attempt++) {
      try {
        if (tools) return await this.runTools(manager, stream, sized, tools);
        const schema = structured && { outputSchema: structured.outputSchema, retries: structured.retries, onStored: (node: ConversationNode) => this.corrected(stream, node) };
        for await (const chunk of manager.streamComplete({ signal: stream.abort.signal, ...plan, ...schema })) {
          // The chunk is shown even after Stop: the stream has already counted it into the saved answer.
          if (chunk.delta || chunk.thinkingDelta) {
            stream.text += chunk.delta;
            if (chunk.thinkingDelta) stream.thinking += chunk.thinkingDelta;
            this.deps.reply(request, { type: 'streamDelta', delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
          }
          if (stream.stopRequested) break;
        }
        return;
      } catch (err) {
        // The model refused the request as too long, or it would not fit the window: compact without a model
        // call (never drop silently), then ask once more; with nothing to compact, the failure stands.
        const tooLarge = err instanceof RequestTooLargeError;
        if (attempt > 0 || !(isContextLengthError(err) || tooLarge) || (stream.text && !tooLarge) || stream.stopRequested) throw err;
        const compacted = await this.deps.context.compactAfterOverflow(manager, stream.model, tooLarge ? err : undefined).catch((failure: unknown) => {
          if (failure instanceof InvalidOperationError) throw err;
          throw failure;
        });
        this.deps.notify(compacted);
        stream.parentNodeId = manager.currentNodeId;
        this.deps.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model: stream.model });
      }
    }
  }

  /**
   * A structured answer failed its schema and its problems were sent back: the invalid answer and the
   * correction turn show as stored messages, and the next attempt streams below them.
   */
  private corrected(stream: ActiveStream, node: ConversationNode): void {
    if (!isCorrectionTurn(node)) return;
    stream.parentNodeId = node.nodeId;
    stream.text = '';
    stream.thinking = '';
    this.deps.reply(stream.request, { type: 'streamStart', parentNodeId: node.nodeId, model: stream.model });
    void this.deps.postState();
  }

  /**
   * Answers with tools: each step's answer streams into a live bubble after the node it answers, the
   * calls show as cards (waiting for approval, running, done) as the run stores them, until the model
   * answers without calls, the step limit, or Stop.
   */
  private async runTools(manager: ConversationManager, stream: ActiveStream, sized: SizedRequest, tools: PreparedToolRun): Promise<void> {
    const { plan } = sized;
    stream.tools = true;
    const { request, model } = stream;
    let step = 1;
    let shownAnswer: string | undefined;
    const restart = (parentNodeId: string) => {
      stream.text = '';
      stream.thinking = '';
      this.deps.reply(request, { type: 'streamStart', parentNodeId, model });
    };
    try {
      await manager.runWithTools({
        ...plan,
        executor: tools.executor,
        toolsForStep: sized.toolsForStep,
        maxSteps: tools.maxSteps,
        approve: tools.approve,
        signal: stream.abort.signal,
        onResultStored: (node) => tools.recordResult(manager, node),
        onEvent: (event) => {
          // The answer that made the calls is stored: the bubble moves below it while they run.
          if (event.answerNodeId !== shownAnswer) {
            shownAnswer = event.answerNodeId;
            restart(event.answerNodeId);
          }
          tools.onEvent(event);
        },
        onChunk: (chunk, at) => {
          if (at !== step) {
            step = at;
            restart(manager.currentNodeId);
          }
          if (chunk.delta || chunk.thinkingDelta) {
            stream.text += chunk.delta;
            if (chunk.thinkingDelta) stream.thinking += chunk.thinkingDelta;
            this.deps.reply(request, { type: 'streamDelta', delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
          }
        },
      });
    } finally {
      this.deps.tools.clear();
      await tools.recordFiles(manager);
    }
  }

  /**
   * Stops an answer. Leaving the loop ends the stream the way a reader that stops early does, so the
   * partial answer is saved as stopped; a server that sends nothing more is cut by the signal after
   * a moment instead.
   */
  stop(stream: ActiveStream): void {
    if (stream.stopRequested) return;
    stream.stopRequested = true;
    // A tool run stops now: the signal reaches the running tools and takes down the approval cards.
    if (stream.tools) {
      stream.abort.abort();
      return;
    }
    setTimeout(() => {
      if (this.active === stream) stream.abort.abort();
    }, STOP_GRACE_MS);
  }

}
