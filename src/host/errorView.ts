/**
 * Turns any failure into the `ErrorView` the chat shows, keeping a provider's actionable message,
 * and tells a model server that cannot be reached from other failures. Pure.
 */
import { ArborError, ProviderError } from '../core/index';
import type { ErrorView } from '../shared/protocol';

/** Whether the failure means no model server answered at all (not running, wrong host, bad key). */
export function isNoServer(err: unknown): boolean {
  return err instanceof ProviderError && (err.kind === 'connection' || err.kind === 'auth');
}

/** The chat's view of an error (the providers' messages already say what to do). */
export function toErrorView(err: unknown): ErrorView {
  if (err instanceof ProviderError) return { message: err.message, kind: err.kind, retryable: err.retryable };
  if (err instanceof ArborError) return { message: err.message, kind: err.name, retryable: false };
  if (err instanceof Error) return { message: err.message, kind: 'unknown', retryable: true };
  return { message: String(err), kind: 'unknown', retryable: true };
}

/** Whether the failure is the user's own Stop (the partial answer is kept, no error shown). */
export function isUserAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (!(err instanceof ProviderError) || err.kind === 'aborted');
}
