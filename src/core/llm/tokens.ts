import type { LLMMessage } from '../types';

/**
 * Fast token estimates, used to fit history into a context window and to show sizes in the UI. They do not
 * load a tokenizer: English text and code average about 4 characters per token in the GPT and Llama
 * tokenizers, so the estimate is `ceil(characters / 4)`. Expect errors of ±30% on unusual text (CJK text
 * runs higher), which is why the context window keeps a margin rather than filling to the last token.
 */

/** Average characters per token assumed by the estimates. */
export const CHARS_PER_TOKEN = 4;
/** Tokens every message costs beyond its text (role markers and separators in the chat template). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens counted for one attached image (a low-detail image in OpenAI's accounting). */
export const IMAGE_TOKENS = 85;

/** Estimated tokens of a piece of text: `ceil(length / 4)`, 0 for empty text. */
export function estimateTokens(text: string | undefined | null): number {
  if (!text) return 0;
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * Estimated tokens of one message as sent to a model: its content, name, tool calls (name and JSON
 * arguments) and images, plus a fixed per-message overhead. `thinking` is not counted: it is not sent back.
 */
export function estimateMessageTokens(message: LLMMessage): number {
  let tokens = MESSAGE_OVERHEAD_TOKENS + estimateTokens(message.content);
  if (message.name) tokens += estimateTokens(message.name) + 1;
  if (message.toolCallId) tokens += estimateTokens(message.toolCallId);
  for (const call of message.toolCalls ?? []) {
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTokens(call.function.name) + estimateTokens(call.function.arguments);
  }
  tokens += (message.images?.length ?? 0) * IMAGE_TOKENS;
  return tokens;
}

/** Estimated tokens of a whole request: every message plus the few tokens that prime the reply. */
export function estimateMessagesTokens(messages: readonly LLMMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), 3);
}
