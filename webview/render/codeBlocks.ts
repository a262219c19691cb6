/**
 * Gives every rendered code block a toolbar with its language, Copy, Insert at cursor and Apply. The
 * buttons carry `data-action`; one delegated click listener on the message list handles them all,
 * so a long conversation does not attach thousands of listeners.
 */
import { h, iconButton } from '../dom';

/** The `data-action` values of code block buttons. */
export const CODE_ACTIONS = { copy: 'copy-code', insert: 'insert-code', apply: 'apply-code' } as const;

const noop = (): void => undefined;

/** Wraps each `pre > code` under `root` in a `.code-block` with its toolbar. */
export function decorateCodeBlocks(root: ParentNode): void {
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    if (!code || pre.parentElement?.classList.contains('code-block')) {
      continue;
    }
    const language = /language-([\w+#.-]+)/.exec(code.className)?.[1] ?? '';
    if (language) {
      code.classList.add('hljs');
    }
    const copy = iconButton('copy', 'Copy code', 'copy-code', noop);
    copy.dataset.action = CODE_ACTIONS.copy;
    const insert = iconButton('insert', 'Insert code at cursor', 'insert-code', noop);
    insert.dataset.action = CODE_ACTIONS.insert;
    const apply = iconButton('git-pull-request-go-to-changes', 'Apply to its file: review the change as a diff first', 'apply-code', noop, 'Apply');
    apply.dataset.action = CODE_ACTIONS.apply;
    const toolbar = h('div', { className: 'code-toolbar' }, h('span', { className: 'code-language', text: language }), copy, insert, apply);
    const block = h('div', { className: 'code-block', testId: 'code-block' });
    pre.replaceWith(block);
    block.append(toolbar, pre);
  }
}

/**
 * The code text of the block a toolbar button belongs to, as written between the fences: the
 * renderer ends a block's text with a line break, which would add a blank line where it is inserted.
 */
export function codeOfButton(button: Element): string | undefined {
  // A button outside a code block carries its own text (Copy JSON on a structured answer's card).
  if (button instanceof HTMLElement && button.dataset.code !== undefined) return button.dataset.code;
  const text = button.closest('.code-block')?.querySelector('pre code')?.textContent;
  return text?.replace(/\r?\n$/, '') ?? undefined;
}
