/**
 * Writes a compaction node: plans the cut (`planCompaction`), asks the model for a summary with the
 * summary prompt (the workspace's `prompts/system/compact.md`, else the built-in one), or builds the
 * no-model fallback, and returns the node to add below the compacted path.
 */
import { InvalidOperationError, PromptError, ProviderError } from '../errors';
import type { LLMProvider } from '../llm/provider';
import { estimateMessageTokens } from '../llm/tokens';
import type { BranchSummaryInfo, CompactionInfo } from '../metadataKeys';
import { compileTemplate } from '../templates/templateEngine';
import type { ConversationPromptBuilder, PromptRef } from '../promptContracts';
import type { NewNode } from '../storage/storage';
import type { LLMMessage } from '../types';
import { branchLeft, fallbackSummary, filesOf, planCompaction, requestMessages, transcriptOf, userMessagesVerbatim, type CompactionPlan } from './compaction';
import type { ConversationTree } from './conversationTree';

/** The name of the summary prompt in the library (`prompts/system/compact.md`). */
export const COMPACT_PROMPT_NAME = 'compact';
/** Tokens of the newest turns kept verbatim by default (`arbor.context.keepRecentTokens`). */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
/**
 * Tokens of the newest turns to keep verbatim when compacting for a window of `limit` tokens: at most
 * a quarter of it, so the summary and the answer still fit (the whole `keepRecentTokens` when the
 * window is unknown).
 */
export function keptBudget(keepRecentTokens: number, limit: number | undefined): number {
  return limit ? Math.min(keepRecentTokens, Math.floor(limit / 4)) : keepRecentTokens;
}

/** Most tokens the summary may take. */
const SUMMARY_MAX_TOKENS = 4096;

/**
 * The summary prompt used when the workspace has none; the sample `prompts/system/compact.md` has the
 * same text (a test keeps them equal). Sections follow what users miss most after a compaction: the
 * goal and their own constraints, then progress, decisions, next steps and the files.
 */
export const BUILTIN_COMPACT_PROMPT = `You write the handoff summary of a conversation between a user and an AI assistant about code, so that the conversation can go on from the summary alone. The transcript comes as a document: do not answer it or continue it.

Write these sections, in Markdown, concise and factual:

## Goal
What the user wants, in their words where possible.

## Constraints and preferences
Every instruction, rule or preference the user stated, verbatim where short.

## Progress
- Done:
- In progress:
- Blocked:

## Decisions
What was decided, and why.

## Next steps
What comes next, in order.

## Critical context
Exact file paths, function names, commands, error messages and values that the rest of the work needs.

## Files
Files read and files changed.
{{#if previousSummary}}

A previous summary exists. Update it with what happened since: keep what still holds, move finished work to Done, and do not summarise the summary.
{{/if}}
{{#if focus}}

Focus on: {{focus}}
{{/if}}`;

/** How to compact. */
export interface CompactOptions {
  /** Compact the path up to this node (default: the current node); the summary is added below it. */
  uptoNodeId?: string;
  /** What the summary should focus on (`/compact <focus>`). */
  focus?: string;
  /** The model that writes the summary (default: the provider's). */
  model?: string;
  /** What asked for it (recorded on the node). */
  trigger?: CompactionInfo['trigger'];
  /** Build the summary without a model call (keeps the user's messages, shortens the answers). */
  fallback?: boolean;
  /** Tokens of the newest turns to keep verbatim (default 20,000). */
  keepRecentTokens?: number;
  /** Counts a message's tokens (default: the estimate). */
  count?: (message: LLMMessage) => number;
  signal?: AbortSignal;
}

/** What the compactor needs from its manager. */
export interface CompactorContext {
  tree: ConversationTree;
  llm: LLMProvider;
  promptBuilder?: ConversationPromptBuilder;
}

/** The summary prompt: the library's `compact` system prompt, or the built-in one when the library has none. */
async function summaryPrompt(builder: ConversationPromptBuilder | undefined, params: Record<string, unknown>): Promise<{ text: string; ref?: PromptRef }> {
  if (builder) {
    try {
      const rendered = await builder.renderSystemPrompt(COMPACT_PROMPT_NAME, { params, includeRag: false });
      return { text: rendered.content, ref: rendered.prompt };
    } catch (err) {
      // Only a missing prompt falls back; a broken one is the author's to fix, so it is reported.
      if (!(err instanceof PromptError) || !err.message.startsWith(`there is no system prompt named "${COMPACT_PROMPT_NAME}"`)) throw err;
    }
  }
  return { text: compileTemplate(BUILTIN_COMPACT_PROMPT)(params) };
}

/** Whether a failure means the request was too long for the model, so only the no-model summary can help. */
export function isContextLengthError(err: unknown): boolean {
  return err instanceof ProviderError && err.kind === 'context_length';
}

/**
 * Plans and writes the compaction node for the path up to `options.uptoNodeId`, to be added as its
 * child. Throws `InvalidOperationError` when there is nothing to summarise.
 */
export async function buildCompaction(ctx: CompactorContext, nodeId: string, options: CompactOptions = {}): Promise<NewNode> {
  const count = options.count ?? estimateMessageTokens;
  const plan = planCompaction(ctx.tree, nodeId, { keepRecentTokens: options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS, count });
  if (!plan) {
    throw new InvalidOperationError('There is nothing to compact yet: the conversation is a single turn. Compaction summarises the turns before the newest ones.');
  }
  const tokensBefore = requestMessages(ctx.tree, nodeId).reduce((sum, m) => sum + count(m), 0);
  const previousSummary = plan.previous?.node.message.content;
  const focus = options.focus?.trim() || undefined;
  let summary: string;
  let method: CompactionInfo['method'] = 'model';
  let ref: PromptRef | undefined;
  let model: string | undefined;
  if (options.fallback) {
    summary = fallbackSummary(plan.covered, previousSummary);
    method = 'fallback';
  } else {
    try {
      const written = await summarise(ctx, plan, { focus, previousSummary, model: options.model, signal: options.signal });
      // The user's own words ride along verbatim where there is room (half of what is kept recent).
      const verbatim = userMessagesVerbatim(plan.covered, Math.floor((options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS) / 2), count);
      summary = verbatim ? `${written.summary}\n\n${verbatim}` : written.summary;
      ref = written.ref;
      model = written.model;
    } catch (err) {
      if (!isContextLengthError(err)) throw err;
      summary = fallbackSummary(plan.covered, previousSummary);
      method = 'fallback';
    }
  }
  const files = filesOf(plan.covered, plan.previous?.info);
  const system = ctx.tree.root.message.content;
  const after = [system, summary].filter(Boolean).join('\n\n');
  const tokensAfter = count({ role: 'system', content: after }) + plan.kept.reduce((sum, n) => sum + count(n.message), 0);
  const info: CompactionInfo = {
    firstKeptNodeId: plan.firstKeptNodeId,
    coveredCount: plan.covered.length,
    tokensBefore,
    tokensAfter,
    method,
    trigger: options.trigger ?? 'manual',
    ...files,
    ...(model ? { model } : {}),
    ...(ref ? { prompt: ref } : {}),
    ...(focus ? { focus } : {}),
  };
  return { parentId: nodeId, message: { role: 'system', content: summary }, timestamp: new Date().toISOString(), metadata: { compaction: info } };
}

/** What a branch summary asks the summariser to focus on. */
const BRANCH_SUMMARY_FOCUS = 'This is a branch the user left to go back to an earlier point. In a few lines: what was tried there, what was learned, and what did not work. Skip the sections that have nothing.';

/**
 * Writes a branch summary: the messages of the branch left at `fromNodeId` (below where it meets the
 * path to `toNodeId`), summarised by the model with the summary prompt, to be added below `toNodeId`.
 */
export async function buildBranchSummary(ctx: CompactorContext, fromNodeId: string, toNodeId: string, options: { model?: string; signal?: AbortSignal } = {}): Promise<NewNode> {
  const left = branchLeft(ctx.tree, fromNodeId, toNodeId);
  if (left.length === 0) {
    throw new InvalidOperationError('There is no other branch to summarise: the conversation did not leave one to come here.');
  }
  const written = await summarise(ctx, { covered: left, kept: [], firstKeptNodeId: toNodeId }, { focus: BRANCH_SUMMARY_FOCUS, model: options.model, signal: options.signal, maxTokens: 1024 });
  const info: BranchSummaryInfo = { fromNodeId, coveredCount: left.length, model: written.model };
  return { parentId: toNodeId, message: { role: 'system', content: written.summary }, timestamp: new Date().toISOString(), metadata: { branchSummary: info } };
}

/** Asks the model for the summary of the covered part, the transcript given as a document. */
async function summarise(
  ctx: CompactorContext,
  plan: CompactionPlan,
  options: { focus?: string; previousSummary?: string; model?: string; signal?: AbortSignal; maxTokens?: number },
): Promise<{ summary: string; ref?: PromptRef; model: string }> {
  const prompt = await summaryPrompt(ctx.promptBuilder, { focus: options.focus ?? '', previousSummary: options.previousSummary ?? '' });
  const parts = [
    options.previousSummary ? `<previous-summary>\n${options.previousSummary.trim()}\n</previous-summary>\n\n` : '',
    `<conversation>\n${transcriptOf(plan.covered)}\n</conversation>\n\n`,
    options.previousSummary ? 'Update the previous summary with the conversation above.' : 'Summarise the conversation above.',
  ];
  const messages: LLMMessage[] = [
    { role: 'system', content: prompt.text },
    { role: 'user', content: parts.join('') },
  ];
  const response = await ctx.llm.complete(messages, { model: options.model, think: false, maxTokens: options.maxTokens ?? SUMMARY_MAX_TOKENS, signal: options.signal });
  const summary = response.content.trim();
  if (!summary) {
    throw new InvalidOperationError(`Model '${response.model || options.model || ctx.llm.model}' returned an empty summary; nothing was compacted. Try again, or compact with another model.`);
  }
  return { summary, ref: prompt.ref, model: response.model || options.model || ctx.llm.model };
}
