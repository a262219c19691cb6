import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './codeServer';
import { freePort, spawnGroup, waitForPort, type GroupProcess } from './processes';

/** The fake model server (test/fixtures/fakeLlmServer.ts) running as its own process. */
export interface RunningFakeLlm {
  port: number;
  /** Base URL for the Ollama wire format. */
  ollamaHost: string;
  /** Base URL for the OpenAI wire format. */
  openaiBaseUrl: string;
  process: GroupProcess;
  stop(): Promise<void>;
}

/** The fake server's script; it answers in both wire formats on one port. */
export const FAKE_LLM_SCRIPT = path.join(REPO_ROOT, 'test/fixtures/fakeLlmServer.ts');

/** Starts the fake model server standalone (`tsx fakeLlmServer.ts --port N`), reporting usage counted as a model server counts it (`--prompt-tokens o200k`), and waits until it listens. */
export async function startFakeLlm(options: { port?: number; echo?: boolean } = {}): Promise<RunningFakeLlm> {
  if (!existsSync(FAKE_LLM_SCRIPT)) {
    throw new Error(`the fake model server ${path.relative(REPO_ROOT, FAKE_LLM_SCRIPT)} does not exist yet`);
  }
  const port = options.port ?? (await freePort());
  const tsx = path.join(REPO_ROOT, 'node_modules/.bin/tsx');
  const proc = spawnGroup(tsx, [FAKE_LLM_SCRIPT, '--port', String(port), '--prompt-tokens', 'o200k'], { cwd: REPO_ROOT, echo: options.echo });
  await waitForPort(port, 30_000, proc);
  return {
    port,
    ollamaHost: `http://127.0.0.1:${port}`,
    openaiBaseUrl: `http://127.0.0.1:${port}/v1`,
    process: proc,
    stop: () => proc.stop(),
  };
}

/** The `arbor.*` settings that point the extension at a running fake server. */
export function fakeLlmSettings(server: RunningFakeLlm, provider: 'ollama' | 'openai' = 'ollama', model = 'arbor-test-model'): Record<string, unknown> {
  return {
    'arbor.provider': provider,
    'arbor.model': model,
    'arbor.ollama.host': server.ollamaHost,
    'arbor.openai.baseUrl': server.openaiBaseUrl,
  };
}

/**
 * Changes what the suite's fake server says of `model` in `/api/show` (`context` as `FakeModelContext`;
 * `null`: its defaults again), e.g. a longer trained context for a file whose chats need a large window.
 */
export async function setFakeModelContext(port: number, model: string, context: unknown): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/model-context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, context }) });
  if (response.status !== 200) throw new Error(`the fake server refused the model context: ${response.status} ${await response.text()}`);
}

/**
 * The user settings and fake-server context of a window of `tokens` for the fake's `arbor-test-model`: for
 * files whose chats carry more than Ollama's default 4,096-token `num_ctx` (every tool at once, long tool runs).
 */
export const LARGE_WINDOW = { tokens: 32_768, settings: { 'arbor.contextLength': { 'arbor-test-model': 32_768 } }, context: { contextLength: 32_768 } } as const;
