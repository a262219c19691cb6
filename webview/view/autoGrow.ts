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
  const px = (value: string) => parseFloat(value) || 0;
  const padding = px(style.paddingTop) + px(style.paddingBottom);
  const borders = px(style.borderTopWidth) + px(style.borderBottomWidth);
  const frame = padding + borders;
  // Back to the height its `rows` give, so the text's own height can be read, then grown to fit it.
  inner.style.height = '';
  // A line is what the font makes of "normal" unless set: read it off the height of the starting rows.
  const lineHeight = px(style.lineHeight) || (inner.clientHeight - padding) / (inner.rows || 3);
  const limit = Math.ceil(maxRows * lineHeight + frame);
  const wanted = inner.scrollHeight + borders;
  if (wanted > inner.offsetHeight) inner.style.height = `${Math.min(wanted, limit)}px`;
  inner.style.overflowY = wanted > limit ? 'auto' : 'hidden';
}
