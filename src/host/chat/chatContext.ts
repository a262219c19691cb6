/**
 * A chat's context budget and summaries: the meter's usage (with the draft, the chat's system prompt
 * and the model's counter, whose per-message cache keeps typing cheap), calibration from what the
 * server reported, and the compactions and branch summaries with the notices that tell the reader
 * what happened. The controller owns one per chat and posts what it returns.
 */
import { InvalidOperationError, isVscodeModelId, keptBudget, PathTokenCache, readNodeMetadata, tokenCounterFor, type CompleteOptions, type RequestTooLargeError, type ContextUsage, type ConversationManager, type ConversationNode, type ToolDefinition } from '../../core/index';
import type { Attachment, NoticeMessage, UsageView } from '../../shared/protocol';
import type { ChatOptions } from './chatOptions';
import { answerReserve, attachmentKey, chatUsage, MeterCounter, usageView, withToolTokens } from '../llm/contextBudget';
import type { ToolWindow, ToolWindowRequest } from '../tools/toolWindow';
import type { PreparedToolRun } from './chatTools';
import { conversationModel } from '../conversations/conversationModel';
import type { ChatServices } from './chatServices';
import { composeUserMessage, type ResolvedAttachment } from '../base/workspacePaths';

/** The window a request is held to, and the rest of the request without its tools. */
export interface RequestWindow {
  limit: number | undefined;
  reserve: number;
  counter: MeterCounter;
  rest: ContextUsage;
}

/** Leaving a branch of at least this many messages (two turns) offers to carry a summary of it. */
export const BRANCH_SUMMARY_OFFER_MESSAGES = 4;

/** Context, compactions and branch summaries of one chat. */
export class ChatContext {
  /** The message being written, for the meter (the webview sends it as it changes). */
  private draft: { text: string; attachments: readonly Attachment[] } = { text: '', attachments: [] };
  /** Attached files as read, once each (by path and lines), for the meter. */
  private readonly attached = new Map<string, ResolvedAttachment>();
  /** Counts for the meter, with the chat's per-message cache. */
  private meter?: MeterCounter;

  constructor(
    private readonly services: ChatServices,
    private readonly options: ChatOptions,
    /**
     * The tools the chat's next request carries, fitted into the window (`undefined` with tools off);
     * `draft` is the message being written; `definitions` the run's own when a request asks.
     */
    private readonly toolWindow: (manager: ConversationManager, request: Omit<ToolWindowRequest, 'definitions' | 'keep' | 'query'>, draft: string, run?: Pick<PreparedToolRun, 'definitions' | 'pinned'>) => ToolWindow | undefined = () => undefined,
  ) {}

  /** `arbor.tools.windowPercent` as a share: the most of the window the tool definitions may take. */
  private get toolShare(): number {
    return this.services.settings.toolWindowPercent / 100;
  }

  /** The draft changed. */
  setDraft(text: string, attachments: readonly Attachment[]): void {
    this.draft = { text, attachments };
  }

  /** The model's context length, when the provider says. */
  async limit(model: string): Promise<number | undefined> {
    try {
      return await this.services.contextLengths.get(await this.services.provider(), model);
    } catch {
      return undefined;
    }
  }

  /** How full the next request's context is, the draft and the chat's system prompt included. */
  async usage(manager: ConversationManager): Promise<UsageView> {
    const s = this.services.settings;
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, s);
    const limit = await this.limit(model);
    const resolved: ResolvedAttachment[] = [];
    for (const a of this.draft.attachments) {
      if (a.text !== undefined) {
        resolved.push({ ...a, text: a.text });
        continue;
      }
      const key = attachmentKey(a);
      let read = this.attached.get(key);
      if (!read) {
        read = (await this.services.workspaceFiles.resolveAttachments([a]).catch(() => []))[0] ?? { ...a, text: '' };
        this.attached.set(key, read);
      }
      resolved.push(read);
    }
    const counter = await this.counter(model);
    const system = await this.options.systemPromptText(manager);
    // The draft's attachments are in play too: the instructions they bring count before the message is sent.
    const instructions = await this.services.instructions.forRequest(manager, this.draft.attachments.map((a) => a.path));
    // The draft as it will be sent: the typed text with its attachments fenced after it; then the tools, fitted
    // into what is left of the window exactly as the request will fit them.
    const rest = chatUsage(manager, limit, composeUserMessage(this.draft.text, resolved), counter, system, undefined, instructions.text);
    const window = this.toolWindow(manager, { limit, reserve: rest.reserved, share: this.toolShare, otherTokens: rest.used, countTools: counter.toolCounter() }, this.draft.text);
    const usage = window ? withToolTokens(rest, window.tokens) : rest;
    return usageView(usage, s, window && { offered: window.total - window.leftOut.length, total: window.total });
  }

  /**
   * The window a request to `model` is held to: its limit, the answer's reserve, the counter, and the
   * usage of the request without tools (`systemOverride` and `instructions` as the request carries them).
   */
  async requestWindow(manager: ConversationManager, model: string, systemOverride: string | undefined, instructions?: string): Promise<RequestWindow> {
    const limit = await this.limit(model);
    const counter = await this.counter(model);
    const rest = chatUsage(manager, limit, '', counter, systemOverride, undefined, instructions);
    return { limit, reserve: answerReserve(limit), counter, rest };
  }

  /** The guard of requests to `model` that are not fitted here (a flow's): its window less the answer's reserve, when known. */
  async guard(model: string): Promise<CompleteOptions['window'] | undefined> {
    const limit = await this.limit(model);
    return limit ? { maxPromptTokens: limit - answerReserve(limit), counter: (await this.counter(model)).cache.counter, model } : undefined;
  }

  /** The tools of a request fitted into its window (`undefined` with tools off). */
  fitTools(manager: ConversationManager, window: RequestWindow, run: Pick<PreparedToolRun, 'definitions' | 'pinned'>): ToolWindow | undefined {
    return this.toolWindow(manager, { limit: window.limit, reserve: window.reserve, share: this.toolShare, otherTokens: window.rest.used, countTools: window.counter.toolCounter() }, '', run);
  }

  /**
   * The counter for `model`: exact for OpenAI models gpt-tokenizer knows, the model's own `countTokens`
   * for VS Code's models, otherwise the estimate calibrated by what the server reported; the chat's cache
   * keeps each message's count.
   */
  async counter(model: string): Promise<MeterCounter> {
    const counter = isVscodeModelId(model) ? await this.services.vscodeLm.tokenCounter(model) : await tokenCounterFor(this.services.settings.provider, model);
    if (this.meter) this.meter.cache.counter = counter;
    else this.meter = new MeterCounter(new PathTokenCache(counter));
    return this.meter;
  }

  /**
   * Teaches an estimating counter the server's own count (`usage.promptTokens`) of the request `answer`
   * answered: that request carried the path up to the answer's parent, with `tools` (the step's own).
   */
  async calibrate(manager: ConversationManager, model: string, answer: ConversationNode, systemPromptOverride: string | undefined, instructions: string | undefined, tools: readonly ToolDefinition[] | undefined): Promise<void> {
    const reported = readNodeMetadata(answer.metadata, 'usage')?.promptTokens;
    if (!reported || answer.parentId === null) return;
    const counter = (await this.counter(model)).cache.counter;
    const asked = manager.getContextUsage({ nodeId: answer.parentId, counter, ...(systemPromptOverride !== undefined ? { systemOverride: systemPromptOverride } : {}), ...(instructions ? { instructions } : {}) });
    counter.calibrate(asked.used + counter.countTools(tools) + counter.countMessages([]), reported);
  }

  /** `/compact` and Compact up to Here: a summary of the older turns becomes a node, the chat moves there. */
  async compact(manager: ConversationManager, options: { uptoNodeId?: string; focus?: string }): Promise<NoticeMessage | undefined> {
    const s = this.services.settings;
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, s);
    const node = await manager.compact({ ...options, trigger: 'manual', model, keepRecentTokens: s.keepRecentTokens });
    return compactionNotice(node);
  }

  /**
   * Compacts before a request that would fill more than `arbor.context.autoCompactPercent` of the
   * window; `systemOverride` is the system prompt the request carries (already rendered for it),
   * `instructions` the instruction files' section after it.
   */
  async compactIfFull(manager: ConversationManager, model: string, systemOverride: string | undefined, tools: readonly ToolDefinition[] | undefined, instructions?: string): Promise<NoticeMessage | undefined> {
    const s = this.services.settings;
    if (s.autoCompactPercent <= 0) return undefined;
    const limit = await this.limit(model);
    if (!limit) return undefined;
    const counter = await this.counter(model);
    const before = chatUsage(manager, limit, '', counter, systemOverride, tools, instructions);
    const node = await manager.compactIfFull({ limit, fraction: s.autoCompactPercent / 100, reserve: before.reserved, counter, systemOverride, instructions, tools, model, keepRecentTokens: s.keepRecentTokens });
    return node && compactionNotice(node, { fraction: before.fraction ?? 0, limit, model });
  }

  /**
   * The model refused a request as too long, or `tooLarge` says it would not fit the window: compact
   * without a model call (never drop silently). Rejects with `InvalidOperationError` when nothing can be compacted.
   */
  async compactAfterOverflow(manager: ConversationManager, model: string, tooLarge?: RequestTooLargeError): Promise<NoticeMessage | undefined> {
    const limit = await this.limit(model);
    const keepRecentTokens = keptBudget(this.services.settings.keepRecentTokens, limit);
    return compactionNotice(await manager.compact({ trigger: 'overflow', fallback: true, model, keepRecentTokens }), undefined, tooLarge && limit ? { limit, model } : undefined);
  }

  /** Summarises the branch left at `fromNodeId` into a node below the current one (the offer's button). */
  async summariseBranch(manager: ConversationManager, fromNodeId: string): Promise<void> {
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, this.services.settings);
    await manager.summariseBranch({ fromNodeId, model });
  }

  /** Removes a branch summary the reader does not want (only while nothing follows it). */
  async removeBranchSummary(manager: ConversationManager, nodeId: string): Promise<void> {
    if (manager.getChildren(nodeId).length > 0) {
      throw new InvalidOperationError('The conversation went on below this summary, so it stays; start a new branch above it instead (Branch from Here).');
    }
    await manager.deleteBranch(nodeId);
  }
}

/** After a switch that left `count` messages of the branch ending at `from`: the offer to carry a summary of them. */
export function branchSummaryOffer(left: { from: string; count: number }): NoticeMessage | undefined {
  if (left.count < BRANCH_SUMMARY_OFFER_MESSAGES) return undefined;
  return {
    type: 'notice',
    level: 'info',
    message: `You left a branch of ${left.count} messages. Carry a short summary of it into this one? The model writes it; it is sent with this branch's requests, and you can remove it.`,
    offerBranchSummary: left.from,
  };
}

/** Tells the reader a compaction was made, what it saved, and that Undo brings the history back. */
export function compactionNotice(node: ConversationNode, auto?: { fraction: number; limit: number; model: string }, wouldNotFit?: { limit: number; model: string }): NoticeMessage | undefined {
  const info = readNodeMetadata(node.metadata, 'compaction');
  if (!info) return undefined;
  const saved = `${info.tokensBefore.toLocaleString('en-US')} → ${info.tokensAfter.toLocaleString('en-US')} tokens`;
  const what = `${info.coveredCount} older message${info.coveredCount === 1 ? '' : 's'}`;
  const how = info.method === 'fallback' ? ' without a model (your messages kept, answers shortened)' : '';
  const message = wouldNotFit
    ? `The request would not have fitted ${wouldNotFit.model}'s ${wouldNotFit.limit.toLocaleString('en-US')}-token window even with fewer tools, so Arbor summarised ${what}${how} before sending (${saved}). Undo brings the full history back.`
    : info.trigger === 'overflow'
      ? `${info.model ?? 'The model'} refused the request as longer than it can read, so Arbor summarised ${what}${how} and asked again (${saved}). Undo brings the full history back.`
      : auto
        ? `The conversation filled ${Math.round(auto.fraction * 100)}% of ${auto.model}'s ${auto.limit.toLocaleString('en-US')}-token window, so Arbor summarised ${what}${how} before sending (${saved}). Undo brings the full history back.`
        : `Summarised ${what}${how} (${saved}). Undo brings the full history back.`;
  return { type: 'notice', level: 'info', message, undoCompaction: node.nodeId };
}
