/**
 * Runs async operations one at a time, in the order they were queued, so that concurrent calls on
 * one conversation never interleave their reads and writes. A failed operation does not block the
 * ones after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(operation);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
