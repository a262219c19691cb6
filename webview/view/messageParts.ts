/**
 * Parts of a message bubble that the cards drawn inside one (summaries, structured answers) use too:
 * the Markdown filler, the `‹ 2/3 ›` switcher and the inline error. In a file of their own so the
 * cards and `messageView.ts`, which places them, do not import each other.
 */
import type { ErrorAction, MessageView } from '../../src/shared/protocol';
import { h, iconButton, icon } from '../dom';
import { fillGuarded } from '../render/blockQueue';
import type { MarkdownRenderer } from '../render/markdown';
import type { MessageActions } from './actions';

/**
 * Replaces an element's children with rendered Markdown and decorates its code blocks; an answer too
 * large or too pathological to render at once shows as plain text or renders block by block.
 */
export function fillContent(content: HTMLElement, text: string, renderer: MarkdownRenderer): void {
  fillGuarded(content, text, renderer);
}

/** The `‹ 2/3 ›` switcher of a message with siblings. */
export function siblingSwitcher(message: MessageView, actions: MessageActions): HTMLElement | null {
  const { siblings } = message;
  if (siblings.count <= 1) {
    return null;
  }
  const prev = iconButton('chevron-left', 'Previous version', 'sibling-prev', () => {
    if (siblings.prevNodeId) {
      actions.switchTo(siblings.prevNodeId);
    }
  });
  prev.disabled = siblings.prevNodeId === undefined;
  const next = iconButton('chevron-right', 'Next version', 'sibling-next', () => {
    if (siblings.nextNodeId) {
      actions.switchTo(siblings.nextNodeId);
    }
  });
  next.disabled = siblings.nextNodeId === undefined;
  const label = h('span', {
    className: 'sibling-label',
    testId: 'sibling-label',
    text: `${siblings.index}/${siblings.count}`,
    ariaLabel: `Version ${siblings.index} of ${siblings.count}`,
  });
  return h('span', { className: 'sibling-switcher', testId: 'sibling-switcher' }, prev, label, next);
}

/** The inline error of a failed answer, with a button for each fix it offers and Retry when it is the last message. */
export function errorBlock(message: Node | string, retryable: boolean, actions: Pick<MessageActions, 'retry' | 'runAction'>, fixes: readonly ErrorAction[] = []): HTMLElement {
  const block = h(
    'div',
    { className: 'message-error', testId: 'error', attrs: { role: 'alert' } },
    icon('error'),
    h('span', { className: 'message-error-text' }, message),
  );
  for (const fix of fixes) {
    const button = document.createElement('vscode-button');
    button.dataset.testid = 'error-action';
    button.dataset.command = fix.command;
    button.secondary = true;
    button.textContent = fix.title;
    button.addEventListener('click', () => actions.runAction(fix.command));
    block.append(button);
  }
  if (retryable) {
    const retry = document.createElement('vscode-button');
    retry.dataset.testid = 'retry';
    retry.textContent = 'Retry';
    retry.setAttribute('aria-label', 'Retry: answer the last message again');
    retry.addEventListener('click', () => actions.retry());
    block.append(retry);
  }
  return block;
}
