import type { Logger } from '../../files';
import type { LLMMessage, LLMResponse } from '../../types';
import type { ConversationMiddleware, MiddlewareState } from './middleware';

/** Options of `LoggingMiddleware`. */
export interface LoggingMiddlewareOptions {
  /** Also log message and answer text. Off by default: conversations may hold code and secrets. */
  logContents?: boolean;
}

/**
 * Logs each request (message count and characters) and each answer (model, finish reason,
 * tokens, cost) to any `Logger`, without the text unless asked.
 */
export class LoggingMiddleware implements ConversationMiddleware {
  constructor(
    private readonly logger: Logger,
    private readonly options: LoggingMiddlewareOptions = {},
  ) {}

  processRequest(messages: LLMMessage[], state: MiddlewareState): LLMMessage[] {
    const chars = messages.reduce((sum, m) => sum + m.content.length, 0);
    this.logger.info(
      `arbor request: conversation=${state.conversationId} node="${state.currentNode.nodeId}" messages=${messages.length} chars=${chars}`,
    );
    if (this.options.logContents) {
      this.logger.debug('arbor request messages', messages.map((m) => ({ role: m.role, content: m.content })));
    }
    return messages;
  }

  processResponse(response: LLMResponse, state: MiddlewareState): LLMResponse {
    const usage = response.usage;
    this.logger.info(
      `arbor response: conversation=${state.conversationId} model=${response.model} finish=${response.finishReason} ` +
        `chars=${response.content.length} promptTokens=${usage?.promptTokens ?? '?'} completionTokens=${usage?.completionTokens ?? '?'}` +
        (response.costUsd !== undefined ? ` costUsd=${response.costUsd}` : ''),
    );
    if (this.options.logContents) {
      this.logger.debug('arbor response content', response.content);
    }
    return response;
  }
}
