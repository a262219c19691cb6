/**
 * The typed handle to VS Code's webview API. `acquireVsCodeApi` may be called once per page, so the
 * handle is created here and shared; state saved with `setState` survives hiding and reloading the tab.
 */
import type { Attachment, FromWebview } from '../src/shared/protocol';

/** The small UI state kept across reloads; the host's panel serializer reads `conversationId`. */
export interface PersistedState {
  conversationId?: string;
  draft: string;
  attachments: readonly Attachment[];
  /**
   * The message last sent, until the host has stored it (its answer started): a send that fails before
   * (the team store unreachable) puts it back in the box, and a reload meanwhile restores it as the draft.
   */
  unsent?: { requestId: string; text: string; attachments: readonly Attachment[] };
}

/** What VS Code gives a webview script. */
export interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): PersistedState | undefined;
  setState(state: PersistedState): void;
}

declare global {
  function acquireVsCodeApi(): {
    postMessage(message: unknown): void;
    getState(): unknown;
    setState(state: unknown): void;
  };
}

/** Wraps the page's API in the protocol's types and reads back a saved state defensively. */
export function connectVsCode(): VsCodeApi {
  const raw = acquireVsCodeApi();
  return {
    postMessage: (message) => raw.postMessage(message),
    getState: () => readState(raw.getState()),
    setState: (state) => raw.setState(state),
  };
}

function readState(value: unknown): PersistedState | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const record = value as Record<string, unknown>;
  return {
    conversationId: typeof record.conversationId === 'string' ? record.conversationId : undefined,
    draft: typeof record.draft === 'string' ? record.draft : '',
    attachments: Array.isArray(record.attachments) ? (record.attachments as Attachment[]) : [],
  };
}

let counter = 0;

/** A request id unique within this page's life, for messages the host answers or streams to. */
export function newRequestId(): string {
  counter += 1;
  return `w${Date.now().toString(36)}-${counter}`;
}
