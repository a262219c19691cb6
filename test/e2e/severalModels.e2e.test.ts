import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Ask Several Models: two models ticked beside the model picker answer one question side by side;
 * afterwards the answers are siblings (`‹ 1/2 ›`, `‹ 2/2 ›`, each with its model), Compare opens them in a
 * diff editor, and Merge with a third pick writes a third sibling from the fake model's merge request
 * (`[model] Merged 2 answers (a, b): …`), which the tree shows beside the other two.
 */
describe('Ask Several Models', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const question = 'Which sort is stable?';
  const echo = (model: string) => `[${model}] Echo: ${question}`;

  it('streams two models side by side, switches between their answers, compares and merges them', async () => {
    const { workbench } = session;
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();

    // Tick both models the fake server lists (the chat's own last: its answer is shown after the run).
    await chat().byTestId('several-toggle').waitFor({ timeout: 30_000 });
    await chat().byTestId('several-toggle').click();
    await chat().frame.locator('[data-testid="several-option"][data-model="arbor-test-model-2"]').click();
    await chat().frame.locator('[data-testid="several-option"][data-model="arbor-test-model"]').click();
    await expect.poll(() => chat().byTestId('several-count').textContent()).toBe('2');
    await chat().send(question);

    // Both answers stream, each in its own column.
    const columns = chat().byTestId('several-column');
    await expect.poll(() => columns.count(), { timeout: 30_000 }).toBe(2);
    await workbench.screenshot('several-models-streaming');
    await chat().waitIdle();
    await expect.poll(() => chat().frame.locator('[data-testid="several-grid"]').count(), { timeout: 15_000 }).toBe(0);

    // The last ticked model's answer is shown, with the other as its sibling.
    const answer = () => chat().lastAnswer();
    const label = () => answer().locator('[data-testid="sibling-label"]').textContent();
    const model = () => answer().locator('[data-testid="message-model"]').textContent();
    await expect.poll(() => chat().textOf(answer()), { timeout: 15_000 }).toBe(echo('arbor-test-model'));
    expect(await model()).toBe('arbor-test-model');
    const shownAt = await label();
    expect(['1/2', '2/2']).toContain(shownAt);
    await answer().locator(shownAt === '1/2' ? '[data-testid="sibling-next"]' : '[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(answer()), { timeout: 15_000 }).toBe(echo('arbor-test-model-2'));
    expect(await model()).toBe('arbor-test-model-2');
    expect(await label()).toBe(shownAt === '1/2' ? '2/2' : '1/2');
    expect(await answer().locator('[data-testid="several-label"]').textContent()).toBe('2 answers from several models');

    // Compare: both answers side by side in VS Code's diff editor.
    await answer().locator('[data-testid="several-compare"]').click();
    await workbench.tab(/arbor-test-model-2 ↔ arbor-test-model/).first().waitFor({ timeout: 15_000 });
    const diff = workbench.page.locator('.part.editor .monaco-diff-editor').first();
    await diff.waitFor({ timeout: 15_000 });
    const shown = async () => (await diff.locator('.view-lines').allTextContents()).join('\n').replace(/\u00a0/g, ' ');
    await expect.poll(shown, { timeout: 15_000 }).toContain(echo('arbor-test-model-2'));
    expect(await shown()).toContain(echo('arbor-test-model'));
    await workbench.screenshot('several-models-compare');
    await workbench.tab(question).first().click();

    // Merge with the first model: a third sibling, made from the merge request, shown at once.
    await answer().locator('[data-testid="several-merge"]').click();
    await chat().frame.locator('[data-testid="several-merge-option"][data-model="arbor-test-model"]').click();
    await expect.poll(() => chat().textOf(answer()), { timeout: 30_000 }).toMatch(/^\[arbor-test-model\] Merged 2 answers \((arbor-test-model-2, arbor-test-model|arbor-test-model, arbor-test-model-2)\): /);
    await chat().waitIdle();
    const merged = await chat().textOf(answer());
    expect(merged).toContain(echo('arbor-test-model'));
    expect(merged).toContain(echo('arbor-test-model-2'));
    expect(await label()).toBe('3/3');
    await expect.poll(() => answer().locator('[data-testid="several-label"]').textContent()).toMatch(/^Merge of /);

    // The fake server saw the merge request: its system text and both answers, labelled by model.
    // The server answers each chat request's path and raw body.
    const requests = (await (await fetch(`http://127.0.0.1:${session.env.fakeLlmPort}/__fake/chat-requests`)).json()) as Array<{ rawBody: string }>;
    const bodies = requests.map((r) => JSON.parse(r.rawBody) as { messages: Array<{ role: string; content: string }> });
    const mergeRequest = bodies.map((b) => b.messages).find((m) => m[0]?.role === 'system' && m[0].content.startsWith('You merge several answers to one question'));
    expect(mergeRequest?.[1].content).toContain(`## Answer 1 (`);
    expect(mergeRequest?.[1].content).toContain(`## Question\n\n${question}`);

    // The tree: the question with its three answers.
    await workbench.openArborView();
    const conversation = workbench.treeRow(question).first();
    await workbench.expand(conversation);
    const questionRow = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="2"]', { hasText: question }).first();
    await workbench.expand(questionRow);
    const answers = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="3"]');
    await expect.poll(() => answers.count(), { timeout: 15_000 }).toBe(3);
    await workbench.screenshot('several-models-tree');
  });

  it('shows a failing model\'s error in its column while the other answers', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('several-toggle').click();
    await chat().frame.locator('[data-testid="several-option"][data-model="arbor-test-model"]').click();
    await chat().frame.locator('[data-testid="several-option"][data-model="arbor-test-model-2"]').click();
    // The other model answers slowly, so its column is still streaming when the failed one shows its error.
    await chat().send('Go [[error:arbor-test-model]] [[slow]]');
    const failed = chat().frame.locator('[data-testid="several-column"][data-model="arbor-test-model"] [data-testid="error"]');
    await expect.poll(async () => ((await failed.count()) > 0 ? await failed.first().textContent() : ''), { timeout: 30_000 }).toContain('failed on purpose');
    const other = chat().frame.locator('[data-testid="several-column"][data-model="arbor-test-model-2"]');
    await expect.poll(async () => ((await other.count()) > 0 ? await other.first().textContent() : ''), { timeout: 15_000 }).toContain('[arbor-test-model-2] 1');
    // Stop ends the run; the slow answer keeps what it had streamed.
    await chat().byTestId('stop').click();
    await chat().waitIdle();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toMatch(/^\[arbor-test-model-2\] 1( \d+)*/);
    await expect.poll(() => chat().byTestId('notice').first().textContent(), { timeout: 15_000 }).toContain('arbor-test-model gave no answer');
  });
});
