import { describe, expect, it } from 'vitest';
import { InvalidOperationError, ProviderError } from '../core/index';
import { isUserAbort, toErrorView } from './errorView';

describe('toErrorView', () => {
  it('adds the fix to a connection failure and keeps kind and retryable', () => {
    const err = new ProviderError('Could not connect to Ollama at http://127.0.0.1:1.', { kind: 'connection', retryable: true, provider: 'ollama' });
    expect(toErrorView(err, 'Start Ollama.')).toEqual({ message: 'Could not connect to Ollama at http://127.0.0.1:1. Start Ollama.', kind: 'connection', retryable: true });
  });
  it('keeps other provider messages as they are', () => {
    const err = new ProviderError('Model "x" not found: run `ollama pull x`.', { kind: 'model_not_found', retryable: false, provider: 'ollama' });
    expect(toErrorView(err, 'Start Ollama.').message).toBe('Model "x" not found: run `ollama pull x`.');
  });
  it('names engine errors and plain errors', () => {
    expect(toErrorView(new InvalidOperationError('No messages yet.'))).toEqual({ message: 'No messages yet.', kind: 'InvalidOperationError', retryable: false });
    expect(toErrorView('boom').message).toBe('boom');
  });
  it('tells a user Stop from a failure', () => {
    const ac = new AbortController();
    const aborted = new ProviderError('cancelled', { kind: 'aborted', retryable: true, provider: 'openai' });
    expect(isUserAbort(aborted, ac.signal)).toBe(false);
    ac.abort();
    expect(isUserAbort(aborted, ac.signal)).toBe(true);
    expect(isUserAbort(new ProviderError('401', { kind: 'auth', retryable: false, provider: 'openai' }), ac.signal)).toBe(false);
  });
});
