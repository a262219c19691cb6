import type { FinishReason, LLMResponse, LLMStreamChunk, ToolCall, Usage } from '../types';

/** Collects streamed chunks into the answer they add up to, so a stream ends as a `complete` would. */
export class StreamAccumulator {
  content = '';
  thinking = '';
  toolCalls: ToolCall[] = [];
  usage?: Usage;
  finishReason?: FinishReason;
  model?: string;
  costUsd?: number;

  add(chunk: LLMStreamChunk): void {
    this.content += chunk.delta ?? '';
    this.thinking += chunk.thinkingDelta ?? '';
    if (chunk.toolCalls?.length) this.toolCalls.push(...chunk.toolCalls);
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.finishReason) this.finishReason = chunk.finishReason;
    if (chunk.model) this.model = chunk.model;
    if (chunk.costUsd !== undefined) this.costUsd = chunk.costUsd;
  }

  /** Whether anything a person could have seen arrived. */
  get hasOutput(): boolean {
    return this.content.length > 0 || this.thinking.length > 0 || this.toolCalls.length > 0;
  }

  toResponse(defaultModel: string, finishReason?: FinishReason): LLMResponse {
    const response: LLMResponse = {
      content: this.content,
      model: this.model ?? defaultModel,
      finishReason: finishReason ?? this.finishReason ?? (this.toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      metadata: { streamed: true },
    };
    if (this.usage) response.usage = this.usage;
    if (this.toolCalls.length > 0) response.toolCalls = this.toolCalls;
    if (this.thinking) response.thinking = this.thinking;
    if (this.costUsd !== undefined) response.costUsd = this.costUsd;
    return response;
  }
}
