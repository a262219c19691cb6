/**
 * The summary line of a collapsed thinking section: a codicon chevron (turned down when open, as
 * VS Code's own trees and the chat's other toggles show it) instead of the browser's triangle.
 */
import { h, icon } from '../dom';

/** The `<summary>` of a thinking `<details>`. */
export function thinkingSummary(): HTMLElement {
  return h('summary', { className: 'thinking-summary', testId: 'thinking-summary' }, icon('chevron-right'), h('span', { text: 'Thinking' }));
}
