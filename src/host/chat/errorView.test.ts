import { describe, expect, it } from 'vitest';
import { InvalidOperationError, lmProviderError, ProviderError } from '../../core/index';
import { MissingApiKeyError, MissingSystemPromptError, isNoServer, isUserAbort, toErrorView } from './errorView';
import { TOUR_SERVER_ENV } from '../onboarding/firstRun';
import { TeamStoreUnavailableError, teamStoreFailure } from '../stores/teamStoreErrors';
import { useTourScript } from '../../../test/fixtures/tourScript';

describe('toErrorView', () => {
  it('keeps a provider message, kind and retryable, and knows an unreachable server', () => {
    const err = new ProviderError('Cannot reach Ollama at http://127.0.0.1:1.', { kind: 'connection', retryable: true, provider: 'ollama' });
    // The first-run choice: Ollama or an OpenAI-compatible server (the tour only under `npm start`), then the settings.
    expect(toErrorView(err)).toEqual({
      message: 'Cannot reach Ollama at http://127.0.0.1:1. No model server yet? Choose one below, then Retry.',
      kind: 'connection',
      retryable: true,
      actions: [
        { command: 'arbor.firstRun.useOllama', title: 'Use Ollama…' },
        { command: 'arbor.firstRun.useOpenAICompatible', title: 'Set an OpenAI-Compatible URL and Key…' },
        { command: 'arbor.openSettings', title: 'Open Settings' },
      ],
    });
    expect(isNoServer(err)).toBe(true);
    expect(isNoServer(new ProviderError('Model "x" not found.', { kind: 'model_not_found', retryable: false, provider: 'ollama' }))).toBe(false);
  });
  it('offers the fix as buttons: the key, the model, or the settings', () => {
    const commands = (err: unknown) => (toErrorView(err).actions ?? []).map((a) => a.command);
    expect(toErrorView(new MissingApiKeyError('No OpenAI API key is set.'))).toMatchObject({ kind: 'auth', retryable: true });
    expect(commands(new MissingApiKeyError('No OpenAI API key is set.'))).toEqual(['arbor.setOpenAIKey', 'arbor.openSettings']);
    // A missing system prompt is fixed in the chat's header; then Retry sends the message.
    expect(toErrorView(new MissingSystemPromptError('This chat uses the system prompt "x"…'))).toEqual({ message: 'This chat uses the system prompt "x"…', kind: 'prompt', retryable: true });
    expect(commands(new ProviderError('401', { kind: 'auth', retryable: false, provider: 'openai' }))).toEqual(['arbor.setOpenAIKey', 'arbor.openSettings']);
    expect(commands(new ProviderError('401', { kind: 'auth', retryable: false, provider: 'ollama' }))).toEqual(['arbor.openSettings']);
    expect(commands(new ProviderError('Model "x" not found.', { kind: 'model_not_found', retryable: false, provider: 'ollama' }))).toEqual(['arbor.selectModel']);
    expect(toErrorView(new ProviderError('slow down', { kind: 'rate_limit', retryable: true, provider: 'openai' })).actions).toBeUndefined();
    expect(toErrorView(new Error('boom')).actions).toBeUndefined();
  });
  it("offers another model for VS Code's consent, quota and missing-model errors, and never calls them an unreachable server", () => {
    const commands = (err: unknown) => (toErrorView(err).actions ?? []).map((a) => a.command);
    const noPermission = lmProviderError(Object.assign(new Error('cannot be used'), { name: 'LanguageModelError', code: 'NoPermissions' }), { model: 'vscode:copilot/gpt-4o' });
    expect(toErrorView(noPermission)).toMatchObject({ kind: 'auth', retryable: true });
    expect(commands(noPermission)).toEqual(['arbor.selectModel']);
    expect(isNoServer(noPermission)).toBe(false);
    expect(commands(lmProviderError(new Error('You have exceeded your quota'), { model: 'vscode:copilot/gpt-4o' }))).toEqual(['arbor.selectModel']);
    expect(commands(lmProviderError(Object.assign(new Error('gone'), { name: 'LanguageModelError', code: 'NotFound' }), { model: 'vscode:copilot/gpt-4o' }))).toEqual(['arbor.selectModel']);
    expect(commands(lmProviderError(new Error('boom'), { model: 'vscode:copilot/gpt-4o' }))).toEqual([]);
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

describe('toErrorView of the team store', () => {
  it('names a server that refused the connection, with Retry and the settings and password actions', async () => {
    const { createServer } = await import('node:net');
    const { Client } = await import('pg');
    // A port nothing listens on: take a free one, then close it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await new Client({ connectionString: `postgres://alice@127.0.0.1:${port}/arbor` }).connect().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(teamStoreFailure(refused)).toBe('unreachable');
    const view = toErrorView(refused);
    expect(view).toMatchObject({ kind: 'connection', retryable: true });
    expect(view.message).toMatch(/^Could not use the team store: .*ECONNREFUSED.*Check that the server is running/);
    expect((view.actions ?? []).map((a) => a.command)).toEqual(['arbor.openSettings', 'arbor.setTeamStorePassword']);
    const named = TeamStoreUnavailableError.wrap(refused, `alice@127.0.0.1:${port}/arbor`);
    expect(named.message).toContain(`team store alice@127.0.0.1:${port}/arbor:`);
  });

  it('offers the password first when the role was refused, and leaves other errors alone', () => {
    const refusedRole = Object.assign(new Error('password authentication failed for user "alice"'), { code: '28P01' });
    expect(teamStoreFailure(refusedRole)).toBe('auth');
    expect((toErrorView(refusedRole).actions ?? []).map((a) => a.command)).toEqual(['arbor.setTeamStorePassword', 'arbor.openSettings']);
    expect(teamStoreFailure(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(toErrorView(new Error('boom')).kind).toBe('unknown');
  });
});

describe('the first-run choice on an error', () => {
  const tourScript = useTourScript(TOUR_SERVER_ENV);

  it('offers the tour first to an unreachable server when the launcher is there, and the choice to no other failure', async () => {
    const script = await tourScript();
    // An unreachable server gets the tour first when it is there; other failures never get the choice.
    process.env[TOUR_SERVER_ENV] = script;
    const refused = new ProviderError('Cannot reach Ollama at http://127.0.0.1:1 (connection refused).', { kind: 'connection', retryable: true, provider: 'ollama' });
    expect(toErrorView(refused).actions?.map((a) => a.command)).toEqual(['arbor.firstRun.startTour', 'arbor.firstRun.useOllama', 'arbor.firstRun.useOpenAICompatible', 'arbor.openSettings']);
    const notFound = new ProviderError('Model "x" not found.', { kind: 'model_not_found', retryable: false, provider: 'ollama' });
    expect(toErrorView(notFound).actions?.map((a) => a.command)).toEqual(['arbor.selectModel']);
    // A misconfigured address (no Retry) keeps its own message, without the lead that promises one.
    const badPort = new ProviderError('Cannot reach Ollama: a "bad port".', { kind: 'connection', retryable: false, provider: 'ollama' });
    expect(toErrorView(badPort).message).toBe('Cannot reach Ollama: a "bad port".');
  });
});
