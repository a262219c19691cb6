/**
 * Text shown as it was written, for answers and blocks too large or too pathological to render as
 * Markdown. It is kept in chunks of a few kilobytes, each its own element with
 * `content-visibility: auto`, so the browser lays out and paints only the chunks on screen, and a
 * stream appends to the last chunk instead of making the browser lay out one huge text again.
 */
import { h, textButton } from '../dom';

/** A chunk is closed at its last line break once it holds this many characters. */
const CHUNK_CHARS = 4 * 1024;
/** A chunk without a line break is closed here anyway (a 1 MB single line). */
const HARD_CHUNK_CHARS = 8 * 1024;

/** Plain text that grows at its end in chunks. */
export class PlainText {
  readonly element: HTMLElement;
  private open: Text;
  /** Characters shown, all chunks together. */
  length = 0;

  constructor(text = '', props: { className?: string; testId?: string; title?: string } = {}) {
    this.element = h('div', { className: `plain-text ${props.className ?? ''}`.trim(), testId: props.testId ?? 'plain-text', title: props.title });
    this.open = this.newChunk();
    this.append(text);
  }

  /** Adds `text` at the end. */
  append(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      if (this.open.length >= CHUNK_CHARS && this.open.data.endsWith('\n')) this.open = this.newChunk();
      const room = CHUNK_CHARS - this.open.length;
      if (rest.length <= room) {
        this.open.appendData(rest);
        this.length += rest.length;
        return;
      }
      // Close the chunk at a line break past its size, so no line is cut in two; a line with no break is cut at the hard limit.
      const lineEnd = rest.indexOf('\n', Math.max(0, room - 1));
      const take = lineEnd >= 0 && this.open.length + lineEnd + 1 <= HARD_CHUNK_CHARS ? lineEnd + 1 : Math.min(rest.length, Math.max(0, HARD_CHUNK_CHARS - this.open.length));
      if (take === 0) {
        this.open = this.newChunk();
        continue;
      }
      this.open.appendData(rest.slice(0, take));
      this.length += take;
      rest = rest.slice(take);
      if (rest.length > 0) this.open = this.newChunk();
    }
  }

  /** Shows the whole of `text`, which begins with what is shown: only the new end is added. */
  extendTo(text: string): void {
    if (text.length > this.length) this.append(text.slice(this.length));
  }

  private newChunk(): Text {
    const text = document.createTextNode('');
    this.element.append(h('div', { className: 'plain-chunk' }, text));
    return text;
  }
}

/** A size for people: `312 KB`, `1.0 MB`. */
export function formatSize(chars: number): string {
  return chars >= 1024 * 1024 ? `${(chars / 1024 / 1024).toFixed(1)} MB` : `${Math.round(chars / 1024)} KB`;
}

/**
 * An answer past the size limit: a note saying so, the text as written, and, when `onRender` is
 * given, a Render button that renders it as Markdown (block by block, without freezing the chat).
 */
export function plainAnswer(text: PlainText, size: number, onRender?: () => void): HTMLElement {
  const note = h(
    'div',
    { className: 'plain-answer-note', testId: 'plain-answer-note' },
    h('span', { text: `This answer is ${formatSize(size)}, so it is shown as plain text.` }),
    onRender ? textButton('Render', 'render-markdown', 'Render this answer as Markdown', onRender, { secondary: true }) : null,
  );
  return h('div', { className: 'plain-answer', testId: 'plain-answer' }, note, text.element);
}
