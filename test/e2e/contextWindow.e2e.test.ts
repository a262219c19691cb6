import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { setFakeModelContext } from './harness/fakeLlm';
import { useWorkbench } from './harness/session';

const MODEL = 'arbor-test-model';

/** Changes what the suite's fake server says of `MODEL` in `/api/show` (`null`: its defaults again). */
const setModelContext = (port: number, context: unknown) => setFakeModelContext(port, MODEL, context);

/** The `num_ctx` of the last chat request the fake server received, and how many it received. */
async function lastNumCtx(port: number): Promise<{ count: number; numCtx: unknown }> {
  const requests = (await (await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`)).json()) as Array<{ rawBody: string }>;
  const last = requests.at(-1);
  return { count: requests.length, numCtx: last ? (JSON.parse(last.rawBody) as { options?: { num_ctx?: unknown } }).options?.num_ctx : undefined };
}

/**
 * Raising an Ollama model's window from the palette: for a model trained for 32,768 tokens and running at
 * Ollama's default 4,096, the picker offers 8,192, 16,384 and 32,768 with the KV cache memory each adds;
 * the choice lands in the user's settings for that model and the next request carries it as `num_ctx`.
 */
describe('raising the context window', () => {
  const env = inject('arborE2e');
  const userSettings = path.join(env.dataDir, 'User', 'settings.json');
  const readUserSettings = async () => JSON.parse(await readFile(userSettings, 'utf8')) as Record<string, unknown>;

  // Before the window opens, so the extension's first /api/show already sees it: llama3.2 3B's attention
  // shape (28 layers × 8 KV heads × 128: 112 KB per token), trained for 32,768 tokens, no num_ctx of its own.
  beforeAll(async () => {
    await setModelContext(env.fakeLlmPort, {
      contextLength: 32_768,
      kv: { blockCount: 28, headCount: 24, headCountKv: 8, embeddingLength: 3072, keyLength: 128, valueLength: 128 },
      details: { parameterSize: '3.2B' },
    });
  });
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  afterAll(async () => {
    await setModelContext(env.fakeLlmPort, null);
    // The files that follow run the model at its default window again.
    const { 'arbor.contextLength': _entry, ...rest } = await readUserSettings();
    await writeFile(userSettings, `${JSON.stringify(rest, null, 2)}\n`);
  });

  it('lists larger sizes with their memory, and the chosen one is kept for the model and sent as num_ctx', async () => {
    const port = env.fakeLlmPort;
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().ask('Before raising', `[${MODEL}] Echo: Before raising`);
    expect((await lastNumCtx(port)).numCtx).toBe(4096);
    expect((await readUserSettings())['arbor.contextLength']).toBeUndefined();

    await session.workbench.runCommand('Arbor: Raise the Context Window…');
    const page = session.workbench.page;
    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await rows.filter({ hasText: '32,768 tokens' }).first().waitFor({ timeout: 20_000 });
    const texts = (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(texts).toHaveLength(3);
    expect(texts[0]).toContain('8,192 tokens');
    expect(texts[0]).toContain('about 448 MB more memory for the KV cache (896 MB in all)');
    expect(texts[1]).toContain('16,384 tokens');
    expect(texts[1]).toContain('about 1.3 GB more memory for the KV cache (1.8 GB in all)');
    expect(texts[2]).toMatch(/32,768 tokens.*trained maximum.*about 3.1 GB more memory for the KV cache \(3.5 GB in all\)/);
    const title = page.locator('.quick-input-widget .quick-input-title');
    expect(await title.textContent()).toBe(`${MODEL} (3.2B, Q4_K_M) runs with a window of 4,096 tokens; it was trained for 32,768`);

    await rows.filter({ hasText: '8,192 tokens' }).first().click();
    await expect.poll(async () => (await readUserSettings())['arbor.contextLength'], { timeout: 15_000 }).toEqual({ [MODEL]: 8192 });

    const before = (await lastNumCtx(port)).count;
    await chat().ask('After raising', `[${MODEL}] Echo: After raising`);
    const after = await lastNumCtx(port);
    expect(after.count).toBeGreaterThan(before);
    expect(after.numCtx).toBe(8192);
  });
});
