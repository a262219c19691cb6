/**
 * Which tool definitions a request carries in a model's window. The definitions may take at most a share
 * of the window (`arbor.tools.windowPercent`) and never more than the room the request's other parts
 * leave; within that, the engine's `fitTools` shortens descriptions and then keeps the tools most relevant
 * to the latest message, with the tools the conversation already called and the pinned ones always kept.
 * The meter and the request both ask here, with the same counter, so the meter shows what is sent.
 */
import { fitTools, toolIndexFor, type LLMMessage, type ToolDefinition } from '../../core/index';

/** What fitting the tools to a request needs. */
export interface ToolWindowRequest {
  /** Every tool the chat offers (its choice and the approval policy applied), in order. */
  definitions: readonly ToolDefinition[];
  /** The model's window; unknown means every tool goes, as there is nothing to fit. */
  limit?: number;
  /** Tokens kept for the answer. */
  reserve: number;
  /** The share of the window the definitions may take (0–1). */
  share: number;
  /** Tokens of everything else the request carries: system prompt, instructions, messages, the draft. */
  otherTokens: number;
  /** What the relevant tools are chosen by: the latest user message, or the draft being typed. */
  query: string;
  /** Wire names that always stay: tools this conversation called, and pinned tools. */
  keep: ReadonlySet<string>;
  /** Tokens of definitions as the provider puts them on the wire. */
  countTools(definitions: readonly ToolDefinition[]): number;
}

/** The tools one request carries, and what was left out to fit. */
export interface ToolWindow {
  offered: ToolDefinition[];
  /** Tokens of `offered` on the wire. */
  tokens: number;
  /** How many tools the chat offers before fitting (`describe_tool` not counted). */
  total: number;
  /** Names left out. */
  leftOut: string[];
  /** Names whose descriptions were cut to their first sentence. */
  shortened: string[];
  /** Most tokens the definitions could take; absent when the window is unknown. */
  budget?: number;
  /** The kept tools alone are over the budget. */
  overBudget: boolean;
}

/** The tokens the definitions may take: their share of the window, and no more than the room left; `undefined` when the window is unknown. */
export function toolBudget(limit: number | undefined, reserve: number, share: number, otherTokens: number): number | undefined {
  if (!limit || limit <= 0) return undefined;
  const shared = Math.floor(Math.min(1, Math.max(0, share)) * limit);
  return Math.max(0, Math.min(shared, limit - reserve - otherTokens));
}

/** Fits the chat's tools into the request (see the file's header). */
export function fitToolWindow(request: ToolWindowRequest): ToolWindow {
  const { definitions } = request;
  const budget = toolBudget(request.limit, request.reserve, request.share, request.otherTokens);
  if (budget === undefined || definitions.length === 0) {
    const offered = [...definitions];
    return { offered, tokens: request.countTools(offered), total: definitions.length, leftOut: [], shortened: [], overBudget: false };
  }
  const fit = fitTools({
    tools: definitions,
    query: request.query,
    budgetTokens: budget,
    countTools: request.countTools,
    keep: request.keep,
    index: toolIndexFor(definitions),
  });
  return { offered: fit.offered, tokens: fit.tokens, total: definitions.length, leftOut: fit.leftOut, shortened: fit.shortened, budget, overBudget: fit.overBudget };
}

/** The names of the tools the model called along a path: they stay offered for the rest of the conversation. */
export function calledToolNames(path: readonly LLMMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of path) for (const call of message.toolCalls ?? []) names.add(call.function.name);
  return names;
}

/** The latest user message of a path, which the relevant tools are chosen by. */
export function latestUserText(path: readonly LLMMessage[]): string {
  for (let i = path.length - 1; i >= 0; i--) if (path[i].role === 'user') return path[i].content;
  return '';
}

/** "12 of 40 tools offered to fit arbor-test's 4,096-token window", or `undefined` when none was left out. */
export function leftOutSummary(window: ToolWindow, model: string, limit: number | undefined): string | undefined {
  if (window.leftOut.length === 0 || !limit) return undefined;
  const offered = window.total - window.leftOut.length;
  return `${offered} of ${window.total} tools offered to fit ${model}'s ${limit.toLocaleString('en-US')}-token window`;
}
