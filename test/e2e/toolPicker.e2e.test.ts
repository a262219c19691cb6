import { describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../fixtures/fakeLlmServer';
import { ChatPage } from './harness/chat';
import { installLmToolExtension, writeUserSettings } from './harness/codeServer';
import { LARGE_WINDOW } from './harness/fakeLlm';
import { ToolPicker } from './harness/toolPicker';
import { useOwnWorkbench } from './harness/session';

/**
 * The tools picker of a chat ("Choose tools…" in its header): what is ticked there is what the next
 * request carries, read in the body the fake model server of this test's own process received. The
 * built-in tools are on until unticked; a tool another extension registers with VS Code (the leaf
 * counter fixture, packaged and installed as a user would) is off until ticked. Its own VS Code on its
 * own sandbox, so the picker's default in the global state starts empty.
 */
describe('the tools picker', () => {
  // Every tool at once: a window larger than Ollama's default 4,096 tokens, so what is sent is what was ticked, not what fits.
  const model = new FakeLlmServer({ modelContext: { 'arbor-test-model': LARGE_WINDOW.context } });
  const session = useOwnWorkbench('toolPicker', {
    before: () => model.start().then(() => undefined),
    fakeLlmPort: () => Number(new URL(model.url).port),
    prepare: async (sandbox) => {
      await writeUserSettings(sandbox, LARGE_WINDOW.settings, { merge: true });
      await installLmToolExtension(sandbox);
    },
    after: () => model.stop(),
  });
  const chat = () => new ChatPage(session.workbench);
  const picker = () => new ToolPicker(session.workbench, chat());

  /** The tool names of the last chat request the fake server received. */
  function lastRequestTools(): string[] {
    const requests = model.chatRequests();
    expect(requests.length).toBeGreaterThan(0);
    const tools = (requests[requests.length - 1].body as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
    return tools.map((t) => t.function.name);
  }

  /** Sends `text` and waits for its answer, so the request it made is recorded. */
  async function ask(text: string): Promise<void> {
    const before = model.chatRequests().length;
    await chat().send(text);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain(text);
    await chat().waitIdle();
    expect(model.chatRequests().length).toBeGreaterThan(before);
  }

  it('sends the built-in tools and not another extension\'s tool before anything is chosen', async () => {
    await ask('Which tools do you have?');
    const tools = lastRequestTools();
    expect(tools).toContain('list_files');
    expect(tools).toContain('read_file');
    expect(tools).not.toContain('leaf_counter');
  });

  it('lists every tool with its cost, ticked as the next request will carry it', async () => {
    await picker().open();
    const listFiles = picker().row('list_files').first();
    expect(await listFiles.textContent()).toMatch(/~\d[\d,]* tokens/);
    expect(await picker().ticked('list_files')).toBe(true);
    expect(await picker().ticked('leaf_counter')).toBe(false);
    // Grouped under headings: the built-in tools, then other extensions'.
    await picker().widget.locator('.quick-input-box input').fill('');
    expect(await picker().widget.locator('.quick-input-list-separator', { hasText: 'Built-in' }).count()).toBeGreaterThan(0);
    await session.workbench.screenshot('tool-picker-open');
    await picker().cancel();
  });

  it('leaves an unticked tool out of the next request, and sends it again once ticked back', async () => {
    await picker().open();
    await picker().toggle('list_files');
    await picker().accept();
    await ask('Now without listing files.');
    expect(lastRequestTools()).not.toContain('list_files');
    expect(lastRequestTools()).toContain('read_file');

    await picker().open();
    expect(await picker().ticked('list_files')).toBe(false);
    await picker().toggle('list_files');
    await picker().accept();
    await ask('And with listing files again.');
    expect(lastRequestTools()).toContain('list_files');
  });

  it('sends another extension\'s tool once it is ticked, and the model can call it', async () => {
    await picker().open();
    await picker().toggle('leaf_counter');
    await picker().accept();
    await ask('Count them.');
    expect(lastRequestTools()).toContain('leaf_counter');
    // Ticked is offered, not allowed: its call still asks.
    await chat().send('How many leaves? [[tool:leaf_counter {"tree":"oak"}]]');
    const card = chat().frame.locator('[data-testid="tool-card"][data-tool="leaf_counter"]').last();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await card.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('The oak has 1234 leaves.');
    await chat().waitIdle();
  });

  it('keeps each chat\'s choice its own: a new chat starts from the default', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('A fresh chat.');
    expect(lastRequestTools()).toContain('list_files');
    expect(lastRequestTools()).not.toContain('leaf_counter');
  });

  it('saves the ticks and pins as the default for new chats from the title bar', async () => {
    await picker().open();
    await picker().togglePin('read_file');
    expect(await picker().pinned('read_file')).toBe(true);
    await picker().toggle('leaf_counter', 'grep');
    await picker().saveAsDefault();
    await session.workbench.screenshot('tool-picker-saved-default');
    // Closed without accepting: this chat made no choice of its own, so it follows the new default too.
    await picker().cancel();
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('A chat after the default changed.');
    expect(lastRequestTools()).toContain('leaf_counter');
    expect(lastRequestTools()).not.toContain('grep');
    expect(lastRequestTools()).toContain('read_file');
    await picker().open();
    expect(await picker().pinned('read_file')).toBe(true);
    expect(await picker().pinned('list_files')).toBe(false);
    expect(await picker().ticked('leaf_counter')).toBe(true);
    await picker().cancel();
  });

  it('opens from the command palette for the active chat', async () => {
    await session.workbench.runCommand('Arbor: Choose Tools for This Chat…');
    await picker().widget.locator('.monaco-list-row', { hasText: 'tokens' }).first().waitFor({ timeout: 60_000 });
    await picker().toggle('read_file');
    await picker().accept();
    await ask('Without reading files.');
    expect(lastRequestTools()).not.toContain('read_file');
    expect(lastRequestTools()).toContain('leaf_counter');
  });
});
