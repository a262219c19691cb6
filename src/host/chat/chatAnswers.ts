/**
 * The model answers of one chat: streams the answer to the current node into the webview (after an
 * automatic compaction when the context is full, and once more after a compaction when the model
 * refuses the length), keeps what arrived when stopped or cut, and records failures on the question.
 */
import { isContextLengthError, type ConversationManager, type ConversationNode } from '../../core/index';
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
    // What the counter makes of this request, to learn from the server's own count once it answers.
    let sentEstimate: number | undefined;
    // A `/` prompt with `output:` (or a later attempt of its answer) is answered with its schema, read before a compaction moves the answer.
    let structured: StructuredRequest | undefined;
    try {
      structured = structuredRequestFor((id) => manager.getNode(id), stream.parentNodeId);
      await checkReadyToSend(this.deps.services, chosen);
      const chatPlan = await this.deps.options.plan(manager, chosen);
      const plan = overrides?.system ? { ...chatPlan, systemPromptOverride: overrides.system } : chatPlan;
      // Room for the request first, counted with the system prompt just rendered for it and the tools
      // it offers; a summary moves the answer below it.
      const compacted = await this.deps.context.compactIfFull(manager, chosen, plan.systemPromptOverride, this.deps.tools.definitions(manager), plan.instructions);
      if (compacted) {
        this.deps.notify(compacted);
        stream.parentNodeId = manager.currentNodeId;
        this.deps.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model: chosen });
      }
      sentEstimate = await this.deps.context.estimateRequest(manager, chosen, plan.systemPromptOverride, plan.instructions);
      await this.deps.services.whileBusy(this.deps.conversationId, async () => {
        // A structured answer is a plain JSON answer: no tools are offered with it.
        const tools = structured ? undefined : await this.deps.tools.prepare(manager, overrides?.tools);
        try {
          await this.stream(manager, stream, plan, tools, structured);
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
      if (!error && manager.currentNodeId !== stream.parentNodeId) await this.deps.context.calibrate(chosen, sentEstimate, manager.getNode(manager.currentNodeId)).catch(() => undefined);
      this.deps.reply(request, { type: 'streamDone', error });
      // The list shows the cost from the metadata; it is written only when it changed.
      const update = totalCostUpdate(manager.getMetadata() as Record<string, unknown>, manager.getTotalCost());
      if (update) await manager.setMetadata(update).catch(() => undefined);
      await this.deps.postState();
    }
  }

  /**
   * Streams the answer (with tools when the chat offers them); when the model refuses the request as
   * too long, compacts without a model call (never dropping silently) and asks once more.
   */
  private async stream(manager: ConversationManager, stream: ActiveStream, plan: RequestPlan, tools: PreparedToolRun | undefined, structured?: StructuredRequest): Promise<void> {
    const { request } = stream;
    for (let attempt = 0; ; attempt++) {
      try {
        if (tools) return await this.runTools(manager, stream, plan, tools);
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
        // The model refused the request as too long: compact without a model call (never drop silently), then ask once more.
        if (attempt > 0 || !isContextLengthError(err) || stream.text || stream.stopRequested) throw err;
        this.deps.notify(await this.deps.context.compactAfterOverflow(manager, stream.model));
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
  private async runTools(manager: ConversationManager, stream: ActiveStream, plan: RequestPlan, tools: PreparedToolRun): Promise<void> {
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
