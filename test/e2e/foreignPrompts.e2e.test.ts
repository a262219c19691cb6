import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** What the fake model server was sent: every chat request's parsed body. */
async function sentRequests(port: number): Promise<Array<{ model?: string; messages?: Array<{ role: string; content: string }> }>> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  const requests = (await response.json()) as Array<{ rawBody: string }>;
  return requests.map((r) => JSON.parse(r.rawBody) as { model?: string; messages?: Array<{ role: string; content: string }> });
}

const PROMPT = `---
description: Explain a topic with the selected code (e2e)
model: arbor-test-model-2
---
Explain \${input:topic:the subject to explain} using this code:

\${selection}

Formatting helpers are in #file:src/format.ts.
`;

/**
 * A Copilot prompt file (`.github/prompts/*.prompt.md`) in the `/` menu: listed as Copilot's, its
 * `${input:topic}` a field of the form, sent with the field and the editor's selection filled in, its
 * `#file:` reference attached, and answered by the model its front matter names.
 */
describe("another tool's prompt file", () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const promptFile = () => path.join(session.env.workspace, '.github/prompts/explain-topic.prompt.md');

  afterAll(async () => {
    await rm(path.join(session.env.workspace, '.github'), { recursive: true, force: true });
  });

  it('is offered by / as Copilot\'s, fills its field and the selection, attaches #file and uses its model', async () => {
    const { page } = session.workbench;
    await mkdir(path.dirname(promptFile()), { recursive: true });
    await writeFile(promptFile(), PROMPT);
    const formatTs = await readFile(path.join(session.env.workspace, 'src/format.ts'), 'utf8');
    const formatLine = formatTs.split('\n').find((l) => l.trim().length > 20)?.trim() ?? formatTs.trim().slice(0, 40);

    // Select subtotalCents in cart.ts (lines 22 to 25).
    await session.workbench.runCommand('Go to File');
    await page.keyboard.type('cart.ts');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'cart.ts' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.part.editor .view-lines', { hasText: 'subtotalCents' }).first().waitFor({ timeout: 15_000 });
    await session.workbench.runCommand('Go to Line/Column');
    await page.keyboard.type('22');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowDown');

    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const input = chat().input();
    const option = chat().frame.locator('[data-testid="prompt-option"]', { hasText: 'explain-topic' }).first();
    // The prompt list is read in the background after the chat opens: type the trigger again until it is there.
    await expect
      .poll(
        async () => {
          await input.fill('');
          await input.pressSequentially('/explain-topic');
          return option.isVisible();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(true);
    expect(await option.textContent()).toContain('Copilot');
    await option.click();

    const field = chat().frame.locator('[data-testid="prompt-param"][data-name="topic"]');
    await field.waitFor({ timeout: 10_000 });
    expect(await chat().byTestId('prompt-form-name').textContent()).toBe('/explain-topic');
    expect(await chat().byTestId('prompt-form-source').textContent()).toBe('Copilot');
    expect(await field.getAttribute('placeholder')).toBe('the subject to explain');
    const before = (await sentRequests(session.env.fakeLlmPort)).length;
    await field.fill('TOPIC-rounding-of-cents');
    await input.click();
    await input.press('Enter');

    // The model the front matter names answers (the fake model prefixes its answers with the model).
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('[arbor-test-model-2]');
    await chat().waitIdle();
    const requests = (await sentRequests(session.env.fakeLlmPort)).slice(before);
    expect(requests.length).toBeGreaterThan(0);
    const request = requests[requests.length - 1];
    expect(request.model?.replace(/:latest$/, '')).toBe('arbor-test-model-2');
    const sent = request.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    expect(sent).toContain('Explain TOPIC-rounding-of-cents using this code:');
    expect(sent).toContain('subtotalCents');
    expect(sent).not.toContain('${selection}');
    // The #file: reference went with the message as an attachment: the file's text follows the prompt.
    expect(sent).toContain('Formatting helpers are in #file:src/format.ts.');
    expect(sent).toContain(formatLine);
    // The message shows the prompt's chip with its file, and the attachment.
    const message = chat().messagesOf('user').last();
    expect(await message.locator('[data-testid="prompt-chip-name"]').textContent()).toBe('/explain-topic');
    expect(await message.locator('[data-testid="chip"], [data-testid="attachment"]', { hasText: 'format.ts' }).count()).toBeGreaterThan(0);
  });
});
