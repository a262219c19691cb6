import type * as vscode from 'vscode';

/**
 * Wraps a function as a disposable that calls it once, e.g. to clear a timer when its owner goes.
 * (VS Code's `toDisposable` in `src/vs/base/common/lifecycle.ts`.)
 */
export function toDisposable(dispose: () => void): vscode.Disposable {
  let done = false;
  return {
    dispose: () => {
      if (done) return;
      done = true;
      dispose();
    },
  };
}

/**
 * A base class for objects that own other disposables (subscriptions, emitters, watchers, timers):
 * each is handed to `_register` when it is made, and `dispose()` disposes them all, last registered
 * first, exactly once. (VS Code's `Disposable` in `src/vs/base/common/lifecycle.ts`.) Only the
 * `vscode.Disposable` type is used, so it runs and is tested without VS Code.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly _toDispose: vscode.Disposable[] = [];
  private _isDisposed = false;

  /** Whether `dispose()` has been called. */
  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Takes ownership of `d`, to be disposed with this object, and returns it. Registering after
   * `dispose()` disposes `d` at once, so a late subscription is not leaked.
   */
  protected _register<T extends vscode.Disposable>(d: T): T {
    if ((d as unknown) === this) throw new Error('A disposable cannot register itself.');
    if (this._isDisposed) d.dispose();
    else this._toDispose.push(d);
    return d;
  }

  /**
   * Disposes everything registered, in reverse order, once; later calls do nothing. One that throws
   * does not stop the others: the error (or an `AggregateError` of several) is rethrown at the end.
   */
  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    const errors: unknown[] = [];
    for (const d of this._toDispose.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'Several disposables failed to dispose.');
  }
}
