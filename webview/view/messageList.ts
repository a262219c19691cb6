/**
 * The conversation as an `aria-live` log of messages. A new `state` re-renders only the messages
 * whose view changed (keyed by node id), so switching a branch in a long conversation costs the
 * changed tail, not the whole path. The list holds the window of the path the host sent; a row
 * above it says how many older messages there are and loads them when it scrolls into view. A
 * streaming answer lives in its own bubble after the path.
 */
import type { Attachment, ErrorView, MessageView } from '../../src/shared/protocol';
import { h } from '../dom';
import { CODE_ACTIONS, codeOfButton } from '../render/codeBlocks';
import type { MarkdownRenderer } from '../render/markdown';
import type { StreamSnapshot } from '../streamBuffer';
import type { MessageActions } from './actions';
import { LiveBubble } from './liveBubble';
import { errorBlock } from './messageParts';
import { renderMessage, renderPlaceholder } from './messageView';
import { renderOutgoing } from './outgoingMessage';

/** What code block buttons ask for. */
export interface CodeActions {
  copy(text: string): void;
  insert(text: string): void;
  /** Apply to its file; `nodeId` is the answer holding the block (absent while it streams). */
  apply(text: string, nodeId: string | undefined): void;
}

/** What streams after the path: one answer's bubble, or the side-by-side columns of Ask Several Models. */
export interface LiveView {
  readonly element: HTMLElement;
  readonly requestId: string;
  readonly parentNodeId: string;
  /** Ended with an error: it stays until an answer takes its place. */
  readonly failed: boolean;
  /** The text so far (a single bubble; the columns have their own buffers). */
  update?(snapshot: StreamSnapshot): void;
  end(error: ErrorView | undefined, actions: MessageActions): void;
}

interface Entry {
  element: HTMLElement;
  signature: string;
  message: MessageView;
  isLast: boolean;
}

/** Messages at the end of the path rendered at once (more than a tall panel shows); earlier ones wait until seen. */
const EAGER_MESSAGES = 16;
/** How far outside the visible list a deferred message starts rendering. */
const HYDRATE_MARGIN = '1500px 0px';


/** Keeps the DOM of the message log in step with the path and the streaming answer. */
export class MessageList {
  readonly element: HTMLElement;
  private readonly entries = new Map<string, Entry>();
  private path: readonly MessageView[] = [];
  private live: LiveView | undefined;
  private outgoing: { requestId: string; element: HTMLElement } | undefined;
  /** The reader is at the end of the log, so new content keeps it there. */
  private pinned = true;
  private settleFrames = 0;
  /** Placeholders still waiting for their full render, with their node ids. */
  private readonly pending = new Map<Element, string>();
  private readonly hydrator: IntersectionObserver;
  private idleScheduled = false;
  /** First child: the older messages not held yet, and a button to load them. */
  private readonly earlier: HTMLElement;
  private earlierCount = 0;
  private loadingEarlier = false;

  constructor(
    private readonly renderer: MarkdownRenderer,
    private readonly actions: MessageActions,
    code: CodeActions,
  ) {
    this.element = h('main', {
      className: 'message-list',
      testId: 'message-list',
      attrs: { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' },
    });
    this.earlier = h('div', { className: 'load-earlier', testId: 'load-earlier', attrs: { hidden: '' } });
    this.earlier.addEventListener('click', () => this.requestEarlier());
    this.element.append(this.earlier);
    new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting) && !this.pinned) this.requestEarlier();
    }, { root: this.element, rootMargin: '400px 0px 0px 0px' }).observe(this.earlier);
    this.hydrator = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) {
            this.hydrate(entry.target);
          }
        }
      },
      { root: this.element, rootMargin: HYDRATE_MARGIN },
    );
    this.element.addEventListener('scroll', () => {
      this.pinned = this.isNearBottom();
    }, { passive: true });
    new ResizeObserver(() => {
      if (this.pinned) {
        this.scrollToBottom();
      }
    }).observe(this.element);
    this.element.addEventListener('click', (event) => {
      const button = (event.target as Element).closest('[data-action]');
      const text = button ? codeOfButton(button) : undefined;
      if (!button || text === undefined) {
        return;
      }
      if (button.getAttribute('data-action') === CODE_ACTIONS.copy) {
        code.copy(text);
        flash(button);
      } else if (button.getAttribute('data-action') === CODE_ACTIONS.insert) {
        code.insert(text);
      } else if (button.getAttribute('data-action') === CODE_ACTIONS.apply) {
        code.apply(text, (button.closest('[data-node-id]') as HTMLElement | null)?.dataset.nodeId);
      }
    });
  }

  /**
   * Shows `path` (the window the host sent; `earlier` older messages are not held). The outgoing
   * user bubble goes (the path has the stored message now); the live bubble stays while streaming,
   * or after a failure that left no answer in its place.
   */
  setPath(path: readonly MessageView[], busy: boolean, earlier = 0): void {
    const stick = this.pinned;
    // Messages added above keep what the reader looks at in place: hold the distance from the end.
    const fromEnd = this.element.scrollHeight - this.element.scrollTop;
    const prepended = path.length > 0 && this.path.length > 0 && path[0].nodeId !== this.path[0].nodeId && path.some((m) => m.nodeId === this.path[0].nodeId);
    this.setEarlier(earlier);
    this.path = path;
    const seen = new Set<string>();
    let index = 0;
    for (const message of path) {
      const isLast = index === path.length - 1;
      const signature = `${isLast ? 1 : 0}${JSON.stringify(message)}`;
      let entry = this.entries.get(message.nodeId);
      if (!entry || entry.signature !== signature) {
        const defer = index < path.length - EAGER_MESSAGES;
        const element = defer ? renderPlaceholder(message) : renderMessage(message, { isLast }, this.renderer, this.actions);
        if (entry) {
          this.forget(entry.element);
          entry.element.replaceWith(element);
        }
        if (defer) {
          this.defer(element, message.nodeId);
        }
        entry = { element, signature, message, isLast };
        this.entries.set(message.nodeId, entry);
      }
      seen.add(message.nodeId);
      const at = this.element.children[index + 1];
      if (at !== entry.element) {
        this.element.insertBefore(entry.element, at ?? null);
      }
      index += 1;
    }
    for (const [nodeId, entry] of this.entries) {
      if (!seen.has(nodeId)) {
        this.forget(entry.element);
        entry.element.remove();
        this.entries.delete(nodeId);
      }
    }
    this.outgoing?.element.remove();
    this.outgoing = undefined;
    const live = this.live;
    const last = path.at(-1);
    // A failed bubble stays under its question until the question itself shows the failure (`unanswered`).
    if (live && !busy && !(live.failed && last?.nodeId === live.parentNodeId && !last.unanswered)) {
      live.element.remove();
      this.live = undefined;
    }
    if (this.live) {
      this.element.append(this.live.element);
    }
    if (stick) {
      this.scrollToBottom();
    } else if (prepended) {
      this.element.scrollTop = this.element.scrollHeight - fromEnd;
    }
  }

  /** Shows how many older messages the path has beyond the window (none: the row hides). */
  private setEarlier(count: number): void {
    this.loadingEarlier = false;
    if (count === this.earlierCount) return;
    this.earlierCount = count;
    this.earlier.hidden = count === 0;
    this.earlier.replaceChildren(
      ...(count === 0
        ? []
        : [h('button', { className: 'load-earlier-button', testId: 'load-earlier-button', attrs: { type: 'button' }, text: `Show ${count === 1 ? '1 earlier message' : `${count.toLocaleString()} earlier messages`}` })]),
    );
  }

  private requestEarlier(): void {
    if (this.earlierCount === 0 || this.loadingEarlier) return;
    this.loadingEarlier = true;
    this.actions.loadEarlier();
  }

  /**
   * Shows a message the user just sent until the host's `state` has it. `replacing` (an edit) hides
   * that message and everything after it, since the edit becomes a sibling branch.
   */
  showOutgoing(requestId: string, text: string, attachments: readonly Attachment[], replacing?: string): void {
    if (replacing !== undefined) {
      const at = this.path.findIndex((message) => message.nodeId === replacing);
      if (at >= 0) {
        this.truncate(at);
      }
    }
    this.live?.element.remove();
    this.live = undefined;
    this.outgoing?.element.remove();
    this.outgoing = { requestId, element: renderOutgoing(requestId, text, attachments, this.renderer) };
    this.element.append(this.outgoing.element);
    this.scrollToBottom();
  }

  /**
   * Marks the outgoing bubble of a request that failed before its message was stored (the store could
   * not be reached) with the error, its fixes and Retry; the text is back in the box meanwhile.
   */
  failOutgoing(requestId: string, error: ErrorView, retry: () => void): boolean {
    if (this.outgoing?.requestId !== requestId) {
      return false;
    }
    const element = this.outgoing.element;
    element.classList.add('failed');
    element.dataset.failed = 'true';
    element.setAttribute('aria-label', 'You (not stored)');
    element.append(errorBlock(this.renderer.renderInline(error.message), error.retryable, { retry, runAction: (command) => this.actions.runAction(command) }, error.actions));
    return true;
  }

  /** Removes the outgoing bubble of a request the host refused. */
  dropOutgoing(requestId: string): void {
    if (this.outgoing?.requestId === requestId) {
      this.outgoing.element.remove();
      this.outgoing = undefined;
    }
  }

  /** Opens a live bubble after `parentNodeId`, hiding whatever the path showed after it. */
  startStream(requestId: string, parentNodeId: string, model: string): void {
    this.startLive(new LiveBubble(requestId, parentNodeId, model, this.renderer));
  }

  /** Opens a live view (a bubble, or the columns of several models) after its parent node, hiding what the path showed after it. */
  startLive(live: LiveView): void {
    this.live?.element.remove();
    const at = this.path.findIndex((message) => message.nodeId === live.parentNodeId);
    if (at >= 0) {
      this.truncate(at + 1);
    }
    this.live = live;
    const stick = this.pinned;
    this.element.append(this.live.element);
    if (stick) {
      this.scrollToBottom();
    }
  }

  /** Shows the streamed text so far (called at most once per animation frame by the stream buffer). */
  updateStream(snapshot: StreamSnapshot): void {
    if (!this.live) {
      return;
    }
    const stick = this.pinned;
    this.live.update?.(snapshot);
    if (stick) {
      this.scrollToBottom();
    }
  }

  /** The live view grew by itself (a column of several models): the end stays in view when the reader was there. */
  followLive(): void {
    if (this.pinned) {
      this.scrollToBottom();
    }
  }

  /** Ends the live bubble of `requestId`; false when no bubble belongs to it. */
  endStream(requestId: string, error: ErrorView | undefined): boolean {
    if (this.live?.requestId !== requestId) {
      return false;
    }
    this.live.end(error, this.actions);
    return true;
  }

  /**
   * Scrolls a message of the path into the middle of the view and highlights it (Go to Bookmark, a
   * search result). The reader is no longer at the end, so new content does not scroll it away.
   */
  reveal(nodeId: string): void {
    const placeholder = this.entries.get(nodeId)?.element;
    if (placeholder && this.pending.has(placeholder)) {
      this.hydrate(placeholder);
    }
    const element = this.entries.get(nodeId)?.element;
    if (!element) {
      return;
    }
    this.pinned = false;
    this.settleFrames = 0;
    this.element.querySelectorAll('.message.revealed').forEach((other) => other.classList.remove('revealed'));
    element.classList.add('revealed');
    element.scrollIntoView({ block: 'center' });
    // Messages above are sized by estimate until they render: settle once they have.
    requestAnimationFrame(() => requestAnimationFrame(() => element.scrollIntoView({ block: 'center' })));
  }

  /** Opens the inline editor on the last user message (Up in an empty composer); false when none. */
  editLastUserMessage(): boolean {
    const last = [...this.path].reverse().find((message) => message.role === 'user');
    const placeholder = last ? this.entries.get(last.nodeId)?.element : undefined;
    if (placeholder && this.pending.has(placeholder)) {
      this.hydrate(placeholder);
    }
    const button = last ? this.entries.get(last.nodeId)?.element.querySelector<HTMLButtonElement>('[data-testid="edit"]') : null;
    if (!button) {
      return false;
    }
    button.click();
    return true;
  }

  /** Removes the shown messages from index `from` on (a new branch replaces them). */
  private truncate(from: number): void {
    for (const message of this.path.slice(from)) {
      const element = this.entries.get(message.nodeId)?.element;
      if (element) {
        this.forget(element);
        element.remove();
      }
      this.entries.delete(message.nodeId);
    }
    this.path = this.path.slice(0, from);
  }

  private defer(placeholder: HTMLElement, nodeId: string): void {
    this.pending.set(placeholder, nodeId);
    this.hydrator.observe(placeholder);
    this.scheduleIdleHydration();
  }

  private forget(element: HTMLElement): void {
    if (this.pending.delete(element)) {
      this.hydrator.unobserve(element);
    }
  }

  /** Swaps a placeholder for the message's full element. */
  private hydrate(placeholder: Element): void {
    const nodeId = this.pending.get(placeholder);
    const entry = nodeId === undefined ? undefined : this.entries.get(nodeId);
    this.pending.delete(placeholder);
    this.hydrator.unobserve(placeholder);
    if (!entry || entry.element !== placeholder) {
      return;
    }
    const element = renderMessage(entry.message, { isLast: entry.isLast }, this.renderer, this.actions);
    placeholder.replaceWith(element);
    entry.element = element;
  }

  /** Renders deferred messages, newest first, in idle time, so every message is real soon after. */
  private scheduleIdleHydration(): void {
    if (this.idleScheduled) {
      return;
    }
    this.idleScheduled = true;
    requestIdleCallback((deadline) => {
      this.idleScheduled = false;
      const waiting = [...this.pending.keys()].reverse();
      for (const placeholder of waiting) {
        if (deadline.timeRemaining() < 3) {
          break;
        }
        this.hydrate(placeholder);
      }
      if (this.pending.size > 0) {
        this.scheduleIdleHydration();
      }
    });
  }

  private isNearBottom(): boolean {
    const el = this.element;
    return el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  }

  /**
   * Scrolls to the end, then again for a few frames: off-screen messages are sized by estimate
   * (content-visibility) until they render, so the end moves once they come into view.
   */
  private scrollToBottom(): void {
    this.element.scrollTop = this.element.scrollHeight;
    const running = this.settleFrames > 0;
    this.settleFrames = 4;
    if (running) {
      return;
    }
    const step = (): void => {
      if (!this.pinned || this.settleFrames <= 0) {
        this.settleFrames = 0;
        return;
      }
      this.settleFrames -= 1;
      this.element.scrollTop = this.element.scrollHeight;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }
}

function flash(button: Element): void {
  button.classList.add('done');
  setTimeout(() => button.classList.remove('done'), 1200);
}
