/**
 * The caps on one answer, so a model that never stops (a loop, a broken stop token) cannot fill memory and
 * the store: a most characters (text, reasoning and tool-call arguments together) and a most total time.
 * When one is reached the provider closes the request and fails with a `ProviderError` of kind `limit`,
 * after delivering the text up to the cap, which the conversation keeps as an interrupted answer.
 */

/** Default most characters of one answer: far beyond any real answer, small enough to be harmless. */
export const DEFAULT_MAX_ANSWER_CHARS = 1_000_000;

/** Default most time for one answer, in ms: 10 minutes, enough for a slow local model on a long answer. */
export const DEFAULT_MAX_ANSWER_MS = 600_000;

/** Counts an answer's characters against its cap and cuts the piece that crosses it. */
export class AnswerBudget {
  private used = 0;
  private over = false;

  /** `maxChars` 0 or not finite: no cap. */
  constructor(readonly maxChars: number) {}

  /** True once a piece did not fit: deliver what `take` returned, then stop. */
  get exhausted(): boolean {
    return this.over;
  }

  /** The part of `text` that still fits under the cap (all of it while there is room). */
  take(text: string): string {
    if (!this.capped || text.length === 0) return text;
    const room = Math.max(0, this.maxChars - this.used);
    if (text.length <= room) {
      this.used += text.length;
      return text;
    }
    this.over = true;
    this.used = this.maxChars;
    return text.slice(0, room);
  }

  /** Counts characters that are not delivered piece by piece (streamed tool-call arguments). */
  spend(chars: number): void {
    if (!this.capped || chars <= 0) return;
    this.used += chars;
    if (this.used > this.maxChars) {
      this.over = true;
      this.used = this.maxChars;
    }
  }

  private get capped(): boolean {
    return this.maxChars > 0 && Number.isFinite(this.maxChars);
  }
}
