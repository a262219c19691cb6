/**
 * The approval card of a tool call in a real browser: an ordinary call offers every Allow; a call no
 * grant covers (a write to a protected file) shows why, says it is asked every time, and offers Allow
 * once and Deny only.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallView } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { postToWebview, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open } = useWebviewPages();

function pending(callId: string, reason: string, once: boolean): ToolCallView {
  return {
    callId,
    toolName: 'edit_file',
    displayName: 'edit_file',
    source: 'builtin',
    arguments: '{\n  "path": ".vscode/settings.json"\n}',
    state: 'pendingApproval',
    approval: { reason, ...(once ? { once: true } : {}) },
  };
}

describe('tool approval card', () => {
  it('offers only Allow once and Deny for a protected file, with the file and the reason, and posts a once decision', async () => {
    const p = await open();
    const reason = 'writes ".vscode/settings.json", which is protected: VS Code settings and tasks decide what runs';
    const path = [
      message('0', 'user', 'Change the settings'),
      message('0.0', 'assistant', '', { toolCalls: [pending('ordinary', 'it may change things', false), pending('protected', reason, true)] }),
    ];
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const ordinary = p.locator('[data-testid=tool-card][data-call-id="ordinary"]');
    const guarded = p.locator('[data-testid=tool-card][data-call-id="protected"]');
    await guarded.waitFor();
    for (const scope of ['once', 'conversation', 'workspace', 'always']) expect(await ordinary.locator(`[data-testid=tool-allow-${scope}]`).count(), scope).toBe(1);
    expect(await ordinary.locator('[data-testid=tool-approval-once]').count()).toBe(0);

    expect(await guarded.locator('[data-testid=tool-approval-reason]').textContent()).toBe(`Arbor asks: ${reason}.`);
    expect(await guarded.locator('[data-testid=tool-approval-once]').textContent()).toBe('Asked every time: an Allow here covers this call only, never later ones.');
    expect(await guarded.locator('[data-testid=tool-allow-once]').count()).toBe(1);
    for (const scope of ['conversation', 'workspace', 'always']) expect(await guarded.locator(`[data-testid=tool-allow-${scope}]`).count(), scope).toBe(0);
    expect(await guarded.locator('[data-testid=tool-deny]').count()).toBe(1);
    await guarded.locator('[data-testid=tool-allow-once]').click();
    expect(await waitForPosted(p, (m) => m.type === 'toolDecision')).toEqual({ type: 'toolDecision', callId: 'protected', scope: 'once' });
  });
});
