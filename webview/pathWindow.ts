/**
 * The webview's side of the path window (the host's `ChatWindow`): the ids of the messages it holds
 * and their views. Each `state` says how many leading ids stay, the ids after them, and the views
 * that are new or changed; views of messages that left the window are dropped.
 */
import type { ChatState, MessageView } from '../src/shared/protocol';

export class PathWindow {
  private ids: readonly string[] = [];
  private views = new Map<string, MessageView>();

  /** Applies a state and returns the window's messages, oldest first. */
  apply(state: ChatState): MessageView[] {
    this.ids = state.keep > 0 ? [...this.ids.slice(0, state.keep), ...state.ids] : state.ids;
    const views = new Map<string, MessageView>();
    for (const view of state.views) this.views.set(view.nodeId, view);
    const path: MessageView[] = [];
    for (const id of this.ids) {
      const view = this.views.get(id);
      if (!view) {
        // The host sends every view the window lacks; a gap means the two sides disagree.
        console.error(`Arbor: no view of message ${id} in the chat window.`);
        continue;
      }
      views.set(id, view);
      path.push(view);
    }
    this.views = views;
    return path;
  }
}
