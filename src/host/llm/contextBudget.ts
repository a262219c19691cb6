/**
 * The context budget of a chat: the model's context length (as the provider lists it, cached per
 * provider and model), the tokens kept for the answer, and the usage view the header's meter shows.
 */
import { ESTIMATE_COUNTER, isVscodeModelId, type ContextUsage, type ConversationManager, type ConversationNode, type LLMMessage, type LLMProvider, type PathTokenCache, type TokenCounter, type ToolDefinition, type UsageCounter } from '../../core/index';
import type { Attachment, UsageView } from '../../shared/protocol';
import type { ArborSettings } from '../settings/settings';

/** Tokens kept free for the answer: a tenth of the window, at most 4,096. */
export function answerReserve(limit: number | undefined): number {
  return limit ? Math.min(4096, Math.floor(limit / 10)) : 0;
}

/**
 * The context length of a model: what the provider says (Ollama: the `num_ctx` it sends, from `/api/show`
 * and the settings; OpenAI: the table and `arbor.contextLength`), else what its model list reports
 * (vLLM's `max_model_len`), cached per provider and model; a failed listing is asked again next time.
 */
export class ContextLengths {
  private readonly listed = new Map<string, Promise<number | undefined>>();

  /** The tokens one request to `model` may hold, or `undefined` when nobody says. */
  async get(provider: LLMProvider, model: string): Promise<number | undefined> {
    const known = await provider.contextLength?.(model).catch(() => undefined);
    if (known) return known.maxInputTokens ?? known.tokens;
    // VS Code's models say theirs (maxInputTokens); the configured provider's list does not have them.
    if (isVscodeModelId(model)) return undefined;
    const key = `${provider.name}\u0000${model}`;
    let found = this.listed.get(key);
    if (!found) {
      found = provider.listModels().then(
        (models) => models.find((m) => m.id === model || m.id === `${model}:latest` || `${m.id}:latest` === model)?.contextLength,
        () => {
          this.listed.delete(key);
          return undefined;
        },
      );
      this.listed.set(key, found);
    }
    return found;
  }
}

/**
 * Counts for the meter through a chat's `PathTokenCache`: the path is counted in one pass and each
 * node's count comes from the cache, so typing recounts only the draft.
 */
export class MeterCounter implements UsageCounter {
  constructor(readonly cache: PathTokenCache) {}

  get exact(): boolean {
    return this.cache.counter.exact;
  }

  countMessage(message: LLMMessage): number {
    return this.cache.counter.countMessage(message);
  }

  prepare(nodes: readonly ConversationNode[]): void {
    this.cache.count(nodes);
  }

  countNode(node: ConversationNode): number {
    return this.cache.tokensOf(node.nodeId) ?? this.cache.counter.countMessage(node.message);
  }

  /** Tokens of tool definitions on the wire; the last few sets are remembered, as the meter asks on every keystroke. */
  countTools(tools: readonly ToolDefinition[] | undefined): number {
    return tools?.length ? this.toolCounter()(tools) : 0;
  }

  /**
   * The tools' count as one function per counter and calibration: the engine's fitting keeps its per-tool
   * counts by this function, so it stays the same while the counts would, and changes when they would not.
   */
  toolCounter(): (tools: readonly ToolDefinition[]) => number {
    const counter = this.cache.counter;
    const key = `${counter.method}\u0000${counter.revision}`;
    if (this.tools?.key === key && this.tools.counter === counter) return this.tools.count;
    const counts = new Map<string, number>();
    const count = (tools: readonly ToolDefinition[]): number => {
      if (!tools.length) return 0;
      const text = JSON.stringify(tools);
      let tokens = counts.get(text);
      if (tokens === undefined) {
        tokens = counter.countTools(tools);
        if (counts.size >= 16) counts.delete(counts.keys().next().value as string);
        counts.set(text, tokens);
      }
      return tokens;
    };
    this.tools = { key, counter, count };
    return count;
  }

  private tools?: { key: string; counter: TokenCounter; count: (tools: readonly ToolDefinition[]) => number };
}

/** `usage` with the tool definitions' tokens in: the meter fits the tools after counting the rest. */
export function withToolTokens(usage: ContextUsage, tools: number): ContextUsage {
  const used = usage.used - usage.parts.tools + tools;
  return {
    ...usage,
    used,
    parts: { ...usage.parts, tools },
    ...(usage.limit !== undefined ? { fraction: (used + usage.reserved) / usage.limit } : {}),
  };
}

/** Which part of which file an attachment is, as a key for the attachments the meter has read. */
export function attachmentKey(a: Attachment): string {
  return `${a.path}:${a.startLine ?? ''}-${a.endLine ?? ''}`;
}

/** The meter's view of a usage. */
export function usageView(usage: ContextUsage, settings: Pick<ArborSettings, 'autoCompactPercent'>, tools?: { offered: number; total: number }): UsageView {
  return {
    ...(tools ? { tools } : {}),
    used: usage.used,
    ...(usage.limit !== undefined ? { limit: usage.limit } : {}),
    reserved: usage.reserved,
    exact: usage.exact,
    parts: usage.parts,
    autoCompactAt: settings.autoCompactPercent / 100,
  };
}

/** The usage of the next request of a chat, with a draft (and the chat's own system prompt in place of the root's, then its instruction files). */
export function chatUsage(
  manager: ConversationManager,
  limit: number | undefined,
  draft: string,
  counter: UsageCounter = ESTIMATE_COUNTER,
  systemOverride?: string,
  tools?: readonly ToolDefinition[],
  instructions?: string,
): ContextUsage {
  return manager.getContextUsage({
    draft,
    limit,
    reserve: answerReserve(limit),
    counter,
    ...(systemOverride !== undefined ? { systemOverride } : {}),
    ...(instructions ? { instructions } : {}),
    ...(tools?.length ? { tools } : {}),
  });
}
