/**
 * Which part of a long path the chat webview holds, and what it already has. A path can be
 * thousands of messages long; the webview holds a window of it (the newest `WINDOW_SIZE` messages,
 * plus older ones the reader asked for) and each update sends only the window's ids from the first
 * one that changed and the views the webview lacks. Pure: the host's controller owns one per panel.
 */
import type { MessageView } from '../../shared/protocol';

/** How many of the newest messages a window holds, and how many more each `loadEarlier` adds. */
export const WINDOW_SIZE = 50;

/** What one update tells the webview (the window part of a `ChatState`). */
export interface WindowUpdate {
  pathLength: number;
  windowStart: number;
  keep: number;
  ids: string[];
  views: MessageView[];
}

/** Mirrors the webview's window: reset it whenever the webview starts over (`ready`). */
export class ChatWindow {
  /** `size`: how many of the newest messages the window holds, and how many each `loadEarlier` adds. */
  constructor(private readonly size = WINDOW_SIZE) {}

  private start: number | undefined;
  private ids: readonly string[] = [];
  /** The view of each message the webview holds, as sent (JSON), to send only what changed. */
  private sent = new Map<string, string>();
  private wantStart: number | undefined;
  /** A message the next update must hold (`reach`). */
  private reachIndex: number | undefined;
  /** The reader loaded older messages: the window keeps its start instead of sliding with the path. */
  private extended = false;

  /** The webview starts with nothing (it was created or reloaded). */
  reset(): void {
    this.start = undefined;
    this.ids = [];
    this.sent = new Map();
    this.wantStart = undefined;
    this.reachIndex = undefined;
    this.extended = false;
  }

  /** The reader scrolled to the top: the next update reaches `size` messages further back. */
  loadEarlier(): void {
    if (this.start !== undefined && this.start > 0) this.wantStart = Math.max(0, this.start - this.size);
  }

  /** The next update holds message `index` of its path (a bookmark far back in a long path), and what follows it. */
  reach(index: number): void {
    this.reachIndex = Math.max(0, index);
  }

  /**
   * The update for a path given by its ids (root→current, without an empty root), with `viewAt(i)`
   * building the view of message `i` (called only for messages in the window).
   */
  update(pathIds: readonly string[], viewAt: (index: number) => MessageView): WindowUpdate {
    const length = pathIds.length;
    const tail = Math.max(0, length - this.size);
    let start = tail;
    if (this.wantStart !== undefined) {
      start = Math.min(this.wantStart, tail);
      this.extended = true;
    } else if (this.extended && this.start !== undefined && this.start < tail && pathIds[this.start] === this.ids[0]) {
      // Older messages the reader loaded stay while they are still on the path.
      start = this.start;
    } else {
      this.extended = false;
    }
    if (this.reachIndex !== undefined && this.reachIndex < start) {
      start = this.reachIndex;
      this.extended = true;
    }
    this.wantStart = undefined;
    this.reachIndex = undefined;
    const ids = pathIds.slice(start);
    let keep = 0;
    if (start === this.start) {
      const max = Math.min(ids.length, this.ids.length);
      while (keep < max && ids[keep] === this.ids[keep]) keep++;
    }
    const views: MessageView[] = [];
    const sent = new Map<string, string>();
    for (let i = 0; i < ids.length; i++) {
      const view = viewAt(start + i);
      const json = JSON.stringify(view);
      if (this.sent.get(view.nodeId) !== json) views.push(view);
      sent.set(view.nodeId, json);
    }
    this.start = start;
    this.ids = ids;
    this.sent = sent;
    return { pathLength: length, windowStart: start, keep, ids: ids.slice(keep), views };
  }
}
