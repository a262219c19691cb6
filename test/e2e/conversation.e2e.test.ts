import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { REPO_ROOT } from './harness/codeServer';
import { useWorkbench } from './harness/session';

/**
 * The main story, in order, on one conversation: each step builds on the one before, as a person
 * would use Arbor. The fake model answers "[<model>] Echo: <message>"; `[[slow]]` streams 200 numbered
 * tokens 100 ms apart.
 */
describe('a conversation in the chat and the tree', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const question = 'What is a tree?';
  const answer = `[arbor-test-model] Echo: ${question}`;
  const branchQuestion = 'Tell me about forests instead';
  let stoppedText = '';

  it('opens the Arbor view from the activity bar', async () => {
    await session.workbench.openArborView();
    expect(await session.workbench.sidebarTitle().textContent()).toMatch(/arbor/i);
  });

  it('starts a new conversation from the command palette', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    expect(await chat().messages().count()).toBe(0);
  });

  it('sends a message and shows the streamed answer under it', async () => {
    await chat().send(question);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(answer);
    await chat().waitIdle();
    expect(await chat().textOf(chat().messagesOf('user').last())).toBe(question);
    expect(await chat().lastAnswer().locator('[data-testid="message-model"]').textContent()).toContain('arbor-test-model');
  });

  it('stops an answer mid-stream and keeps the partial text, marked as stopped', async () => {
    await chat().send('[[slow]] count to two hundred');
    const streaming = chat().frame.locator('[data-testid="message"][data-streaming="true"]');
    await streaming.waitFor({ timeout: 30_000 });
    // The text grows while it streams: two different non-empty snapshots.
    await expect.poll(() => chat().textOf(streaming), { timeout: 30_000 }).toMatch(/\] 1 2 3/);
    const early = await chat().textOf(streaming);
    await expect.poll(() => chat().textOf(streaming), { timeout: 30_000 }).not.toBe(early);
    await chat().byTestId('stop').click();
    await chat().waitIdle();
    const last = chat().lastAnswer();
    stoppedText = await chat().textOf(last);
    expect(stoppedText).toMatch(/^\[arbor-test-model\] 1 2 3/);
    expect(stoppedText).not.toMatch(/ 200$/);
    // Nothing more arrives after Stop.
    await session.workbench.page.waitForTimeout(1500);
    expect(await chat().textOf(chat().lastAnswer())).toBe(stoppedText);
    // Marked as stopped by the user, not as a failure.
    expect(await last.locator('[data-testid="interrupted-badge"]').textContent()).toContain('Stopped');
    expect(await last.locator('[data-testid="error"]').count()).toBe(0);
  });

  it('regenerates the first answer with another model and switches between the two with ‹ 1/2 ›', async () => {
    const firstAnswer = chat().messagesOf('assistant').first();
    await firstAnswer.hover();
    await firstAnswer.locator('[data-testid="regenerate-model"]').click();
    await chat().frame.locator('[data-testid="model-option"]', { hasText: 'arbor-test-model-2' }).first().click();
    const regenerated = `[arbor-test-model-2] Echo: ${question}`;
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(regenerated);
    await chat().waitIdle();
    // The new answer is a sibling: the path is now question → new answer, the old continuation is kept on its branch.
    expect(await chat().messages().count()).toBe(2);
    const label = () => chat().lastAnswer().locator('[data-testid="sibling-label"]').textContent();
    expect(await label()).toBe('2/2');

    await chat().lastAnswer().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(chat().messagesOf('assistant').first()), { timeout: 15_000 }).toBe(answer);
    expect(await chat().messagesOf('assistant').first().locator('[data-testid="sibling-label"]').textContent()).toBe('1/2');
    // The first answer's branch still has its own continuation, the stopped answer.
    expect(await chat().textOf(chat().lastAnswer())).toBe(stoppedText);

    await chat().messagesOf('assistant').first().locator('[data-testid="sibling-next"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe(regenerated);
    expect(await chat().messages().count()).toBe(2);
  });

  it('branches from the first user message in the sidebar and sends a different message', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    const conversation = workbench.treeRow(question).first();
    await conversation.waitFor({ timeout: 15_000 });
    await workbench.expand(conversation);
    // The tree can redraw under the pointer (a store change) and put the right-click on the row below: the
    // banner names what is branched from, so a branch from anything but the question is cancelled and tried again.
    for (let attempt = 0; ; attempt++) {
      const firstUser = workbench.treeRow(`You: ${question}`).first();
      await firstUser.waitFor({ timeout: 15_000 });
      await firstUser.click({ button: 'right' });
      await workbench.pickMenuItem('Branch from Here');
      const banner = chat().byTestId('branch-banner');
      const said = await banner
        .waitFor({ state: 'visible', timeout: 15_000 })
        .then(async () => (await chat().byTestId('branch-banner-text').textContent()) ?? '', () => '');
      if (said.includes('your message replaces it')) break;
      if (attempt >= 2) throw new Error(`Branch from Here on the question said "${said}" three times`);
      console.log(`[e2e] Branch from Here landed elsewhere ("${said}"): cancelled, trying again`);
      await chat().byTestId('branch-cancel').click().catch(() => undefined);
      await banner.waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => undefined);
    }
    // The chat shows the first message (never an empty chat) and says the next one replaces it: it becomes its sibling.
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(async () => (await chat().byTestId('branch-banner-text').textContent()) ?? '', { timeout: 15_000 }).toContain('your message replaces it');
    await chat().send(branchQuestion);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toMatch(/Echo: Tell me about forests instead$/);
    await chat().waitIdle();
    expect(await chat().messagesOf('user').first().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
  });

  it('shows both branches in the tree', async () => {
    const { workbench } = session;
    await expect.poll(() => workbench.treeRow(`You: ${question}`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => workbench.treeRow(`You: ${branchQuestion}`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // The branch just written holds the current node.
    expect(await workbench.treeRow(`You: ${branchQuestion}`).first().textContent()).toContain('current');
  });

  it('finds everything as it was after reloading the window, the chat tab restored', async () => {
    const { workbench } = session;
    await workbench.reload();
    await expect.poll(() => workbench.tab(question).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await workbench.tab(question).first().click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toMatch(/Echo: Tell me about forests instead$/);
    expect(await chat().messagesOf('user').first().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');

    await chat().messagesOf('user').first().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(chat().messagesOf('user').first()), { timeout: 15_000 }).toBe(question);
    expect(await chat().textOf(chat().messagesOf('assistant').first())).toBe(`[arbor-test-model-2] Echo: ${question}`);
    expect(await chat().messagesOf('assistant').first().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');

    await workbench.openArborView();
    const conversation = workbench.treeRow(question).first();
    await conversation.waitFor({ timeout: 15_000 });
    await workbench.expand(conversation);
    await expect.poll(() => workbench.treeRow(`You: ${branchQuestion}`).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await expect.poll(() => workbench.treeRow(`You: ${question}`).count(), { timeout: 15_000 }).toBeGreaterThan(0);

    // The longest branch came back too: the stopped answer keeps its partial text and its Stopped mark.
    await chat().messagesOf('assistant').first().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(4);
    const stopped = chat().lastAnswer();
    expect(await chat().textOf(stopped)).toBe(stoppedText);
    expect(await stopped.locator('[data-testid="interrupted-badge"]').textContent()).toContain('Stopped');
    expect(await stopped.locator('[data-testid="error"]').count()).toBe(0);
    if (process.env.ARBOR_E2E_DOCS_SCREENSHOT === '1') {
      // The README's picture: the longest branch (with the stopped answer) beside the tree with every branch.
      await workbench.expand(workbench.treeRow(`You: ${question}`).first());
      await workbench.page.mouse.move(0, 0);
      await workbench.page.screenshot({ path: path.join(REPO_ROOT, 'docs/screenshot.png') });
    }
  });
});
