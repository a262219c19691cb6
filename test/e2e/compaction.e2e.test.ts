import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Context as a person sees it: the header's meter follows the draft, `/compact` turns the older turns
 * into a summary node (the originals stay, collapsed, and Undo brings the full history back), and
 * Compact up to Here does the same from a message.
 */
describe('context meter and compaction', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const echo = (text: string) => `[arbor-test-model] Echo: ${text}`;
  const meterTokens = async () => {
    const text = (await chat().byTestId('context-meter-label').textContent()) ?? '';
    const m = /~?([\d.]+)(k?)/.exec(text);
    return m ? Number(m[1]) * (m[2] ? 1000 : 1) : NaN;
  };

  const ask = (text: string) => chat().ask(text, echo(text));

  it('shows how full the context is, and the count follows the draft before it is sent', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('What is a trie?');
    await ask('How does it differ from a radix tree?');
    await ask('Which one should the index use?');
    await expect.poll(meterTokens, { timeout: 15_000 }).toBeGreaterThan(0);
    const before = await meterTokens();
    const title = await chat().byTestId('context-meter').getAttribute('title');
    expect(title).toContain('History:');
    expect(title).toContain('Your draft: 0');
    // About 1,400 tokens: well clear of the label's rounding once the count passes 1k (the tool definitions count too).
    await chat().input().fill(`A long draft ${'about tries and radix trees '.repeat(200)}`);
    await expect.poll(meterTokens, { timeout: 15_000 }).toBeGreaterThan(before + 800);
    await chat().input().fill('');
    await expect.poll(meterTokens, { timeout: 15_000 }).toBe(before);
  });

  it('/compact summarises the older turns into a node with Undo; the originals stay, collapsed', async () => {
    await chat().send('/compact the choice of index');
    const card = chat().frame.locator('[data-testid="message"][data-compaction="true"]');
    await card.waitFor({ timeout: 30_000 });
    // Everything fits the default 20,000 tokens kept, so all but the newest turn is summarised.
    expect(await card.locator('[data-testid="compaction-title"]').textContent()).toBe('Summary of 4 earlier messages');
    await card.locator('[data-testid="compaction-summary"] summary').click();
    // The model's summary, then the user's own questions word for word.
    const summary = await chat().textOf(card);
    expect(summary).toMatch(/^\[arbor-test-model\] Summary of 2 user messages\./);
    expect(summary).toContain("The user's messages, word for word");
    expect(summary).toContain('What is a trie?');
    expect(summary).toContain('How does it differ from a radix tree?');
    expect(await card.locator('[data-testid="compaction-summary"] summary').textContent()).toContain('focused on the choice of index');
    expect(await chat().frame.locator('[data-testid="message"][data-covered="true"]').count()).toBe(4);
    const notice = chat().byTestId('notice').filter({ hasText: 'Summarised 4 older messages' });
    await notice.waitFor({ timeout: 10_000 });
    await session.workbench.screenshot('compaction-summary-node');

    // The conversation goes on below the summary.
    await ask('Go on from the summary');
    expect(await chat().frame.locator('[data-testid="message"][data-compaction="true"]').count()).toBe(1);

    // Undo: back to the full history; the next message becomes a sibling of the summary.
    await card.locator('[data-testid="compaction-undo"]').click();
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(0);
    expect(await chat().frame.locator('[data-testid="message"][data-covered="true"]').count()).toBe(0);
    expect(await chat().messages().count()).toBe(6);
  });

  it('Compact up to Here on an answer summarises the turns before it, below it', async () => {
    const secondAnswer = chat().messagesOf('assistant').nth(1);
    await secondAnswer.hover();
    await secondAnswer.locator('[data-testid="compact-here"]').click();
    const card = chat().frame.locator('[data-testid="message"][data-compaction="true"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('[data-testid="compaction-title"]').textContent()).toBe('Summary of 2 earlier messages');
    // The summary sits below the answer it was made at: the path ends there, and the third turn is on the other branch.
    expect(await chat().messages().count()).toBe(5);
    await chat().byTestId('notice').filter({ hasText: 'Summarised 2 older messages' }).locator('[data-testid="notice-undo"]').click();
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(0);
  });

  it('when the model refuses a request as too long, compacts without a model and asks again, never dropping silently', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('Where is the parser?');
    await ask('And the lexer?');
    // The fake model refuses any request holding [[overflow]] until it carries a summary.
    await chat().send('[[overflow]] Now compare them');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('[[overflow]] Now compare them'));
    await chat().waitIdle();
    const card = chat().frame.locator('[data-testid="message"][data-compaction="true"]');
    expect(await card.count()).toBe(1);
    expect(await card.locator('[data-testid="compaction-summary"] summary').textContent()).toBe('Compacted after the model refused the length, without a model');
    await card.locator('[data-testid="compaction-summary"] summary').click();
    expect(await chat().textOf(card)).toContain('[User]: Where is the parser?');
    await chat().byTestId('notice').filter({ hasText: 'refused the request as longer than it can read' }).waitFor({ timeout: 10_000 });
    expect(await chat().byTestId('error').count()).toBe(0);
  });

  it('compacts automatically before a request that would pass 85% of the window, says so, and Undo brings the history back', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    // About 1,100 tokens each (few, long words, so the fake model streams them back quickly); the fake
    // Ollama model's window is 4,096 tokens (the num_ctx Arbor sends it).
    const long = (n: number) => `Part ${n}: ${`${'postings'.repeat(5)} `.repeat(110).trim()}`;
    await ask(long(1));
    await expect.poll(async () => (await chat().byTestId('context-meter-label').textContent()) ?? '', { timeout: 15_000 }).toMatch(/ \/ 4\.1k$/);
    await chat().send(long(2));
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toBe(echo(long(2)));
    await chat().waitIdle();
    const notice = chat().byTestId('notice').filter({ hasText: "The conversation filled" });
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.textContent()).toMatch(/filled \d+% of arbor-test-model's 4,096-token window, so Arbor summarised 2 older messages before sending/);
    const card = chat().frame.locator('[data-testid="message"][data-compaction="true"]');
    expect(await card.locator('[data-testid="compaction-summary"] summary').textContent()).toBe('Compacted automatically by arbor-test-model');
    await session.workbench.screenshot('compaction-automatic-notice');
    await notice.locator('[data-testid="notice-undo"]').click();
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(0);
  });

  it('offers to carry a summary of a branch left behind into the new one, and Remove takes it away', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('Pick a data structure for the index');
    await ask('Try a hash map');
    await ask('Measure it');
    // A second version of "Try a hash map": the first one's branch (4 messages) is left behind.
    const second = chat().messagesOf('user').nth(1);
    await second.hover();
    await second.locator('[data-testid="edit"]').click();
    const editor = second.locator('[data-testid="edit-input"] textarea');
    await editor.fill('Try a trie');
    await editor.press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('Try a trie'));
    await chat().waitIdle();
    // Back to the hash map (a short branch left: no offer), then over to the trie (4 messages left: an offer).
    await chat().messagesOf('user').nth(1).locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(6);
    await chat().messagesOf('user').nth(1).locator('[data-testid="sibling-next"]').click();
    const offer = chat().byTestId('notice').filter({ hasText: 'You left a branch of 4 messages' });
    await offer.waitFor({ timeout: 15_000 });
    await offer.locator('[data-testid="notice-summarise-branch"]').click();
    const card = chat().frame.locator('[data-testid="message"][data-branch-summary="true"]');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('[data-testid="branch-summary-title"]').textContent()).toBe('Summary of the branch you left (4 messages)');
    expect(await chat().textOf(card)).toContain('[arbor-test-model] Summary of 2 user messages.');
    await session.workbench.screenshot('branch-summary-carried');

    await card.locator('[data-testid="branch-summary-remove"]').click();
    await expect.poll(() => card.count(), { timeout: 15_000 }).toBe(0);
    expect(await chat().textOf(chat().lastAnswer())).toBe(echo('Try a trie'));
  });
});
