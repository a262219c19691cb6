/**
 * A tiny element builder so views create DOM nodes without HTML strings: text always goes in as
 * text, so nothing a model or a user writes can become markup by accident.
 */

/** Attributes and properties `h` knows how to set. */
export interface ElementProps {
  className?: string;
  testId?: string;
  text?: string;
  title?: string;
  ariaLabel?: string;
  attrs?: Record<string, string | undefined>;
  dataset?: Record<string, string | undefined>;
  onClick?: (event: MouseEvent) => void;
}

/** Creates an element with the given props and children (nodes or strings, `null`/`false` skipped). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: Array<Node | string | null | undefined | false>
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.className) {
    el.className = props.className;
  }
  if (props.testId) {
    el.dataset.testid = props.testId;
  }
  if (props.title) {
    el.title = props.title;
  }
  if (props.ariaLabel) {
    el.setAttribute('aria-label', props.ariaLabel);
  }
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value !== undefined) {
      el.setAttribute(name, value);
    }
  }
  for (const [name, value] of Object.entries(props.dataset ?? {})) {
    if (value !== undefined) {
      el.dataset[name] = value;
    }
  }
  if (props.text !== undefined) {
    el.textContent = props.text;
  }
  if (props.onClick) {
    (el as HTMLElement).addEventListener('click', props.onClick);
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) {
      el.append(child);
    }
  }
  return el;
}

/** A codicon glyph, hidden from screen readers (the button around it carries the label). */
export function icon(name: string): HTMLSpanElement {
  return h('span', { className: `codicon codicon-${name}`, attrs: { 'aria-hidden': 'true' } });
}

/** A small toolbar button with an icon, an accessible label and a test id. */
export function iconButton(
  iconName: string,
  label: string,
  testId: string,
  onClick: (event: MouseEvent) => void,
  text?: string,
): HTMLButtonElement {
  const button = h(
    'button',
    { className: 'icon-button', testId, title: label, ariaLabel: label, attrs: { type: 'button' }, onClick },
    icon(iconName),
  );
  if (text) {
    button.append(h('span', { className: 'icon-button-text', text }));
  }
  return button;
}

/**
 * A `vscode-button` with text: its test id, the label a screen reader says, and what a click does;
 * `secondary` for the quieter style of Cancel, Undo, Retry and the like.
 */
export function textButton(text: string, testId: string, label: string, onClick: () => void, options: { secondary?: boolean } = {}): HTMLElementTagNameMap['vscode-button'] {
  const button = document.createElement('vscode-button');
  button.dataset.testid = testId;
  if (options.secondary) button.secondary = true;
  button.textContent = text;
  button.setAttribute('aria-label', label);
  button.addEventListener('click', onClick);
  return button;
}
