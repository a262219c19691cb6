/**
 * Ask Several Models in one chat: 2–4 models answer the same question at once, each answer streaming
 * into its own column and stored as a sibling under the question (with its model and the run's id);
 * Stop stops them all, a model that fails shows its error in its column while the others go on. Merge
 * asks one model to fuse a run's answers into a new sibling that records what it merged.
 */
import { randomUUID } from 'node:crypto';
import { buildMergeRequest, readNodeMetadata, type CompleteOptions, type ConversationManager } from '../../../core/index';
import { severalModelsProblem, type ErrorView, type MergeAnswersMessage, type ToWebview } from '../../../shared/protocol';
import type { RequestPlan } from '../chatOptions';
import { isUserAbort, toErrorView } from '../errorView';
import { shownAnswer } from './severalView';

/** After Stop, how long to wait for the next chunk before cutting the connections. */
const STOP_GRACE_MS = 1000;

/** What a run needs of its chat. */
export interface SeveralAnswersDeps {
  manager(): Promise<ConversationManager>;
  /** The options one model's answer is asked with (system prompt, request options). */
  plan(manager: ConversationManager, model: string): Promise<RequestPlan>;
  /** Throws, with the fix in the message, when no request can be sent now (no API key…). */
  checkReady(): Promise<void>;
  /** Runs `work` with the conversation marked busy. */
  whileBusy(work: () => Promise<void>): Promise<void>;
  post(message: ToWebview): void;
  /** The question was left without any answer: its error and Retry stay on it. */
  failed(questionId: string, error: ErrorView): void;
  /** A request for the question started again. */
  retrying(questionId: string): void;
  warn(message: string): void;
  /** After a run or a merge ended: totals, then a fresh state. */
  ended(manager: ConversationManager): Promise<void>;
}

/** One model's answer of a run. */
interface Column {
  model: string;
  text: string;
  thinking: string;
  error?: ErrorView;
  /** The answer it stored (also a stopped or failed one with text). */
  nodeId?: string;
}

/** A run (or a merge, one column) streaming now. */
interface Run {
  requestId: string;
  kind: 'several' | 'merge';
  runId: string;
  parentNodeId: string;
  abort: AbortController;
  stopRequested: boolean;
  columns: Column[];
}

/** Runs a chat's several-models answers and merges, one run at a time. */
export class SeveralAnswers {
  private run?: Run;

  constructor(private readonly deps: SeveralAnswersDeps) {}

  /** Whether a run or a merge is streaming. */
  get running(): boolean {
    return this.run !== undefined;
  }

  /**
   * Streams each model's answer to `questionId` at once. The run ends when every column has; then the
   * chat shows the answer of the model picked last (else the first stored), with the others as its
   * siblings. `streamDone` carries an error only when no model answered.
   */
  async ask(requestId: string, questionId: string, models: readonly string[]): Promise<void> {
    const problem = severalModelsProblem(models);
    if (problem) throw new Error(problem);
    const manager = await this.deps.manager();
    const run: Run = { requestId, kind: 'several', runId: randomUUID(), parentNodeId: questionId, abort: new AbortController(), stopRequested: false, columns: models.map((model) => ({ model, text: '', thinking: '' })) };
    this.run = run;
    this.deps.retrying(questionId);
    this.deps.post({ type: 'severalStart', requestId, parentNodeId: questionId, models: [...models] });
    let runError: ErrorView | undefined;
    try {
      await this.deps.checkReady();
      // Plans one after another (a plan may pin the chat's system prompt), then every stream at once.
      const plans: RequestPlan[] = [];
      for (const model of models) plans.push(await this.deps.plan(manager, model));
      await this.deps.whileBusy(async () => {
        await Promise.all(run.columns.map((column, i) => this.stream(manager, run, column, { ...plans[i], metadata: { ...plans[i].metadata, severalRun: run.runId } }, i)));
      });
    } catch (err) {
      // Nothing was asked (no key, a missing system prompt): every column says why.
      if (!run.stopRequested && !isUserAbort(err, run.abort.signal)) {
        runError = toErrorView(err);
        run.columns.forEach((column, i) => {
          column.error ??= runError;
          this.deps.post({ type: 'severalColumnDone', requestId, column: i, error: runError });
        });
      }
    } finally {
      this.run = undefined;
      const shown = await this.finish(manager, run).catch((err: unknown) => {
        this.deps.warn(`Could not show the answers of the several-models run: ${String(err)}`);
        return undefined;
      });
      if (!shown) runError ??= run.columns.find((c) => c.error)?.error;
      if (!shown && runError) this.deps.failed(questionId, runError);
      this.deps.post({ type: 'streamDone', requestId, ...(shown || !runError ? {} : { error: runError }) });
      await this.deps.ended(manager);
    }
  }

  /**
   * Merge: `model` fuses the answers `nodeIds` (siblings under one question) into a new sibling answer
   * that records them in `mergedFrom`; it streams like any answer and the chat moves to it.
   */
  async merge(request: MergeAnswersMessage): Promise<void> {
    const manager = await this.deps.manager();
    const answers = request.nodeIds.map((id) => manager.getNode(id));
    const question = manager.getNode(answers[0]?.parentId ?? '');
    const { messages, mergedFrom } = buildMergeRequest(question, answers);
    const runId = answers.map((a) => readNodeMetadata(a.metadata, 'severalRun')).find((id) => id !== undefined) ?? randomUUID();
    const column: Column = { model: request.model, text: '', thinking: '' };
    const run: Run = { requestId: request.requestId, kind: 'merge', runId, parentNodeId: question.nodeId, abort: new AbortController(), stopRequested: false, columns: [column] };
    this.run = run;
    this.deps.post({ type: 'streamStart', requestId: run.requestId, parentNodeId: question.nodeId, model: request.model });
    let error: ErrorView | undefined;
    try {
      await this.deps.checkReady();
      const plan = await this.deps.plan(manager, request.model);
      // Only the model's own settings: the merge request carries no system prompt of the chat.
      await this.deps.whileBusy(() => this.stream(manager, run, column, { configOverrides: plan.configOverrides, requestMessages: messages, metadata: { severalRun: runId, mergedFrom } }, 0));
      error = column.error;
    } catch (err) {
      if (!run.stopRequested && !isUserAbort(err, run.abort.signal)) error = toErrorView(err);
    } finally {
      this.run = undefined;
      if (column.nodeId) await manager.switchToNode(column.nodeId).catch(() => undefined);
      this.deps.post({ type: 'streamDone', requestId: run.requestId, ...(error ? { error } : {}) });
      await this.deps.ended(manager);
    }
  }

  /** Stop on the run (all its columns) or merge of `requestId` (any, without one); true when there was one. */
  stop(requestId?: string): boolean {
    const run = this.run;
    if (!run || (requestId && run.requestId !== requestId) || run.stopRequested) return !!run && run.stopRequested;
    run.stopRequested = true;
    setTimeout(() => {
      if (this.run === run) run.abort.abort();
    }, STOP_GRACE_MS);
    return true;
  }

  /** Cuts a run at once (the chat closed). */
  abort(): void {
    this.run?.abort.abort();
  }

  /** A page that loaded again mid-run gets the columns so far. */
  replay(): void {
    const run = this.run;
    if (!run) return;
    if (run.kind === 'merge') {
      const [c] = run.columns;
      this.deps.post({ type: 'streamStart', requestId: run.requestId, parentNodeId: run.parentNodeId, model: c.model });
      if (c.text || c.thinking) this.deps.post({ type: 'streamDelta', requestId: run.requestId, delta: c.text, thinkingDelta: c.thinking || undefined });
      return;
    }
    this.deps.post({ type: 'severalStart', requestId: run.requestId, parentNodeId: run.parentNodeId, models: run.columns.map((c) => c.model) });
    run.columns.forEach((c, column) => {
      if (c.text || c.thinking) this.deps.post({ type: 'severalDelta', requestId: run.requestId, column, delta: c.text, thinkingDelta: c.thinking || undefined });
    });
  }

  /** Streams one column's answer under the run's question; a failure stays in the column. */
  private async stream(manager: ConversationManager, run: Run, column: Column, options: CompleteOptions, index: number): Promise<void> {
    const { requestId } = run;
    try {
      for await (const chunk of manager.streamComplete({ ...options, signal: run.abort.signal, parentNodeId: run.parentNodeId, onStored: (node) => (column.nodeId = node.nodeId) })) {
        if (chunk.delta || chunk.thinkingDelta) {
          column.text += chunk.delta;
          if (chunk.thinkingDelta) column.thinking += chunk.thinkingDelta;
          if (run.kind === 'merge') this.deps.post({ type: 'streamDelta', requestId, delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
          else this.deps.post({ type: 'severalDelta', requestId, column: index, delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
        }
        if (run.stopRequested) break;
      }
    } catch (err) {
      if (!run.stopRequested && !isUserAbort(err, run.abort.signal)) {
        column.error = toErrorView(err);
        this.deps.warn(`${column.model} failed to answer: ${column.error.message}`);
      }
    }
    if (run.kind === 'several') this.deps.post({ type: 'severalColumnDone', requestId, column: index, ...(column.error ? { error: column.error } : {}) });
  }

  /** After a run: moves to the answer to show and says which models left no answer; returns that answer's id. */
  private async finish(manager: ConversationManager, run: Run): Promise<string | undefined> {
    const byModel = new Map<string, string>();
    for (const column of run.columns) if (column.nodeId !== undefined) byModel.set(column.model, column.nodeId);
    const lost = run.columns.filter((c) => c.error && !byModel.has(c.model));
    if (lost.length > 0 && byModel.size > 0) {
      this.deps.post({ type: 'notice', level: 'warning', message: lost.map((c) => `${c.model} gave no answer: ${c.error?.message ?? 'it failed'}`).join(' ') });
    }
    const shown = shownAnswer(run.columns.map((c) => c.model), byModel);
    if (shown !== undefined) await manager.switchToNode(shown);
    return shown;
  }
}
