/**
 * A `TokenCounter` over an asynchronous count (VS Code's `LanguageModelChat.countTokens`). The meter counts
 * synchronously, so a text not counted yet gets the calibrated estimate at once while its exact count is
 * asked for; when counts arrive the revision changes (caches recount) and `onCounted` tells the owner to
 * redraw. Pure: the count function is handed in.
 */
import type { LLMMessage, ToolDefinition } from '../types';
import { CHAT_REPLY_PRIMING_TOKENS, CHAT_TOKENS_PER_MESSAGE, CHAT_TOKENS_PER_NAME, type EstimatingTokenCounter, type TokenCounter } from './tokenCount';
import { IMAGE_TOKENS } from './tokens';
import { toolsJson } from './wireTools';

/** Most texts whose counts are kept; the oldest go first. */
export const LAZY_COUNT_CACHE_SIZE = 2000;

/** Counts texts with an asynchronous count, estimating until it answers. */
export class LazyTokenCounter implements TokenCounter {
  readonly method: string;
  private readonly counted = new Map<string, number>();
  private readonly pending = new Set<string>();
  private _revision = 0;
  /** The count failed once: estimates from then on (a model that cannot count is not asked on every keystroke). */
  private broken = false;

  constructor(
    private readonly count: (text: string) => Promise<number>,
    private readonly fallback: EstimatingTokenCounter,
    private readonly onCounted: () => void = () => undefined,
    method = 'model',
  ) {
    this.method = method;
  }

  /** Exact once every text asked for has its model count. */
  get exact(): boolean {
    return !this.broken && this.pending.size === 0;
  }

  get revision(): number {
    return this._revision * 1000 + this.fallback.revision;
  }

  countText(text: string): number {
    if (!text) return 0;
    const known = this.counted.get(text);
    if (known !== undefined) return known;
    if (!this.broken) this.ask(text);
    return this.fallback.countText(text);
  }

  countMessage(message: LLMMessage): number {
    let tokens = CHAT_TOKENS_PER_MESSAGE + this.countText(message.content);
    if (message.name) tokens += this.countText(message.name) + CHAT_TOKENS_PER_NAME;
    for (const call of message.toolCalls ?? []) tokens += CHAT_TOKENS_PER_MESSAGE + this.countText(call.function.name) + this.countText(call.function.arguments);
    return tokens + (message.images?.length ?? 0) * IMAGE_TOKENS;
  }

  countMessages(messages: readonly LLMMessage[]): number {
    return messages.reduce((sum, m) => sum + this.countMessage(m), CHAT_REPLY_PRIMING_TOKENS);
  }

  countTools(tools: readonly ToolDefinition[] | undefined): number {
    return tools?.length ? this.countText(toolsJson(tools)) : 0;
  }

  /** The estimate learns from the server as usual; model counts are kept as they are. */
  calibrate(estimatedPromptTokens: number, reportedPromptTokens: number): void {
    this.fallback.calibrate(estimatedPromptTokens, reportedPromptTokens);
  }

  /** Settles once nothing is being counted (for tests and for a caller that wants exact counts). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private ask(text: string): void {
    if (this.pending.has(text)) return;
    this.pending.add(text);
    this.count(text).then(
      (n) => {
        this.pending.delete(text);
        if (!Number.isFinite(n) || n < 0) return this.fail();
        if (this.counted.size >= LAZY_COUNT_CACHE_SIZE) this.counted.delete(this.counted.keys().next().value as string);
        this.counted.set(text, Math.round(n));
        this.changed();
      },
      () => {
        this.pending.delete(text);
        this.fail();
      },
    );
  }

  private fail(): void {
    this.broken = true;
    this.pending.clear();
    this.changed();
  }

  /** One redraw for a burst of counts: the owner hears once the last pending count is in. */
  private changed(): void {
    this._revision++;
    if (this.pending.size === 0) this.onCounted();
  }
}
