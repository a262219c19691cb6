/**
 * One model call's cancellation: it merges the caller's `AbortSignal`, an idle timeout and a total-time cap
 * into a single signal for the HTTP request, and remembers which fired, so the error can say "cancelled",
 * "timed out" or "stopped at the cap". The idle timeout counts time without news from the server: it restarts
 * on every streamed chunk (`touch()`), so a long answer that keeps streaming never times out, but a server
 * that goes silent does. The total-time cap (`maxTotalMs`) never restarts: it ends an answer that streams forever.
 */
export class CallGuard {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private firedBy: 'caller' | 'timeout' | 'deadline' | undefined;
  private disposed = false;

  /** The signal to give the HTTP request. */
  readonly signal: AbortSignal = this.controller.signal;

  /** `maxTotalMs` (0 or absent: none) caps the whole call, however busily the server streams. */
  constructor(private readonly callerSignal: AbortSignal | undefined, readonly timeoutMs: number, readonly maxTotalMs = 0) {
    if (callerSignal?.aborted) {
      this.onCallerAbort();
    } else {
      callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
      this.touch();
      if (maxTotalMs > 0 && Number.isFinite(maxTotalMs)) this.deadline = setTimeout(() => this.fire('deadline'), maxTotalMs);
    }
  }

  /** True when the caller's signal ended the call. */
  get cancelled(): boolean {
    return this.firedBy === 'caller';
  }

  /** True when the idle timeout ended the call. */
  get timedOut(): boolean {
    return this.firedBy === 'timeout';
  }

  /** True when the total-time cap ended the call. */
  get overTime(): boolean {
    return this.firedBy === 'deadline';
  }

  /** True once anything ended the call: read no more of the answer. */
  get stopped(): boolean {
    return this.firedBy !== undefined;
  }

  /** Restarts the idle timer: call it whenever the server sends something. */
  touch(): void {
    if (this.disposed || this.firedBy || !(this.timeoutMs > 0 && Number.isFinite(this.timeoutMs))) return;
    // Called on every streamed chunk: re-arming the one timer costs a quarter of clearing it and making another.
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(() => this.fire('timeout'), this.timeoutMs);
  }

  /** Stops the timer, detaches from the caller's signal and aborts the request if it is still open. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.deadline) clearTimeout(this.deadline);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }

  private readonly onCallerAbort = (): void => this.fire('caller');

  private fire(by: 'caller' | 'timeout' | 'deadline'): void {
    if (this.firedBy || this.disposed) return;
    this.firedBy = by;
    if (this.timer) clearTimeout(this.timer);
    if (this.deadline) clearTimeout(this.deadline);
    const reason = by === 'caller' ? this.callerSignal?.reason
      : by === 'timeout' ? new Error(`No answer within ${this.timeoutMs} ms`) : new Error(`Answer not finished within ${this.maxTotalMs} ms`);
    this.controller.abort(reason);
  }
}
