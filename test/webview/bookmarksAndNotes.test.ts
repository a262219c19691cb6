/**
 * Bookmarks and notes in the chat webview, in a real browser: what a bookmarked or noted message
 * shows, what the buttons post to the host, and how Go to Bookmark's `reveal` scrolls to a message.
 */
import { describe, expect, it } from 'vitest';
import type { FromWebview } from '../../src/shared/protocol';
import { chatState, longPath, message } from './fixtures';
import { clearPosted, postToWebview, posted, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open } = useWebviewPages();

const ofType =
  <T extends FromWebview['type']>(type: T) =>
  (m: FromWebview) =>
    m.type === type;

const path = [
  message('n1', 'user', 'Which conifer loses its needles?'),
  message('n2', 'assistant', 'The larch.', { bookmarked: true, note: 'Check this against the field guide\nbefore the talk' }),
];

describe('bookmarks and notes in the chat', () => {
  it('shows a bookmarked message and its note; the bookmark button toggles and posts setBookmark', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const answer = p.locator('[data-testid=message][data-node-id="n2"]');
    const question = p.locator('[data-testid=message][data-node-id="n1"]');
    await answer.waitFor();
    expect(await answer.getAttribute('data-bookmarked')).toBe('true');
    expect(await answer.locator('[data-testid=bookmark]').getAttribute('aria-pressed')).toBe('true');
    expect(await answer.locator('[data-testid=note-text]').textContent()).toBe('Check this against the field guide\nbefore the talk');
    expect(await question.getAttribute('data-bookmarked')).toBeNull();
    expect(await question.locator('[data-testid=note]').count()).toBe(0);

    await question.locator('[data-testid=bookmark]').click();
    expect(await waitForPosted(p, ofType('setBookmark'))).toEqual({ type: 'setBookmark', nodeId: 'n1', bookmarked: true });
    expect(await question.locator('[data-testid=bookmark]').getAttribute('aria-pressed')).toBe('true');
    await clearPosted(p);
    await answer.locator('[data-testid=bookmark]').click();
    expect(await waitForPosted(p, ofType('setBookmark'))).toEqual({ type: 'setBookmark', nodeId: 'n2', bookmarked: false });
  });

  it('adds a note from the note button, edits one by clicking it, and an emptied note posts an empty text', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const question = p.locator('[data-testid=message][data-node-id="n1"]');
    await question.locator('[data-testid=add-note]').click();
    const input = question.locator('[data-testid=note-input] textarea');
    await input.fill('Ask about the Japanese larch too');
    await question.locator('[data-testid=note-save]').click();
    expect(await waitForPosted(p, ofType('setNote'))).toEqual({ type: 'setNote', nodeId: 'n1', note: 'Ask about the Japanese larch too' });
    expect(await question.locator('[data-testid=note-editor]').count()).toBe(0);

    await clearPosted(p);
    const answer = p.locator('[data-testid=message][data-node-id="n2"]');
    await answer.locator('[data-testid=note]').click();
    const edit = answer.locator('[data-testid=note-input] textarea');
    expect(await edit.inputValue()).toBe('Check this against the field guide\nbefore the talk');
    expect(await answer.locator('[data-testid=note]').isVisible()).toBe(false);
    await edit.fill('');
    await edit.press('Enter');
    expect(await waitForPosted(p, ofType('setNote'))).toEqual({ type: 'setNote', nodeId: 'n2', note: '' });

    // Escape leaves the note as it was, and posts nothing.
    await clearPosted(p);
    await answer.locator('[data-testid=note]').click();
    await answer.locator('[data-testid=note-input] textarea').press('Escape');
    expect(await answer.locator('[data-testid=note]').isVisible()).toBe(true);
    await p.waitForTimeout(200);
    expect((await posted(p)).filter(ofType('setNote'))).toEqual([]);
  });

  it('reveal scrolls a message far up a long path into view and highlights it', async () => {
    const p = await open();
    const long = longPath(60);
    await postToWebview(p, { type: 'state', state: chatState(long) });
    const target = p.locator(`[data-testid=message][data-node-id="${long[4].nodeId}"]`);
    await target.waitFor({ state: 'attached' });
    expect(await target.isVisible()).toBe(true);
    const inView = () =>
      target.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const view = el.closest('[data-testid=message-list]')?.getBoundingClientRect();
        return !!view && box.bottom > view.top && box.top < view.bottom;
      });
    expect(await inView()).toBe(false);
    await postToWebview(p, { type: 'reveal', nodeId: long[4].nodeId });
    await expect.poll(inView).toBe(true);
    expect(await target.evaluate((el) => el.classList.contains('revealed'))).toBe(true);
    // It is a full render, with its buttons, not a placeholder.
    expect(await target.locator('[data-testid=bookmark]').count()).toBe(1);
  });
});
