/**
 * One chat panel's webview end: what the chat posts goes out only while the page listens. Until the
 * page says `ready` (on first load, and again after a background tab's page was unloaded) state is not
 * sent (it goes fresh on `ready`), and one-off messages wait in a queue.
 */
import type * as vscode from 'vscode';
import type { AnswerMessage, RequestMessage, ToWebview } from '../../shared/protocol';
import type { AnswerFields } from './chatAnswers';
import { Disposable } from '../base/lifecycle';

/** See the file's header. */
export class ChatWebview extends Disposable {
  private ready = false;
  private readonly pending: ToWebview[] = [];

  /** `closed` says whether the chat was disposed (nothing is posted after that). */
  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly closed: () => boolean,
  ) {
    super();
    // A chat in a background tab has no page (it is not retained): it loads again when shown and says
    // `ready`. Until then nothing posted would arrive, so state waits (and a reveal with it).
    this._register(
      panel.onDidChangeViewState((e) => {
        if (!e.webviewPanel.visible) this.ready = false;
      }),
    );
  }

  /** Whether the page listens (it said `ready` and was not unloaded since). */
  get isReady(): boolean {
    return this.ready;
  }

  /** The page said `ready`: posts go out from now on (the queued ones with `flushPending`). */
  markReady(): void {
    this.ready = true;
  }

  /** Sends the one-off messages that waited for the page. */
  flushPending(): void {
    for (const m of this.pending.splice(0)) void this.panel.webview.postMessage(m);
  }

  post(message: ToWebview): void {
    if (this.closed()) return;
    if (!this.ready) {
      // State, models and prompts are sent fresh on `ready`; only one-off messages wait.
      if (message.type === 'attach' || message.type === 'notice') this.pending.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  /**
   * Posts an answer to a request with the request's id; the compiler holds it to the messages
   * `WebviewRequests` lists as answers to that request.
   */
  reply<M extends RequestMessage>(request: M, answer: AnswerFields<M>): void {
    // Omit<A, 'requestId'> plus the id is A again for each answer A; the compiler cannot see that through the generic.
    this.post({ ...answer, requestId: request.requestId } as unknown as AnswerMessage<M['type']>);
  }
}
