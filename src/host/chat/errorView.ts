/**
 * Turns any failure into the `ErrorView` the chat shows, keeping a provider's actionable message,
 * and tells a model server that cannot be reached from other failures. Pure.
 */
import { ArborError, ProviderError, RequestTooLargeError, VSCODE_PROVIDER_NAME } from '../../core/index';
import type { ErrorAction, ErrorView } from '../../shared/protocol';
import { FIRST_RUN_LEAD, firstRunActions, tourServerScript } from '../onboarding/firstRun';
import { TeamStoreUnavailableError, teamStoreFailure } from '../stores/teamStoreErrors';

/** OpenAI's API was chosen and no key is stored: found before anything is sent. */
export class MissingApiKeyError extends ArborError {}

/** The chat's system prompt is not in `prompts/system/` (any more): found before anything is sent. */
export class MissingSystemPromptError extends ArborError {}

export const SET_OPENAI_KEY: ErrorAction = { command: 'arbor.setOpenAIKey', title: 'Set OpenAI API Key' };
export const SELECT_MODEL: ErrorAction = { command: 'arbor.selectModel', title: 'Select Model' };
export const OPEN_SETTINGS: ErrorAction = { command: 'arbor.openSettings', title: 'Open Settings' };
export const SET_TEAM_STORE_PASSWORD: ErrorAction = { command: 'arbor.setTeamStorePassword', title: 'Set Team Store Password' };

/** The buttons that fix a failure: the key, the model, or the server address in the settings. */
export function errorActions(err: unknown): ErrorAction[] {
  if (err instanceof MissingApiKeyError) return [SET_OPENAI_KEY, OPEN_SETTINGS];
  if (!(err instanceof ProviderError)) return [];
  // VS Code's models: consent, quota and a model gone are fixed in VS Code or by another model, never in Arbor's settings.
  if (err.provider === VSCODE_PROVIDER_NAME) return ['auth', 'model_not_found', 'rate_limit'].includes(err.kind) ? [SELECT_MODEL] : [];
  switch (err.kind) {
    case 'auth':
      return err.provider === 'openai' ? [SET_OPENAI_KEY, OPEN_SETTINGS] : [OPEN_SETTINGS];
    case 'model_not_found':
      return [SELECT_MODEL];
    case 'connection':
      // No model server answers: the first-run choice (src/host/firstRun.ts), then the settings.
      return [...firstRunActions(tourServerScript() !== undefined), OPEN_SETTINGS];
    default:
      return [];
  }
}

/** Whether the failure means no model server answered at all (not running, wrong host, bad key). */
export function isNoServer(err: unknown): boolean {
  return err instanceof ProviderError && err.provider !== VSCODE_PROVIDER_NAME && (err.kind === 'connection' || err.kind === 'auth');
}

/** The chat's view of an error (the providers' messages already say what to do). */
export function toErrorView(err: unknown): ErrorView {
  // The team store could not be reached or refused the role: Retry once it answers (the message waits as a draft).
  if (err instanceof TeamStoreUnavailableError || teamStoreFailure(err)) {
    const wrapped = TeamStoreUnavailableError.wrap(err);
    const actions = wrapped.failure === 'auth' ? [SET_TEAM_STORE_PASSWORD, OPEN_SETTINGS] : [OPEN_SETTINGS, SET_TEAM_STORE_PASSWORD];
    return { message: wrapped.message, kind: 'connection', retryable: true, actions };
  }
  const actions = errorActions(err);
  const withActions = actions.length ? { actions } : {};
  // Once the key is set, Retry sends the message that waited for it.
  if (err instanceof MissingApiKeyError) return { message: err.message, kind: 'auth', retryable: true, ...withActions };
  // Once another prompt is picked (or the file is back), Retry sends the message.
  if (err instanceof MissingSystemPromptError) return { message: err.message, kind: 'prompt', retryable: true };
  if (err instanceof ProviderError) {
    const message = isNoServer(err) && err.kind === 'connection' && err.retryable ? `${err.message} ${FIRST_RUN_LEAD}` : err.message;
    return { message, kind: err.kind, retryable: err.retryable, ...withActions };
  }
  // Nothing was sent: fewer tools or a larger window make it fit, then Retry sends it.
  if (err instanceof RequestTooLargeError) {
    return { message: `${err.message} Nothing was sent.`, kind: 'window', retryable: true, actions: [{ command: 'arbor.chooseTools', title: 'Choose Tools…' }, { command: 'arbor.raiseContextWindow', title: 'Raise the Window…' }] };
  }
  if (err instanceof ArborError) return { message: err.message, kind: err.name, retryable: false };
  if (err instanceof Error) return { message: err.message, kind: 'unknown', retryable: true };
  return { message: String(err), kind: 'unknown', retryable: true };
}

/** Whether the failure is the user's own Stop (the partial answer is kept, no error shown). */
export function isUserAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted && (!(err instanceof ProviderError) || err.kind === 'aborted');
}
