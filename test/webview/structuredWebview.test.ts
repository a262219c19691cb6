/**
 * Structured answers in the chat webview, in a real browser under the host's CSP: the accepted answer's
 * card (fields, nested values, Raw JSON, Copy JSON through the host), the correction turn as a muted note
 * instead of a user bubble, and the last invalid answer with its failure and Retry.
 */
import { describe, expect, it } from 'vitest';
import type { FromWebview, StructuredView } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { clearPosted, postToWebview, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open } = useWebviewPages();

const ofType =
  <T extends FromWebview['type']>(type: T) =>
  (m: FromWebview) =>
    m.type === type;

const problems = [{ path: '$.verdict', message: 'must be equal to one of the allowed values' }];
const value = {
  verdict: 'approve',
  score: 0.8,
  summary: 'Looks right <img src=x onerror="document.body.dataset.pwned=1">',
  risks: ['rounding', 'overflow'],
  author: { name: 'Ada', reviewed: true },
  notes: [],
};
const invalid = (attempt: number, attempts: number): StructuredView => ({ kind: 'answer', attempt, attempts, problems });
const correction: StructuredView = { kind: 'correction', attempt: 1, attempts: 2, problems };

const path = [
  message('q', 'user', '/review-verdict'),
  message('q.0', 'assistant', '{"verdict":"maybe"}', { structured: invalid(1, 2) }),
  message('q.0.0', 'user', 'Your answer does not match the JSON Schema…', { structured: correction }),
  message('q.0.0.0', 'assistant', JSON.stringify(value), { structured: { kind: 'answer', attempt: 2, attempts: 2, accepted: true, value } }),
];

describe('a structured answer in the chat', () => {
  it('shows its fields as a table, nested values readable and markup as text; Raw JSON unfolds; Copy JSON posts the pretty value', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const answer = p.locator('[data-testid=message][data-node-id="q.0.0.0"]');
    const card = answer.locator('[data-testid=structured-card]');
    await card.waitFor();
    const field = (name: string) => card.locator(`[data-testid=structured-field][data-field="${name}"]`).first();
    expect(await field('verdict').locator('td').textContent()).toBe('approve');
    expect(await field('score').locator('td').textContent()).toBe('0.8');
    expect(await field('summary').locator('td').textContent()).toBe(value.summary);
    expect(await card.locator('img').count()).toBe(0);
    expect(await field('risks').locator('li').allTextContents()).toEqual(['rounding', 'overflow']);
    // A nested object is a table of its own inside the cell.
    expect(await field('author').locator('[data-testid=structured-field][data-field="name"] td').textContent()).toBe('Ada');
    expect(await field('author').locator('[data-testid=structured-field][data-field="reviewed"] td').textContent()).toBe('true');
    expect(await field('notes').locator('td').textContent()).toBe('none');
    expect(await card.locator('[data-testid=structured-attempt]').textContent()).toBe('answer 2 of 2');

    const raw = card.locator('[data-testid=structured-raw]');
    expect(await raw.evaluate((d) => d.hasAttribute('open'))).toBe(false);
    await raw.locator('[data-testid=structured-raw-toggle]').click();
    expect(await raw.evaluate((d) => d.hasAttribute('open'))).toBe(true);
    expect(await raw.locator('pre code').textContent()).toBe(JSON.stringify(value, null, 2));
    expect(await raw.locator('[data-testid=copy-code]').count()).toBe(1);
    expect(await raw.locator('[data-testid=apply-code]').count()).toBe(0);

    await clearPosted(p);
    await card.locator('[data-testid=structured-copy]').click();
    expect(await waitForPosted(p, ofType('copy'))).toEqual({ type: 'copy', text: JSON.stringify(value, null, 2) });
    expect(await p.locator('body').getAttribute('data-pwned')).toBeNull();
  });

  it('shows the correction turn as a muted note, not a user bubble, and the invalid answer before it as not matching', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const turn = p.locator('[data-testid=message][data-node-id="q.0.0"]');
    await turn.waitFor();
    expect(await turn.getAttribute('data-structured')).toBe('correction');
    expect(await turn.locator('[data-testid=correction-note]').textContent()).toBe(
      'The answer did not match the schema: $.verdict: must be equal to one of the allowed values — asked again (answer 2 of 2)',
    );
    // No bubble: neither the text sent to the model nor a user message's buttons.
    expect(await turn.locator('[data-testid=message-content]').count()).toBe(0);
    expect(await turn.locator('[data-testid=edit]').count()).toBe(0);
    const first = p.locator('[data-testid=message][data-node-id="q.0"]');
    expect(await first.locator('[data-testid=structured-invalid]').textContent()).toBe('Answer 1 of 2 did not match the schema.');
    expect(await first.locator('[data-testid=message-content]').textContent()).toContain('"verdict":"maybe"');
    expect(await first.locator('[data-testid=structured-card]').count()).toBe(0);
    expect(await first.locator('[data-testid=error]').count()).toBe(0);
  });

  it('lists only the first problems in the note and counts the rest', async () => {
    const p = await open();
    const many = Array.from({ length: 5 }, (_, i) => ({ path: `$.items[${i}]`, message: 'must be string' }));
    await postToWebview(p, { type: 'state', state: chatState([path[0], path[1], message('q.0.0', 'user', 'x', { structured: { ...correction, attempts: 3, problems: many } })]) });
    const note = p.locator('[data-testid=correction-note]');
    await note.waitFor();
    expect(await note.textContent()).toBe(
      'The answer did not match the schema: $.items[0]: must be string; $.items[1]: must be string; $.items[2]: must be string (and 2 more) — asked again (answer 2 of 3)',
    );
    expect(await note.getAttribute('title')).toContain('$.items[4]: must be string');
  });

  it('keeps the last invalid answer visible with the failure inline, and Retry posts retry', async () => {
    const p = await open();
    const failed = [path[0], path[1], path[2], message('q.0.0.0', 'assistant', '{"verdict":"perhaps"}', { structured: invalid(2, 2) })];
    await postToWebview(p, { type: 'state', state: chatState(failed) });
    const last = p.locator('[data-testid=message][data-node-id="q.0.0.0"]');
    await last.waitFor();
    expect(await last.locator('[data-testid=message-content]').textContent()).toContain('"verdict":"perhaps"');
    const error = last.locator('[data-testid=error]');
    expect(await error.textContent()).toContain('None of the 2 answers matched the schema (the last one is kept above): $.verdict: must be equal to one of the allowed values');
    await clearPosted(p);
    await error.locator('[data-testid=retry]').click();
    expect(await waitForPosted(p, ofType('retry'))).toMatchObject({ type: 'retry' });
  });

  it('streams the next attempt below the correction note once the host moves the answer there', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([path[0]], { busy: true }) });
    await postToWebview(p, { type: 'streamStart', requestId: 'r1', parentNodeId: 'q', model: 'm' });
    await postToWebview(p, { type: 'streamDelta', requestId: 'r1', delta: '{"verdict":"maybe"}' });
    // The invalid answer and the correction turn are stored: the bubble moves below them, then the state shows them.
    await postToWebview(p, { type: 'streamStart', requestId: 'r1', parentNodeId: 'q.0.0', model: 'm' });
    await postToWebview(p, { type: 'state', state: chatState(path.slice(0, 3), { busy: true }) });
    await postToWebview(p, { type: 'streamDelta', requestId: 'r1', delta: '{"verdict":' });
    const live = p.locator('[data-testid=message][data-streaming=true]');
    await expect.poll(async () => (await live.locator('[data-testid=message-content]').textContent())?.trim()).toBe('{"verdict":');
    expect(await live.count()).toBe(1);
    const order = await p.locator('[data-testid=message]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id') || 'live'));
    expect(order).toEqual(['q', 'q.0', 'q.0.0', 'live']);

    await postToWebview(p, { type: 'streamDone', requestId: 'r1' });
    await postToWebview(p, { type: 'state', state: chatState(path) });
    await p.locator('[data-testid=structured-card]').waitFor();
    expect(await live.count()).toBe(0);
  });
});
