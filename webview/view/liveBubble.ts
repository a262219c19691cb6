/**
 * The assistant bubble of an answer while it streams: Markdown rendered block by block as the
 * stream buffer flushes (once per frame), thinking text collapsed, and at the end either nothing
 * more (the next `state` replaces it) or the error inline with Retry.
 */
import type { ErrorView } from '../../src/shared/protocol';
import { h, icon } from '../dom';
import { LiveMarkdown } from '../render/liveMarkdown';
import type { MarkdownRenderer } from '../render/markdown';
import type { StreamSnapshot } from '../streamBuffer';
import type { MessageActions } from './actions';
import { errorBlock } from './messageParts';
import { interruptedBadge, messageHeader } from './messageView';
import { thinkingSummary } from './thinking';

/** One streaming (or just ended) answer. */
export class LiveBubble {
  readonly element: HTMLElement;
  private readonly content: HTMLElement;
  private readonly thinking: HTMLDetailsElement;
  /** The thinking shown so far; a frame appends only what is new instead of replacing all of it. */
  private readonly thinkingText = document.createTextNode('');
  private readonly markdown: LiveMarkdown;
  /** The stream ended with an error; the bubble stays until an answer takes its place. */
  failed = false;

  constructor(
    readonly requestId: string,
    readonly parentNodeId: string,
    model: string,
    private readonly renderer: MarkdownRenderer,
  ) {
    this.content = h('div', { className: 'message-content markdown', testId: 'message-content' });
    this.thinking = h('details', { className: 'thinking', testId: 'thinking' }, thinkingSummary(), h('div', { className: 'thinking-content' }, this.thinkingText));
    this.thinking.hidden = true;
    this.element = h(
      'article',
      {
        className: 'message role-assistant streaming',
        testId: 'message',
        dataset: { role: 'assistant', nodeId: '', streaming: 'true', requestId },
        ariaLabel: `Assistant (${model}), answering`,
        attrs: { 'aria-busy': 'true' },
      },
      messageHeader('assistant', h('span', { className: 'streaming-indicator', testId: 'streaming-indicator' }, icon('loading'), ' answering')),
      this.thinking,
      this.content,
      h('footer', { className: 'message-meta' }, h('span', { className: 'meta-model', testId: 'message-model', text: model })),
    );
    this.markdown = new LiveMarkdown(this.content, renderer);
  }

  /** Shows the text so far. */
  update(snapshot: StreamSnapshot): void {
    this.markdown.update(snapshot.text);
    // Observable count of renders, for the tests and the benchmark that check frame batching.
    this.content.dataset.renders = String(this.markdown.renders);
    if (snapshot.thinking.length > this.thinkingText.length) {
      this.thinking.hidden = false;
      this.thinkingText.appendData(snapshot.thinking.slice(this.thinkingText.length));
    }
  }

  /** The stream ended: marked failed with the error and Retry, or simply no longer streaming. */
  end(error: ErrorView | undefined, actions: Pick<MessageActions, 'retry' | 'runAction'>): void {
    this.element.classList.remove('streaming');
    delete this.element.dataset.streaming;
    this.element.removeAttribute('aria-busy');
    this.element.querySelector('.streaming-indicator')?.remove();
    this.markdown.finish();
    if (error) {
      this.failed = true;
      this.element.querySelector('.message-meta')?.append(interruptedBadge(true));
      this.element.append(errorBlock(this.renderer.renderInline(error.message), error.retryable, actions, error.actions));
    }
  }
}
