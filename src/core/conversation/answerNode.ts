import type { CompleteOptions } from './managerTypes';
import type { NodeMetadata } from '../metadataKeys';
import type { NewNode } from '../storage/storage';
import type { LLMMessage, LLMResponse } from '../types';

/** What goes into a model answer's node. */
export interface AnswerNodeInput {
  parentId: string;
  response: LLMResponse;
  options: CompleteOptions;
  /** The provider's name ("openai", "ollama"). */
  provider: string;
  /** How many messages the context window left out of the request. */
  droppedCount: number;
  /** Extra metadata, e.g. `interrupted` and `error` for a cut stream. */
  extra: Record<string, unknown>;
}

/**
 * Builds the assistant node for an answer (the store gives it its id): text, tool calls and thinking in the message; model,
 * provider, finish reason, usage and cost in the metadata, where cost totals read them.
 */
export function buildAnswerNode(input: AnswerNodeInput): NewNode {
  const { response, options } = input;
  const message: LLMMessage = { role: 'assistant', content: response.content };
  if (response.toolCalls?.length) message.toolCalls = structuredClone(response.toolCalls);
  if (response.thinking) message.thinking = response.thinking;
  const metadata: Record<string, unknown> & NodeMetadata = {
    ...structuredClone(options.metadata ?? {}),
    model: response.model,
    provider: input.provider,
    finishReason: response.finishReason,
    ...input.extra,
  };
  if (response.usage) metadata.usage = structuredClone(response.usage);
  if (response.costUsd !== undefined) metadata.costUsd = response.costUsd;
  if (input.droppedCount > 0) metadata.contextDroppedMessages = input.droppedCount;
  if (options.configOverrides && Object.keys(options.configOverrides).length > 0) metadata.configOverrides = structuredClone(options.configOverrides);
  if (Object.keys(response.metadata ?? {}).length > 0) metadata.response = structuredClone(response.metadata);
  const node: NewNode = { parentId: input.parentId, message, timestamp: new Date().toISOString(), metadata };
  if (options.branchName !== undefined) node.branchName = options.branchName;
  return node;
}
