/**
 * The answers of an Ask Several Models run while they stream: one column per model side by side under
 * the question, each a live answer bubble fed by its own stream buffer (one render per frame at most).
 * A model that fails shows its error in its column; the others go on. When the run ends the chat's
 * next state shows the stored answers as siblings, with the `‹ n/m ›` switcher.
 */
import type { ErrorView } from '../../src/shared/protocol';
import { h } from '../dom';
import type { MarkdownRenderer } from '../render/markdown';
import { StreamBuffer } from '../streamBuffer';
import type { MessageActions } from './actions';
import { LiveBubble } from './liveBubble';

interface Column {
  bubble: LiveBubble;
  buffer: StreamBuffer;
  ended: boolean;
}

/** The side-by-side columns of one run. */
export class SeveralGrid {
  readonly element: HTMLElement;
  /** A run always leaves the chat to its state: the question shows a failure of every model itself. */
  readonly failed = false;
  private readonly columns: Column[];

  constructor(
    readonly requestId: string,
    readonly parentNodeId: string,
    models: readonly string[],
    renderer: MarkdownRenderer,
    private readonly actions: Pick<MessageActions, 'retry' | 'runAction'>,
    /** The grid grew (a frame of text): the list keeps its end in view. */
    onGrow: () => void,
  ) {
    this.columns = models.map((model) => {
      const bubble = new LiveBubble(requestId, parentNodeId, model, renderer);
      const buffer = new StreamBuffer((snapshot) => {
        bubble.update(snapshot);
        onGrow();
      });
      return { bubble, buffer, ended: false };
    });
    this.element = h(
      'section',
      {
        className: 'several-grid',
        testId: 'several-grid',
        dataset: { streaming: 'true', requestId, columns: String(models.length) },
        ariaLabel: `Answers of ${models.join(', ')}`,
        attrs: { 'aria-busy': 'true' },
      },
      ...this.columns.map((c, i) => h('div', { className: 'several-column', testId: 'several-column', dataset: { model: models[i], column: String(i) } }, c.bubble.element)),
    );
  }

  /** More text of one column. */
  push(column: number, delta: string, thinkingDelta?: string): void {
    this.columns[column]?.buffer.push(delta, thinkingDelta);
  }

  /** One column ended; its error shows in it (Retry belongs to the whole question, so it is not offered here). */
  endColumn(column: number, error: ErrorView | undefined): void {
    const c = this.columns[column];
    if (!c || c.ended) return;
    c.ended = true;
    c.buffer.flush();
    c.buffer.reset();
    c.bubble.end(error ? { ...error, retryable: false } : undefined, this.actions);
    this.element.querySelectorAll('.several-column')[column]?.setAttribute('data-done', error ? 'error' : 'true');
  }

  /** The run ended (or was refused): every column still open ends. */
  end(error: ErrorView | undefined): void {
    this.columns.forEach((_c, i) => this.endColumn(i, error));
    delete this.element.dataset.streaming;
    this.element.removeAttribute('aria-busy');
  }
}
