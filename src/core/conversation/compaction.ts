/**
 * Compaction as a node of the tree. A compaction node sits on the path below the messages it
 * summarises; its content is the summary and its metadata (`compaction`) names the first message
 * kept verbatim. A request for any node below it carries the system prompt with the summary, then
 * the messages from `firstKeptNodeId` on; nothing is deleted, so a branch taken above the summary
 * (or Undo, a move to its parent) sees the whole history again. Pure: planning, the transcript the
 * summariser reads, and the no-model fallback summary are all computed here without a model.
 */
import { readNodeMetadata, type CompactionInfo } from '../metadataKeys';
import type { ConversationNode, LLMMessage } from '../types';
import { groupTurns } from './contextWindow';
import { ROOT_NODE_ID, type ConversationTree } from './conversationTree';
import { headAndTail } from '../textCuts';

/** Characters of one tool result the summariser reads; the rest is cut (peers use about 2,000). */
export const SUMMARY_TOOL_RESULT_CHARS = 2000;

/** Whether a node is a compaction (a summary standing for the messages above it). */
export function isCompaction(node: ConversationNode): boolean {
  return readNodeMetadata(node.metadata, 'compaction') !== undefined;
}

/** Whether a node is a branch summary (what a branch the reader left found, carried into this one). */
export function isBranchSummary(node: ConversationNode): boolean {
  return readNodeMetadata(node.metadata, 'branchSummary') !== undefined;
}

/** Summary nodes stand in the system text of a request, never as messages of their own. */
function isSummaryNode(node: ConversationNode): boolean {
  return isCompaction(node) || isBranchSummary(node);
}

/** How a branch summary is put into the system text of a request. */
export function branchSummaryPreamble(summary: string): string {
  return `The conversation came back from another branch; what was found there, summarised:\n\n<branch-summary>\n${summary.trim()}\n</branch-summary>`;
}

/** The compaction nearest the end of `path` (root first), with its details. */
export function lastCompaction(path: readonly ConversationNode[]): { node: ConversationNode; info: CompactionInfo; index: number } | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const info = readNodeMetadata(path[i].metadata, 'compaction');
    if (info) return { node: path[i], info, index: i };
  }
  return undefined;
}

/** How the summary is put before the kept messages in a request. */
export function summaryPreamble(summary: string): string {
  return `The earlier part of this conversation was compacted into the summary below. The messages after it follow verbatim.\n\n<summary>\n${summary.trim()}\n</summary>`;
}

/**
 * The nodes a request for `nodeId` carries, and the system text to send first (the root's, or
 * `systemOverride`, followed by the workspace's `instructions` section when given). Without a
 * compaction on the path this is the path (an empty root left out); with one, it is the system
 * root, then the messages from the compaction's first kept node on (compaction nodes themselves are
 * never sent as messages), with the summary joined to the system text.
 */
export function requestPath(
  tree: ConversationTree,
  nodeId: string,
  systemOverride?: string,
  instructions?: string,
): { system?: string; nodes: ConversationNode[]; compaction?: ConversationNode } {
  const path = tree.path(nodeId);
  const root = path[0];
  const rootText = systemOverride ?? (root && root.nodeId === ROOT_NODE_ID && root.message.content !== '' ? root.message.content : undefined);
  const rest = path.slice(1);
  const found = lastCompaction(path);
  let kept = rest;
  const parts = rootText !== undefined ? [rootText] : [];
  // Instruction files follow the system prompt and come before any summary.
  if (instructions) parts.push(instructions);
  if (found) {
    const keptFrom = rest.findIndex((n) => n.nodeId === found.info.firstKeptNodeId);
    // A first kept node that is not on the path (deleted, or the summary covers everything) keeps only what follows the summary.
    kept = keptFrom >= 0 ? rest.slice(keptFrom) : path.slice(found.index + 1);
    parts.push(summaryPreamble(found.node.message.content));
  }
  // Every branch summary on the path joins the system text (they are short, and a compaction never covers them).
  for (const n of rest) if (isBranchSummary(n)) parts.push(branchSummaryPreamble(n.message.content));
  return { system: parts.length ? parts.join('\n\n') : undefined, nodes: kept.filter((n) => !isSummaryNode(n)), ...(found ? { compaction: found.node } : {}) };
}

/** The messages a request for `nodeId` carries, in order (`systemOverride` in place of the root's text, then `instructions`): see `requestPath`. */
export function requestMessages(tree: ConversationTree, nodeId: string, systemOverride?: string, instructions?: string): LLMMessage[] {
  const { system, nodes } = requestPath(tree, nodeId, systemOverride, instructions);
  const messages = nodes.map((n) => n.message);
  return system === undefined ? messages : [{ role: 'system', content: system }, ...messages];
}

/** What a compaction of a path would summarise and keep. */
export interface CompactionPlan {
  /** The messages the summary stands for, oldest first (since the previous compaction's kept part). */
  covered: ConversationNode[];
  /** The messages kept verbatim after the summary, oldest first. */
  kept: ConversationNode[];
  /** The first kept message: where requests below the summary resume. */
  firstKeptNodeId: string;
  /** The compaction this one updates, when the path had one. */
  previous?: { node: ConversationNode; info: CompactionInfo };
}

/**
 * Chooses where to cut the path root→`nodeId`: the newest turns worth about `keepRecentTokens` stay
 * verbatim, never cut between a tool call and its results, and the latest user message is always
 * kept. When all of it would fit, only the newest turn is kept, so an asked-for compaction still
 * summarises something. `undefined` when there is nothing to summarise (a single turn).
 */
export function planCompaction(
  tree: ConversationTree,
  nodeId: string,
  options: { keepRecentTokens: number; count: (message: LLMMessage) => number },
): CompactionPlan | undefined {
  const path = tree.path(nodeId);
  const found = lastCompaction(path);
  const { nodes } = requestPath(tree, nodeId);
  const messages = nodes.map((n) => n.message);
  const units = groupTurns(messages);
  if (units.length < 2) return undefined;
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  let cut = units.length - 1;
  let tokens = units[cut].reduce((sum, i) => sum + options.count(messages[i]), 0);
  let full = false;
  while (cut > 1) {
    const unitTokens = units[cut - 1].reduce((sum, i) => sum + options.count(messages[i]), 0);
    if (tokens + unitTokens > options.keepRecentTokens) {
      full = true;
      break;
    }
    tokens += unitTokens;
    cut--;
  }
  // Everything would have fitted: an asked-for compaction still summarises all but the newest turn.
  if (!full) cut = units.length - 1;
  // Never summarise away the latest user message: the cut is at or before it.
  while (cut > 0 && lastUser >= 0 && units[cut][0] > lastUser) cut--;
  if (cut === 0) return undefined;
  const start = units[cut][0];
  return {
    covered: nodes.slice(0, start),
    kept: nodes.slice(start),
    firstKeptNodeId: nodes[start].nodeId,
    previous: found ? { node: found.node, info: found.info } : undefined,
  };
}

const SPEAKER: Record<LLMMessage['role'], string> = { user: 'User', assistant: 'Assistant', system: 'System', tool: 'Tool result', function: 'Tool result' };

/**
 * The covered messages as a plain transcript for the summariser (`[User]: …`), so that the model
 * reads it as a document instead of continuing it. Long tool results are cut to their head and tail.
 */
export function transcriptOf(nodes: readonly ConversationNode[], toolResultChars = SUMMARY_TOOL_RESULT_CHARS): string {
  return nodes
    .map((n) => {
      const m = n.message;
      const isTool = m.role === 'tool' || m.role === 'function';
      const text = isTool ? headAndTail(m.content, toolResultChars) : m.content;
      const calls = (m.toolCalls ?? []).map((c) => `\n[Tool call]: ${c.function.name}(${headAndTail(c.function.arguments, toolResultChars)})`).join('');
      return `[${SPEAKER[m.role]}]: ${text}${calls}`;
    })
    .join('\n\n');
}

/** Files the covered messages attached, retrieved or changed, added to those the previous summary listed. */
export function filesOf(nodes: readonly ConversationNode[], previous?: CompactionInfo): { readFiles: string[]; modifiedFiles: string[] } {
  const read = new Set(previous?.readFiles ?? []);
  const modified = new Set(previous?.modifiedFiles ?? []);
  for (const n of nodes) {
    for (const a of readNodeMetadata(n.metadata, 'attachments') ?? []) read.add(a.path);
    const rag = readNodeMetadata(n.metadata, 'ragMetadata') ?? {};
    for (const r of Object.values(rag)) for (const item of r.results) if (item.path) read.add(item.path);
    for (const path of readNodeMetadata(n.metadata, 'modifiedFiles') ?? []) modified.add(path);
  }
  return { readFiles: [...read].sort(), modifiedFiles: [...modified].sort() };
}

/**
 * The covered user messages word for word, newest first within `budgetTokens` and then put back in
 * order, as a section after a model's summary: what the user asked for is what summaries lose most.
 * Empty when none fits.
 */
export function userMessagesVerbatim(covered: readonly ConversationNode[], budgetTokens: number, count: (message: LLMMessage) => number): string {
  const picked: string[] = [];
  let used = 0;
  for (let i = covered.length - 1; i >= 0; i--) {
    const m = covered[i].message;
    if (m.role !== 'user') continue;
    const tokens = count(m);
    if (used + tokens > budgetTokens) break;
    used += tokens;
    picked.unshift(`[User]: ${m.content}`);
  }
  return picked.length ? `## The user's messages, word for word\n${picked.join('\n\n')}` : '';
}

/** Characters of an older answer the fallback keeps. */
const FALLBACK_ANSWER_CHARS = 300;

/**
 * A summary that needs no model (when the provider rejects even the request for a summary, or for
 * length): every user message verbatim, each older answer cut to its opening, the previous
 * summary first. Intent survives, which is what users miss most after a compaction.
 */
export function fallbackSummary(covered: readonly ConversationNode[], previousSummary?: string): string {
  const lines: string[] = [];
  if (previousSummary) lines.push('## Earlier summary', previousSummary.trim(), '');
  lines.push('## Messages (the user\'s verbatim, answers shortened)');
  for (const n of covered) {
    const m = n.message;
    if (m.role === 'user') lines.push(`[User]: ${m.content}`);
    else if (m.role === 'assistant') lines.push(`[Assistant, shortened]: ${m.content.length > FALLBACK_ANSWER_CHARS ? `${m.content.slice(0, FALLBACK_ANSWER_CHARS)} …` : m.content}`);
  }
  return lines.join('\n');
}

/** Most characters of one tool output sent to a model (head and tail kept); Codex caps at 10 KiB. */
export const MAX_TOOL_OUTPUT_CHARS = 10_240;
/** Tokens of the newest tool outputs sent whole by default (`arbor.context.keepToolOutputTokens`). */
export const DEFAULT_KEEP_TOOL_OUTPUT_TOKENS = 40_000;
/** What stands in, in a request, for an old tool output that was left out. */
export const PRUNED_TOOL_OUTPUT = '[Old tool output left out to save context; it is kept in the conversation.]';

/**
 * The cheapest tokens to drop, before any summary: in what is sent (never in the tree), tool outputs
 * older than the newest `keepTokens` worth become a one-line marker, and any one output longer than
 * `maxChars` keeps its head and tail. Returns new message objects where it changes one.
 */
export function pruneToolOutputs(
  messages: readonly LLMMessage[],
  options: { keepTokens?: number; maxChars?: number; count?: (message: LLMMessage) => number } = {},
): LLMMessage[] {
  const keep = options.keepTokens ?? DEFAULT_KEEP_TOOL_OUTPUT_TOKENS;
  const maxChars = options.maxChars ?? MAX_TOOL_OUTPUT_CHARS;
  const count = options.count ?? ((m: LLMMessage) => Math.ceil(m.content.length / 4));
  let seen = 0;
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i];
    if (m.role !== 'tool' && m.role !== 'function') continue;
    const capped = m.content.length > maxChars ? { ...m, content: headAndTail(m.content, maxChars) } : m;
    seen += count(capped);
    out[i] = seen > keep ? { ...m, content: PRUNED_TOOL_OUTPUT } : capped;
  }
  return out;
}

/**
 * The messages of the branch the reader left: those on the path to `fromNodeId` below the last node it
 * shares with the path to `toNodeId` (summary nodes left out). Empty when `toNodeId` continues it.
 */
export function branchLeft(tree: ConversationTree, fromNodeId: string, toNodeId: string): ConversationNode[] {
  const onNewPath = new Set(tree.path(toNodeId).map((n) => n.nodeId));
  const from = tree.path(fromNodeId);
  let fork = from.length;
  while (fork > 0 && !onNewPath.has(from[fork - 1].nodeId)) fork--;
  return from.slice(fork).filter((n) => !isSummaryNode(n));
}
