/**
 * Renders Markdown a block at a time within a time budget, so no answer holds the page for long:
 * blocks that fail the guard (`markdownGuard.ts`) are shown as plain text, blocks that do not fit
 * in the budget are shown as plain text for now and rendered in later slices (one short task
 * each, with input and frames handled in between). An ordinary answer renders in one pass, as
 * before.
 */
import { h } from '../dom';
import { decorateCodeBlocks } from './codeBlocks';
import type { MarkdownRenderer } from './markdown';
import { PLAIN_ANSWER_CHARS, PLAIN_REASONS, blockTrouble, type PlainReason } from './markdownGuard';
import { PlainText, plainAnswer } from './plainText';
import { splitBlocks } from './stableSplit';

/** Work done in one go before the rest waits for the next slice, in ms. */
export const SLICE_MS = 20;
/** Neighbouring blocks that pass the guard render together up to this many characters. */
export const GROUP_CHARS = 2_000;
/** Up to this size an answer that passes the guard whole renders in one pass, exactly as before. */
export const ONE_PASS_CHARS = 16_000;

/** A block's Markdown as a sanitized fragment with its code toolbars. */
export function renderMarkdown(text: string, renderer: MarkdownRenderer): DocumentFragment {
  const fragment = renderer.render(text);
  decorateCodeBlocks(fragment);
  return fragment;
}

/** A block shown as plain text, with the reason in its tooltip. */
export function plainBlock(text: string, reason: PlainReason): PlainText {
  return new PlainText(text, { className: 'plain-block', testId: 'plain-block', title: `Shown as plain text: ${PLAIN_REASONS[reason]}.` });
}

/** Blocks to render as one, or one block the guard refused (`trouble`). */
export interface BlockGroup {
  text: string;
  trouble?: PlainReason;
}

/**
 * One group: rendered Markdown, or plain text when the guard refused it. Each is its own element
 * with `content-visibility: auto`, so the browser lays out and paints only the groups on screen:
 * without it, every slice of a 1 MB answer made the browser lay out all the slices before it again.
 */
export function renderGroup(group: BlockGroup, renderer: MarkdownRenderer): HTMLElement {
  return group.trouble ? plainBlock(group.text, group.trouble).element : h('div', { className: 'markdown-group' }, renderMarkdown(group.text, renderer));
}

/**
 * Joins neighbouring blocks that pass the guard into runs of up to `GROUP_CHARS` (a block alone
 * may be longer); a block the guard refuses stays on its own, to be shown as plain text.
 */
export function groupBlocks(blocks: readonly string[]): BlockGroup[] {
  const groups: BlockGroup[] = [];
  let run = '';
  for (const block of blocks) {
    if (block.length === 0) continue;
    const trouble = blockTrouble(block);
    if (trouble !== undefined) {
      if (run) groups.push({ text: run });
      groups.push({ text: block, trouble });
      run = '';
    } else if (run && run.length + block.length > GROUP_CHARS) {
      groups.push({ text: run });
      run = block;
    } else {
      run += block;
    }
  }
  if (run) groups.push({ text: run });
  return groups;
}

/** Blocks waiting for their render, in order; drained in slices of `SLICE_MS`. */
export class BlockQueue {
  private readonly pending: Array<{ placeholder: HTMLElement; group: BlockGroup }> = [];
  private scheduled = false;
  /** Blocks rendered; the tests read it through the page. */
  rendered = 0;

  constructor(private readonly renderer: MarkdownRenderer) {}

  /** True while blocks wait. */
  get busy(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Appends `blocks` to `container`, rendering them until `deadline` (a `performance.now()` time);
   * the others show as plain text until a later slice renders them. Neighbouring blocks that pass
   * the guard render together, up to `GROUP_CHARS`, so a thousand short blocks are not a thousand
   * trips through the parser and the sanitizer.
   */
  append(container: HTMLElement, blocks: readonly string[], deadline: number): void {
    for (const group of groupBlocks(blocks)) {
      if (this.pending.length === 0 && performance.now() < deadline) {
        container.append(renderGroup(group, this.renderer));
        this.rendered += 1;
        continue;
      }
      const placeholder = h('div', { className: 'block-pending', testId: 'block-pending' }, new PlainText(group.text).element);
      container.append(placeholder);
      this.pending.push({ placeholder, group });
    }
    this.schedule();
  }

  /** Renders every waiting block now (tests, and the end of a stream that failed). */
  flush(): void {
    this.drain(Number.POSITIVE_INFINITY);
  }

  private drain(deadline: number): void {
    while (this.pending.length > 0 && performance.now() < deadline) {
      const { placeholder, group } = this.pending.shift()!;
      // A message re-rendered meanwhile: its old element is gone, so is the need to render it.
      if (!placeholder.isConnected) continue;
      placeholder.replaceWith(renderGroup(group, this.renderer));
      this.rendered += 1;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.pending.length === 0) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      this.drain(performance.now() + SLICE_MS);
      this.schedule();
    }, 0);
  }
}

/**
 * Fills `content` with `text` as Markdown, guarded: an answer past `PLAIN_ANSWER_CHARS` shows as
 * plain text with a Render button; a small ordinary one renders in one pass; anything else block
 * by block within the slice budget, refused blocks as plain text.
 */
export function fillGuarded(content: HTMLElement, text: string, renderer: MarkdownRenderer): void {
  if (text.length > PLAIN_ANSWER_CHARS) {
    content.replaceChildren(plainAnswer(new PlainText(text), text.length, () => renderInBlocks(content, text, renderer)));
    return;
  }
  if (text.length <= ONE_PASS_CHARS && blockTrouble(text) === undefined) {
    content.replaceChildren(renderMarkdown(text, renderer));
    return;
  }
  renderInBlocks(content, text, renderer);
}

/** Renders `text` block by block into `content` (what Render does for an answer past the size limit). */
export function renderInBlocks(content: HTMLElement, text: string, renderer: MarkdownRenderer): BlockQueue {
  const queue = new BlockQueue(renderer);
  content.replaceChildren();
  queue.append(content, splitBlocks(text), performance.now() + SLICE_MS);
  return queue;
}
