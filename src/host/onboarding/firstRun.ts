/**
 * The first-run choice a chat offers when no model server answers at the configured address: a tour
 * with the repository's fake model server (only under `npm start`, which says where its launcher is),
 * Ollama on this machine, or an OpenAI-compatible server. Pure (no `vscode`): the buttons, when they
 * are offered, and the checks on what the person types.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ErrorAction } from '../../shared/protocol';

/**
 * Set by `npm start` (scripts/start.mjs) for the VS Code it runs: the absolute path of
 * scripts/tourServer.mjs, which starts the fake model server and prints its address. Unset anywhere
 * else, so an installed extension never offers the tour.
 */
export const TOUR_SERVER_ENV = 'ARBOR_TOUR_SERVER';

/** The model the fake model server answers as (its first model). */
export const TOUR_MODEL = 'arbor-test-model';

export const START_TOUR: ErrorAction = { command: 'arbor.firstRun.startTour', title: 'Start the Fake Model Server for a Tour' };
export const USE_OLLAMA: ErrorAction = { command: 'arbor.firstRun.useOllama', title: 'Use Ollama…' };
export const USE_OPENAI_COMPATIBLE: ErrorAction = { command: 'arbor.firstRun.useOpenAICompatible', title: 'Set an OpenAI-Compatible URL and Key…' };

/** The sentence after "cannot reach" that introduces the buttons. */
export const FIRST_RUN_LEAD = 'No model server yet? Choose one below, then Retry.';

/** The tour launcher `env` names, when it is an absolute path to a file that exists; otherwise undefined. */
export function tourServerScript(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const script = env[TOUR_SERVER_ENV];
  return script && path.isAbsolute(script) && existsSync(script) ? script : undefined;
}

/** The buttons of the first-run choice, the tour first when it is available. */
export function firstRunActions(tourAvailable: boolean): ErrorAction[] {
  return [...(tourAvailable ? [START_TOUR] : []), USE_OLLAMA, USE_OPENAI_COMPATIBLE];
}

/** Why `text` is not a usable base URL of an OpenAI-compatible API (http or https, with a host), or undefined when it is. */
export function baseUrlProblem(text: string): string | undefined {
  const value = text.trim();
  if (!value) return 'Type the server\'s base URL, e.g. http://127.0.0.1:8000/v1 or https://api.openai.com/v1.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL: write it with its scheme, e.g. http://127.0.0.1:8000/v1.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL must start with http:// or https://, e.g. http://127.0.0.1:8000/v1.';
  if (url.search || url.hash) return 'The base URL takes no ?query or #fragment: Arbor adds the API paths (/chat/completions) itself.';
  return undefined;
}

/** The address `tourServer.mjs` printed (`listening on http://127.0.0.1:PORT`), or undefined for any other line. */
export function tourServerAddress(line: string): string | undefined {
  return /^listening on (http:\/\/127\.0\.0\.1:\d+)\s*$/.exec(line)?.[1];
}

/** What "Use Ollama" tells the person: how to get it running at `host`, and that Retry then sends the message. */
export function ollamaSteps(host: string, model: string): string {
  return `Arbor asks Ollama at ${host}. Install it from https://ollama.com/download, start it with "ollama serve", fetch a model with "ollama pull ${model}", then press Retry in the chat.`;
}
