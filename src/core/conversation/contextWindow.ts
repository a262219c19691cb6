import { InvalidArgumentError } from '../errors';
import { estimateMessageTokens } from '../llm/tokens';
import type { LLMMessage } from '../types';

/** Estimates the tokens one message costs in a request. */
export type MessageTokenEstimator = (message: LLMMessage) => number;

/** How much history a request may carry. Both limits are optional; unset means unlimited. */
export interface ContextWindowOptions {
  /** Most non-system messages to send. */
  maxHistory?: number;
  /** Most estimated tokens to send, system messages included. */
  maxContextTokens?: number;
  /** Token estimate per message; defaults to `estimateMessageTokens`. */
  estimate?: MessageTokenEstimator;
}

/** What the window kept, with per-message estimates the UI can show beside each message. */
export interface ContextWindowResult {
  /** The messages to send, in their original order. */
  messages: LLMMessage[];
  /** Indexes (into the input) of the kept messages. */
  keptIndexes: number[];
  /** How many input messages were left out. */
  droppedCount: number;
  /** Estimated tokens of each input message, dropped ones included. */
  tokenEstimates: number[];
  /** Estimated tokens of the kept messages. */
  totalTokens: number;
}

/**
 * Splits non-system messages into units that must be kept or dropped together: a user message
 * with the answer that follows it, and an assistant tool call with every tool result after it.
 * Returns arrays of indexes into `messages`.
 */
export function groupTurns(messages: readonly LLMMessage[]): number[][] {
  const units: number[][] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i];
    if (message.role === 'system') {
      i++;
      continue;
    }
    const unit = [i];
    i++;
    const isToolCall = message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0;
    if (isToolCall) {
      while (i < messages.length && (messages[i].role === 'tool' || messages[i].role === 'function')) {
        unit.push(i++);
      }
    } else if (message.role === 'user') {
      const next = messages[i];
      if (next && next.role === 'assistant' && !(next.toolCalls?.length ?? 0)) {
        unit.push(i++);
      }
    }
    units.push(unit);
  }
  return units;
}

function checkLimit(name: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isFinite(value) || value < 0)) {
    throw new InvalidArgumentError(`${name} must be a non-negative number, got ${value}.`);
  }
}

/** Throws `InvalidArgumentError` when a limit is negative or not a number, so bad settings fail early. */
export function validateContextWindowOptions(options: Pick<ContextWindowOptions, 'maxHistory' | 'maxContextTokens'>): void {
  checkLimit('maxHistory', options.maxHistory);
  checkLimit('maxContextTokens', options.maxContextTokens);
}

/**
 * Chooses which messages of a path to send: system messages always, then the newest whole turns
 * that fit `maxHistory` and `maxContextTokens`; older turns are dropped, never split. The newest
 * turn is kept even when it alone is over a limit, so a request is never empty. Pure: the input
 * (and the conversation tree it came from) is not changed.
 */
export function applyContextWindow(messages: readonly LLMMessage[], options: ContextWindowOptions = {}): ContextWindowResult {
  validateContextWindowOptions(options);
  const estimate = options.estimate ?? estimateMessageTokens;
  const tokenEstimates = messages.map((m) => estimate(m));
  const kept = new Set<number>();
  let tokens = 0;
  messages.forEach((m, i) => {
    if (m.role === 'system') {
      kept.add(i);
      tokens += tokenEstimates[i];
    }
  });
  const units = groupTurns(messages);
  let history = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u];
    const unitTokens = unit.reduce((sum, i) => sum + tokenEstimates[i], 0);
    const isNewest = u === units.length - 1;
    const overHistory = options.maxHistory !== undefined && history + unit.length > options.maxHistory;
    const overTokens = options.maxContextTokens !== undefined && tokens + unitTokens > options.maxContextTokens;
    if (!isNewest && (overHistory || overTokens)) {
      break;
    }
    for (const i of unit) {
      kept.add(i);
    }
    history += unit.length;
    tokens += unitTokens;
  }
  const keptIndexes = [...kept].sort((a, b) => a - b);
  return {
    messages: keptIndexes.map((i) => messages[i]),
    keptIndexes,
    droppedCount: messages.length - keptIndexes.length,
    tokenEstimates,
    totalTokens: tokens,
  };
}
