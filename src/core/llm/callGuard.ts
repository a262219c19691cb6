/**
 * One model call's cancellation: it merges the caller's `AbortSignal` with an idle timeout into a single
 * signal for the HTTP request, and remembers which of the two fired, so the error can say "cancelled" or
 * "timed out". The timeout counts time without news from the server: it restarts on every streamed chunk
 * (`touch()`), so a long answer that keeps streaming never times out, but a server that goes silent does.
 */
export class CallGuard {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firedBy: 'caller' | 'timeout' | undefined;
  private disposed = false;

  /** The signal to give the HTTP request. */
  readonly signal: AbortSignal = this.controller.signal;

  constructor(private readonly callerSignal: AbortSignal | undefined, readonly timeoutMs: number) {
    if (callerSignal?.aborted) {
      this.onCallerAbort();
    } else {
      callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
      this.touch();
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
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }

  private readonly onCallerAbort = (): void => this.fire('caller');

  private fire(by: 'caller' | 'timeout'): void {
    if (this.firedBy || this.disposed) return;
    this.firedBy = by;
    if (this.timer) clearTimeout(this.timer);
    this.controller.abort(by === 'caller' ? this.callerSignal?.reason : new Error(`No answer within ${this.timeoutMs} ms`));
  }
}
