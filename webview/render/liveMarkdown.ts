/**
 * Renders a streaming answer without re-rendering all of it every frame. Markdown blocks that are
 * finished (before a blank line outside a code fence, followed by an unindented line) cannot change
 * as more text arrives, so they are rendered once and kept; only the open tail is rendered again.
 * A frame's cost follows the length of the last block, not the length of the answer.
 */
import { h } from '../dom';
import { decorateCodeBlocks } from './codeBlocks';
import type { MarkdownRenderer } from './markdown';
import { stableSplit } from './stableSplit';

/** The incremental Markdown view of one streaming answer. */
export class LiveMarkdown {
  private readonly stable = h('div', { className: 'live-stable' });
  private readonly tail = h('div', { className: 'live-tail' });
  /** Characters of the text rendered into `stable`; always a point outside any code fence. */
  private stableLength = 0;
  /** How many times Markdown was rendered; tests and the benchmark read it. */
  renders = 0;

  constructor(
    container: HTMLElement,
    private readonly renderer: MarkdownRenderer,
  ) {
    container.replaceChildren(this.stable, this.tail);
  }

  /** Shows `text` (the whole answer so far, which only ever grows). */
  update(text: string): void {
    const split = stableSplit(text, this.stableLength);
    if (split > this.stableLength) {
      this.stable.append(this.render(text.slice(this.stableLength, split)));
      this.stableLength = split;
    }
    this.tail.replaceChildren(this.render(text.slice(this.stableLength)));
    this.renders += 1;
  }

  private render(markdown: string): DocumentFragment {
    const fragment = this.renderer.render(markdown);
    decorateCodeBlocks(fragment);
    return fragment;
  }
}
