/**
 * Flows in the chat webview (real Chromium, the esbuild bundle): a `/` flow is sent with its kind and its
 * form's values, a flow message shows its marker and Re-run, and the flow panel draws the states with the
 * current one, the memory (full JSON on demand), Stop, Resume and a failure.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FlowPanelView, FromWebview } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { clearPosted, postToWebview, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open } = useWebviewPages();
const input = (p: Page) => p.locator('[data-testid=composer-input] textarea');
const ofType = <T extends FromWebview['type']>(type: T) => (m: FromWebview) => m.type === type;

const panel: FlowPanelView = {
  flow: 'review-fix',
  runId: 'r1',
  status: 'running',
  state: 'fix',
  step: 2,
  maxSteps: 12,
  start: 'review',
  states: [
    { name: 'review', type: 'agent', edges: [{ to: 'fix', kind: 'rule', when: "verdict == 'changes_needed' && round < 3" }, { to: 'summary', kind: 'default' }] },
    { name: 'fix', type: 'agent', edges: [{ to: 'review', kind: 'default' }] },
    { name: 'summary', type: 'finish', edges: [] },
  ],
  memory: { round: 0, verdict: 'changes_needed', issues: [{ file: 'src/a.ts', problem: 'x'.repeat(120) }] },
};

describe('flows in the webview', () => {
  it('sends a flow picked in the / menu with its kind and the form values', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await postToWebview(p, { type: 'prompts', prompts: [{ name: 'review-fix', kind: 'flow', source: 'flow', description: 'Review, fix, review again', params: [{ name: 'target', required: true }] }] });
    await input(p).click();
    await p.keyboard.type('/rev');
    const options = p.locator('[data-testid=prompt-option]');
    expect(await options.count()).toBe(1);
    expect(await options.first().textContent()).toContain('flow: Review, fix, review again');
    await p.keyboard.press('Enter');
    await p.locator('[data-testid=prompt-form]').waitFor();
    expect(await p.locator('[data-testid=prompt-form-source]').textContent()).toBe('flow');
    await p.locator('[data-testid=prompt-param][data-name=target]').fill('src/');
    await p.locator('[data-testid=send]').click();
    const sent = (await waitForPosted(p, ofType('send'))) as Extract<FromWebview, { type: 'send' }>;
    expect(sent).toMatchObject({ promptName: 'review-fix', promptKind: 'flow', params: { target: 'src/' } });
  });

  it('marks a flow message with its flow, state and step; Re-run asks for that node', async () => {
    const p = await open();
    const flow = { name: 'review-fix', state: 'review', step: 3, runId: 'r1' };
    await postToWebview(p, { type: 'state', state: chatState([message('1', 'user', 'Review src/', { flow }), message('2', 'assistant', '{"verdict":"ok","issues":[]}', { flow }), message('3', 'user', 'plain')]) });
    const markers = p.locator('[data-testid=flow-marker]');
    await expect.poll(() => markers.count()).toBe(2);
    expect((await markers.first().textContent())?.trim()).toBe('review-fix · review · step 3');
    await clearPosted(p);
    await markers.nth(1).locator('[data-testid=flow-rerun]').click();
    expect(await waitForPosted(p, ofType('flowRerun'))).toEqual({ type: 'flowRerun', nodeId: '2' });
  });

  it('draws the panel: states with transitions, the current one, steps, memory with full JSON, Stop; then stopped, failed and hidden', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    const el = p.locator('[data-testid=flow-panel]');
    expect(await el.isVisible()).toBe(false);
    await postToWebview(p, { type: 'flowPanel', panel });
    await expect.poll(() => el.isVisible()).toBe(true);
    expect(await p.locator('[data-testid=flow-state]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['review', 'fix', 'summary']);
    expect(await p.locator('[data-testid=flow-state][data-current=true]').getAttribute('data-name')).toBe('fix');
    expect(await p.locator('[data-testid=flow-state][data-name=review] [data-testid=flow-edge][data-to=fix]').textContent()).toContain("verdict == 'changes_needed'");
    expect(await p.locator('[data-testid=flow-steps]').textContent()).toBe('step 2 / 12');
    expect(await p.locator('[data-testid=flow-status]').textContent()).toBe('running · fix');
    expect(await p.locator('[data-testid=flow-memory-row][data-key=round] td').textContent()).toBe('0');
    const issues = p.locator('[data-testid=flow-memory-row][data-key=issues]');
    expect(await issues.locator('summary').textContent()).toMatch(/…$/);
    await issues.locator('summary').click();
    expect(JSON.parse((await issues.locator('[data-testid=flow-memory-json]').textContent()) ?? '')).toEqual(panel.memory.issues);
    await clearPosted(p);
    await p.locator('[data-testid=flow-stop]').click();
    expect(await waitForPosted(p, ofType('flowStop'))).toEqual({ type: 'flowStop' });

    await postToWebview(p, { type: 'flowPanel', panel: { ...panel, status: 'stopped' } });
    await expect.poll(() => p.locator('[data-testid=flow-status]').textContent()).toBe('stopped at fix');
    expect(await p.locator('[data-testid=flow-stop]').count()).toBe(0);
    await p.locator('[data-testid=flow-resume]').click();
    expect(await waitForPosted(p, ofType('flowResume'))).toEqual({ type: 'flowResume' });

    await postToWebview(p, { type: 'flowPanel', panel: { ...panel, status: 'failed', error: 'Flow "review-fix" stopped after 12 steps (maxSteps)' } });
    await expect.poll(() => p.locator('[data-testid=flow-error]').textContent()).toContain('maxSteps');
    expect(await p.locator('[data-testid=flow-memory-row]').count()).toBe(3);

    await postToWebview(p, { type: 'flowPanel', panel: null });
    await expect.poll(() => el.isVisible()).toBe(false);
  });
});
