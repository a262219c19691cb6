/**
 * Makes a `vscode-textarea` grow with its text, from its `rows` up to `maxRows` lines, and scroll
 * after that. The element has no such option, so this sizes its inner `<textarea>` (a style
 * property, which the strict CSP allows, unlike a style attribute).
 */

/** What the composer's text box needs from the element. */
interface TextAreaHost extends HTMLElement {
  readonly wrappedElement: HTMLTextAreaElement | null | undefined;
  readonly updateComplete: Promise<boolean>;
}

/** Lines the message box grows to before it scrolls. */
export const MAX_COMPOSER_ROWS = 12;

/** Sizes `host`'s text box to its text now; call after every change of its value. */
export function fitToText(host: TextAreaHost, maxRows = MAX_COMPOSER_ROWS): void {
  const inner = host.wrappedElement;
  if (!inner) {
    // Not rendered yet: size it once it is.
    void host.updateComplete.then(() => host.wrappedElement && fitToText(host, maxRows));
    return;
  }
  const style = getComputedStyle(inner);
  const fontSize = parseFloat(style.fontSize) || 13;
  const lineHeight = parseFloat(style.lineHeight) || fontSize * 1.2;
  const frame = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce((sum, k) => sum + (parseFloat(style[k as 'paddingTop']) || 0), 0);
  // Back to the height its `rows` give, so the text's own height can be read, then grown to fit it.
  inner.style.height = '';
  const limit = Math.ceil(maxRows * lineHeight + frame);
  const wanted = inner.scrollHeight + (parseFloat(style.borderTopWidth) || 0) + (parseFloat(style.borderBottomWidth) || 0);
  if (wanted > inner.offsetHeight) inner.style.height = `${Math.min(wanted, limit)}px`;
  inner.style.overflowY = wanted > limit ? 'auto' : 'hidden';
}
