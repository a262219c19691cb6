import type { ConversationNode, LLMMessage, LLMResponse } from '../../types';

/** What a middleware may know about the conversation a request belongs to. */
export interface MiddlewareState {
  conversationId: string;
  /** The node the request answers (the current node when the call started). */
  currentNode: ConversationNode;
  /** The conversation's metadata (a copy: changing it changes nothing). */
  metadata: Record<string, unknown>;
}

/**
 * A step around every model call. `processRequest` runs in list order before the call and may
 * return changed messages; `processResponse` runs in reverse order after it (an onion), so the
 * first middleware sees the request first and the response last.
 */
export interface ConversationMiddleware {
  processRequest?(messages: LLMMessage[], state: MiddlewareState): LLMMessage[] | Promise<LLMMessage[]>;
  processResponse?(response: LLMResponse, state: MiddlewareState): LLMResponse | Promise<LLMResponse>;
}

/** Runs every `processRequest` in list order. */
export async function runRequestMiddleware(
  middleware: readonly ConversationMiddleware[],
  messages: LLMMessage[],
  state: MiddlewareState,
): Promise<LLMMessage[]> {
  let current = messages;
  for (const m of middleware) {
    if (m.processRequest) {
      current = await m.processRequest(current, state);
    }
  }
  return current;
}

/** Runs every `processResponse` in reverse list order. */
export async function runResponseMiddleware(
  middleware: readonly ConversationMiddleware[],
  response: LLMResponse,
  state: MiddlewareState,
): Promise<LLMResponse> {
  let current = response;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const m = middleware[i];
    if (m.processResponse) {
      current = await m.processResponse(current, state);
    }
  }
  return current;
}
