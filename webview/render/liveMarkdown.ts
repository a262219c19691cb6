/**
 * Renders a streaming answer without re-rendering all of it every frame. Markdown blocks that are
 * finished (before a blank line outside a code fence, followed by an unindented line) cannot change
 * as more text arrives, so they are rendered once and kept; only the open tail is rendered again.
 * A frame's cost follows the length of the last block, not the length of the answer, and is bounded
 * besides: finished blocks render within a slice budget (the rest in later slices), a tail that
 * fails the guard (`markdownGuard.ts`) is shown as plain text that only grows, an expensive tail is
 * rendered again only after a pause proportional to its cost (the new text shows as written
 * meanwhile), and an answer past the plain-text size becomes plain text altogether.
 */
import { h } from '../dom';
import { BlockQueue, SLICE_MS, plainBlock, renderInBlocks, renderMarkdown } from './blockQueue';
import type { MarkdownRenderer } from './markdown';
import { PLAIN_ANSWER_CHARS, blockTrouble } from './markdownGuard';
import { PlainText, plainAnswer } from './plainText';
import { splitBlocks, stableSplit } from './stableSplit';

/** A tail render that took `t` ms waits `TAIL_PAUSE × t` ms before the next: rendering takes at most a quarter of the time. */
const TAIL_PAUSE = 3;

/** The incremental Markdown view of one streaming answer. */
export class LiveMarkdown {
  private readonly stable = h('div', { className: 'live-stable' });
  private readonly tail = h('div', { className: 'live-tail' });
  /** Text that arrived after the tail's last render, shown as written until the next one. */
  private readonly unrendered = document.createTextNode('');
  private readonly queue: BlockQueue;
  /** Characters of the text rendered into `stable`; always a point outside any code fence. */
  private stableLength = 0;
  /** The tail as plain text once it failed the guard: it only grows until the next cut. */
  private plainTail: PlainText | undefined;
  /** Characters of the tail at its last Markdown render. */
  private tailRendered = 0;
  private nextTailRender = 0;
  /** The whole answer as plain text, once it passed `PLAIN_ANSWER_CHARS`. */
  private plain: PlainText | undefined;
  private text = '';
  /** How many times the view was updated; tests and the benchmark read it. */
  renders = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly renderer: MarkdownRenderer,
  ) {
    this.queue = new BlockQueue(renderer);
    container.replaceChildren(this.stable, this.tail);
  }

  /** Shows `text` (the whole answer so far, which only ever grows). */
  update(text: string): void {
    this.text = text;
    this.renders += 1;
    if (this.plain || text.length > PLAIN_ANSWER_CHARS) {
      this.showPlain(text);
      return;
    }
    const deadline = performance.now() + SLICE_MS;
    const split = stableSplit(text, this.stableLength);
    if (split > this.stableLength) {
      const blocks = splitBlocks(text.slice(this.stableLength, split));
      this.stableLength = split;
      this.plainTail = undefined;
      this.tailRendered = 0;
      this.nextTailRender = 0;
      this.tail.replaceChildren();
      this.queue.append(this.stable, blocks, deadline);
    }
    this.updateTail(text.slice(this.stableLength), false);
  }

  /** The stream ended: the tail is rendered now, whatever its last render cost; a plain answer gets its Render button. */
  finish(): void {
    if (this.plain) {
      const text = this.text;
      this.container.replaceChildren(plainAnswer(this.plain, text.length, () => renderInBlocks(this.container, text, this.renderer)));
      return;
    }
    this.updateTail(this.text.slice(this.stableLength), true);
  }

  private updateTail(tail: string, force: boolean): void {
    if (this.plainTail) {
      this.plainTail.extendTo(tail);
      return;
    }
    const trouble = blockTrouble(tail);
    if (trouble) {
      this.plainTail = plainBlock(tail, trouble);
      this.tail.replaceChildren(this.plainTail.element);
      return;
    }
    const start = performance.now();
    if (!force && start < this.nextTailRender) {
      this.unrendered.data = tail.slice(this.tailRendered);
      return;
    }
    this.unrendered.data = '';
    this.tail.replaceChildren(renderMarkdown(tail, this.renderer), this.unrendered);
    this.tailRendered = tail.length;
    const end = performance.now();
    this.nextTailRender = end + (end - start) * TAIL_PAUSE;
  }

  private showPlain(text: string): void {
    if (!this.plain) {
      this.plain = new PlainText(text);
      this.container.replaceChildren(this.plain.element);
      return;
    }
    this.plain.extendTo(text);
  }
}
