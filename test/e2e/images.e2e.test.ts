import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../fixtures/fakeLlmServer';
import { makePng } from '../fixtures/pngImages';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Images in the chat, as a person pastes one: a PNG pasted into the message box shows as a thumbnail,
 * goes with the message, shows on the sent message, and reaches the model server in its wire format,
 * checked in the body of the request a fake server in this test's own process records: OpenAI
 * `image_url` content parts first, then, with the provider setting switched, Ollama's base64 `images`.
 */
describe('images in messages', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const server = new FakeLlmServer();
  const settingsFile = () => path.join(session.env.workspace, '.vscode', 'settings.json');
  const png = makePng(40, 30, 5);
  const base64 = Buffer.from(png).toString('base64');

  async function setWorkspaceSettings(patch: Record<string, unknown>): Promise<void> {
    const current = JSON.parse(await readFile(settingsFile(), 'utf8').catch(() => '{}')) as Record<string, unknown>;
    await mkdir(path.dirname(settingsFile()), { recursive: true });
    await writeFile(settingsFile(), `${JSON.stringify({ ...current, ...patch }, null, 2)}\n`);
  }

  /** Pastes the PNG into the message box: a ClipboardEvent whose DataTransfer holds it as a file. */
  async function pastePng(name: string): Promise<void> {
    await chat().input().click();
    await chat()
      .input()
      .evaluate(
        (textarea, { data, fileName }) => {
          // Browser globals, typed here because this file compiles without the DOM library.
          const page = globalThis as unknown as {
            DataTransfer: new () => { items: { add(file: unknown): void } };
            ClipboardEvent: new (type: string, init: Record<string, unknown>) => unknown;
          };
          const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
          const transfer = new page.DataTransfer();
          transfer.items.add(new File([bytes], fileName, { type: 'image/png' }));
          (textarea as unknown as { dispatchEvent(event: unknown): boolean }).dispatchEvent(
            new page.ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true, composed: true }),
          );
        },
        { data: base64, fileName: name },
      );
  }

  /** The body of the last chat request of `api` the fake server received. */
  function lastRequest(api: 'openai' | 'ollama'): { messages: Array<Record<string, unknown>> } {
    const requests = server.chatRequests().filter((r) => r.api === api);
    expect(requests.length).toBeGreaterThan(0);
    return requests[requests.length - 1].body as { messages: Array<Record<string, unknown>> };
  }

  async function pasteAndSend(question: string, provider: 'openai' | 'ollama'): Promise<void> {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('chat-model').filter({ hasText: provider }).waitFor({ timeout: 30_000 });
    await pastePng('diagram.png');
    const thumb = chat().byTestId('composer-image-thumb');
    await thumb.waitFor({ timeout: 15_000 });
    expect(await thumb.getAttribute('alt')).toBe('diagram.png');
    expect(await thumb.getAttribute('src')).toBe(`data:image/png;base64,${base64}`);
    // A thumbnail can be removed, and pasted again.
    await chat().byTestId('remove-image').click();
    await thumb.waitFor({ state: 'detached', timeout: 10_000 });
    await pastePng('diagram.png');
    await thumb.waitFor({ timeout: 15_000 });
    const before = server.chatRequests().length;
    await chat().send(question);
    await expect.poll(() => server.chatRequests().length, { timeout: 30_000 }).toBeGreaterThan(before);
    await chat().waitIdle();
    // The composer is empty again; the sent message shows its image.
    expect(await chat().byTestId('composer-image').count()).toBe(0);
    const shown = chat().messagesOf('user').last().locator('[data-testid="message-image"]');
    await shown.waitFor({ timeout: 15_000 });
    expect(await shown.getAttribute('alt')).toBe('diagram.png');
  }

  beforeAll(async () => {
    await server.start();
    await setWorkspaceSettings({
      'arbor.provider': 'openai',
      'arbor.model': 'arbor-test-model',
      'arbor.openai.baseUrl': server.openaiBaseUrl,
      'arbor.ollama.host': server.url,
    });
  });

  afterAll(async () => {
    await rm(path.dirname(settingsFile()), { recursive: true, force: true });
    // Back on the suite's fake Ollama server for the files that follow.
    await chat().byTestId('chat-model').filter({ hasText: 'ollama' }).waitFor({ timeout: 15_000 }).catch(() => undefined);
    await server.stop();
  });

  it('sends a pasted PNG to an OpenAI-compatible server as an image_url part beside the text', async () => {
    await pasteAndSend('What does this diagram show?', 'openai');
    const user = lastRequest('openai').messages.find((m) => m.role === 'user');
    expect(user?.content).toEqual([
      { type: 'text', text: 'What does this diagram show?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${base64}` } },
    ]);
  }, 120_000);

  it('sends it to Ollama as base64 in the message images once the provider setting says Ollama', async () => {
    await setWorkspaceSettings({ 'arbor.provider': 'ollama' });
    await pasteAndSend('And in Ollama?', 'ollama');
    const user = lastRequest('ollama').messages.find((m) => m.role === 'user');
    expect(user).toMatchObject({ role: 'user', content: 'And in Ollama?', images: [base64] });
  }, 120_000);
});
