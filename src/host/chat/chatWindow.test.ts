import { describe, expect, it } from 'vitest';
import type { ChatState, MessageView } from '../../shared/protocol';
import { PathWindow } from '../../../webview/pathWindow';
import { ChatWindow, WINDOW_SIZE, type WindowUpdate } from './chatWindow';

function view(nodeId: string, content = `text of ${nodeId}`): MessageView {
  return { nodeId, parentId: null, role: 'user', content, timestamp: '2026-01-01T00:00:00Z', siblings: { index: 1, count: 1 }, chips: [], attachments: [] };
}

function path(length: number, prefix = 'm'): string[] {
  return Array.from({ length }, (_, i) => `${prefix}${i}`);
}

/** The webview's side of the window: the real `PathWindow`, fed each update as the state it arrives in. */
class WebviewMirror {
  private readonly window = new PathWindow();
  apply(update: WindowUpdate): MessageView[] {
    return this.window.apply(update as unknown as ChatState);
  }
}

describe('ChatWindow', () => {
  it('holds the newest messages of a long path and sends each view once', () => {
    const window = new ChatWindow();
    const webview = new WebviewMirror();
    const ids = path(10_000);
    const first = window.update(ids, (i) => view(ids[i]));
    expect(first).toMatchObject({ pathLength: 10_000, windowStart: 10_000 - WINDOW_SIZE, keep: 0 });
    expect(first.views).toHaveLength(WINDOW_SIZE);
    expect(webview.apply(first).map((v) => v.nodeId)).toEqual(ids.slice(-WINDOW_SIZE));

    // One message added: the window slides by one, only the new view travels.
    const longer = [...ids, 'm10000'];
    const next = window.update(longer, (i) => view(longer[i]));
    expect(next.windowStart).toBe(10_001 - WINDOW_SIZE);
    expect(next.keep).toBe(0);
    expect(next.views.map((v) => v.nodeId)).toEqual(['m10000']);
    expect(webview.apply(next).map((v) => v.nodeId)).toEqual(longer.slice(-WINDOW_SIZE));
  });

  it('sends a branch switch as the ids after the fork and the views the webview lacks', () => {
    const window = new ChatWindow();
    const webview = new WebviewMirror();
    const main = path(30);
    webview.apply(window.update(main, (i) => view(main[i])));
    const other = [...main.slice(0, 20), 'b20', 'b21'];
    const update = window.update(other, (i) => view(other[i]));
    expect(update.keep).toBe(20);
    expect(update.ids).toEqual(['b20', 'b21']);
    expect(update.views.map((v) => v.nodeId)).toEqual(['b20', 'b21']);
    expect(webview.apply(update).map((v) => v.nodeId)).toEqual(other);
  });

  it('resends a view that changed (a new sibling, a rename) and nothing else', () => {
    const window = new ChatWindow();
    const webview = new WebviewMirror();
    const ids = path(5);
    webview.apply(window.update(ids, (i) => view(ids[i])));
    const update = window.update(ids, (i) => (i === 2 ? view(ids[i], 'renamed') : view(ids[i])));
    expect(update.keep).toBe(5);
    expect(update.ids).toEqual([]);
    expect(update.views.map((v) => v.content)).toEqual(['renamed']);
    expect(webview.apply(update)[2].content).toBe('renamed');
  });

  it('reaches further back on loadEarlier and keeps what was loaded while it stays on the path', () => {
    const window = new ChatWindow();
    const webview = new WebviewMirror();
    const ids = path(200);
    webview.apply(window.update(ids, (i) => view(ids[i])));
    window.loadEarlier();
    const earlier = window.update(ids, (i) => view(ids[i]));
    expect(earlier.windowStart).toBe(200 - 2 * WINDOW_SIZE);
    expect(earlier.views).toHaveLength(WINDOW_SIZE);
    expect(webview.apply(earlier)).toHaveLength(2 * WINDOW_SIZE);
    // A new message keeps the loaded range.
    const longer = [...ids, 'm200'];
    const next = window.update(longer, (i) => view(longer[i]));
    expect(next.windowStart).toBe(200 - 2 * WINDOW_SIZE);
    expect(next.keep).toBe(2 * WINDOW_SIZE);
    expect(webview.apply(next)).toHaveLength(2 * WINDOW_SIZE + 1);
    // A switch to a branch that leaves the path before the loaded range falls back to the newest messages.
    const other = [...ids.slice(0, 10), ...path(150, 'b')];
    const switched = window.update(other, (i) => view(other[i]));
    expect(switched.windowStart).toBe(other.length - WINDOW_SIZE);
    expect(webview.apply(switched).map((v) => v.nodeId)).toEqual(other.slice(-WINDOW_SIZE));
    // Loading never goes before the start.
    for (let i = 0; i < 10; i++) window.loadEarlier();
    expect(window.update(other, (i) => view(other[i])).windowStart).toBeGreaterThanOrEqual(0);
  });

  it('reaches back to a message far up the path (a bookmark) and keeps what follows it', () => {
    const window = new ChatWindow();
    const webview = new WebviewMirror();
    const ids = path(300);
    webview.apply(window.update(ids, (i) => view(ids[i])));
    window.reach(20);
    const reached = window.update(ids, (i) => view(ids[i]));
    expect(reached.windowStart).toBe(20);
    expect(webview.apply(reached).map((v) => v.nodeId)).toEqual(ids.slice(20));
    // A message already in the window changes nothing.
    window.reach(250);
    expect(window.update(ids, (i) => view(ids[i]))).toMatchObject({ windowStart: 20, views: [], ids: [] });
  });

  it('starts over after reset, as a reloaded webview has nothing', () => {
    const window = new ChatWindow();
    const ids = path(3);
    window.update(ids, (i) => view(ids[i]));
    window.reset();
    const again = window.update(ids, (i) => view(ids[i]));
    expect(again.keep).toBe(0);
    expect(again.views).toHaveLength(3);
  });
});
