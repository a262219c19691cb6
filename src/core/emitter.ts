import type { Disposable } from './files';

/** A subscribable event, shaped like VS Code's `Event<T>` so the host can pass it straight on. */
export type ArborEvent<T> = (listener: (event: T) => void) => Disposable;

/** Fires events to listeners; a listener that throws does not stop the others. */
export class Emitter<T> {
  private readonly listeners = new Set<(event: T) => void>();

  /** `onListenerError` hears of a listener that threw (e.g. to log it); the other listeners still run. */
  constructor(private readonly onListenerError?: (error: unknown) => void) {}

  /** Subscribe; dispose the result to unsubscribe. */
  readonly event: ArborEvent<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A broken listener must not break the operation that fired the event.
        this.onListenerError?.(error);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
