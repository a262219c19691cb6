/**
 * A chat's context budget and summaries: the meter's usage (with the draft, the chat's system prompt
 * and the model's counter, whose per-message cache keeps typing cheap), calibration from what the
 * server reported, and the compactions and branch summaries with the notices that tell the reader
 * what happened. The controller owns one per chat and posts what it returns.
 */
import { InvalidOperationError, isVscodeModelId, keptBudget, PathTokenCache, readNodeMetadata, tokenCounterFor, type ConversationManager, type ConversationNode, type ToolDefinition } from '../../core/index';
import type { Attachment, NoticeMessage, UsageView } from '../../shared/protocol';
import type { ChatOptions } from './chatOptions';
import { attachmentKey, chatUsage, MeterCounter, usageView } from '../llm/contextBudget';
import { conversationModel } from '../conversations/conversationModel';
import type { ChatServices } from './chatServices';
import { composeUserMessage, type ResolvedAttachment } from '../base/workspacePaths';

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
    /** The tool definitions the chat's next request carries. */
    private readonly toolDefinitions: (manager: ConversationManager) => readonly ToolDefinition[] = () => [],
  ) {}

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
    // The draft as it will be sent: the typed text with its attachments fenced after it.
    return usageView(chatUsage(manager, limit, composeUserMessage(this.draft.text, resolved), counter, system, this.toolDefinitions(manager), instructions.text), s);
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

  /** What the counter makes of the request about to be sent, to learn from the server's count later. */
  async estimateRequest(manager: ConversationManager, model: string, systemPromptOverride: string | undefined, instructions?: string): Promise<number | undefined> {
    try {
      const text = [systemPromptOverride, instructions].filter(Boolean).join('\n\n');
      const system = text ? [{ role: 'system' as const, content: text }] : [];
      return (await this.counter(model)).cache.counter.countMessages([...system, ...manager.getHistory()]);
    } catch {
      return undefined;
    }
  }

  /** Teaches an estimating counter the server's own count of the request `answer` answered (`usage.promptTokens`). */
  async calibrate(model: string, estimated: number | undefined, answer: ConversationNode): Promise<void> {
    const reported = readNodeMetadata(answer.metadata, 'usage')?.promptTokens;
    if (estimated === undefined || !reported) return;
    (await this.counter(model)).cache.counter.calibrate(estimated, reported);
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
  async compactIfFull(manager: ConversationManager, model: string, systemOverride: string | undefined, tools?: readonly ToolDefinition[], instructions?: string): Promise<NoticeMessage | undefined> {
    const s = this.services.settings;
    if (s.autoCompactPercent <= 0) return undefined;
    const limit = await this.limit(model);
    if (!limit) return undefined;
    const counter = await this.counter(model);
    const before = chatUsage(manager, limit, '', counter, systemOverride, tools, instructions);
    const node = await manager.compactIfFull({ limit, fraction: s.autoCompactPercent / 100, reserve: before.reserved, counter, systemOverride, instructions, tools, model, keepRecentTokens: s.keepRecentTokens });
    return node && compactionNotice(node, { fraction: before.fraction ?? 0, limit, model });
  }

  /** The model refused a request as too long: compact without a model call (never drop silently). */
  async compactAfterOverflow(manager: ConversationManager, model: string): Promise<NoticeMessage | undefined> {
    const limit = await this.limit(model);
    const keepRecentTokens = keptBudget(this.services.settings.keepRecentTokens, limit);
    return compactionNotice(await manager.compact({ trigger: 'overflow', fallback: true, model, keepRecentTokens }));
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
export function compactionNotice(node: ConversationNode, auto?: { fraction: number; limit: number; model: string }): NoticeMessage | undefined {
  const info = readNodeMetadata(node.metadata, 'compaction');
  if (!info) return undefined;
  const saved = `${info.tokensBefore.toLocaleString('en-US')} → ${info.tokensAfter.toLocaleString('en-US')} tokens`;
  const what = `${info.coveredCount} older message${info.coveredCount === 1 ? '' : 's'}`;
  const how = info.method === 'fallback' ? ' without a model (your messages kept, answers shortened)' : '';
  const message =
    info.trigger === 'overflow'
      ? `${info.model ?? 'The model'} refused the request as longer than it can read, so Arbor summarised ${what}${how} and asked again (${saved}). Undo brings the full history back.`
      : auto
        ? `The conversation filled ${Math.round(auto.fraction * 100)}% of ${auto.model}'s ${auto.limit.toLocaleString('en-US')}-token window, so Arbor summarised ${what}${how} before sending (${saved}). Undo brings the full history back.`
        : `Summarised ${what}${how} (${saved}). Undo brings the full history back.`;
  return { type: 'notice', level: 'info', message, undoCompaction: node.nodeId };
}
