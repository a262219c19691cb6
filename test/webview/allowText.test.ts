import { describe, expect, it } from 'vitest';
import { allowText } from '../../webview/view/allowText';

describe('the Allow buttons of a tool card', () => {
  it('say what a grant covers when it is less than the whole tool (a read outside the workspace covers one folder)', () => {
    expect(allowText('once', 'reading /tmp/data/')).toBe('Allow once');
    expect(allowText('conversation', 'reading /tmp/data/')).toBe('Allow reading /tmp/data/ in this conversation');
    expect(allowText('workspace', 'reading /tmp/data/')).toBe('Allow reading /tmp/data/ in this workspace');
    expect(allowText('always', 'reading /tmp/data/')).toBe('Always allow reading /tmp/data/');
  });

  it('keep their plain words for a grant of the whole tool', () => {
    expect(allowText('conversation', undefined)).toBe('Allow in this conversation');
    expect(allowText('always', undefined)).toBe('Always allow');
  });
});
