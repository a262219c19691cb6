/**
 * The context budget of a chat: the model's context length (as the provider lists it, cached per
 * provider and model), the tokens kept for the answer, and the usage view the header's meter shows.
 */
import { ESTIMATE_COUNTER, type ContextUsage, type ConversationManager, type LLMProvider } from '../core/index';
import type { Attachment, UsageView } from '../shared/protocol';
import type { ArborSettings } from './settings';

/** Tokens kept free for the answer: a tenth of the window, at most 4,096. */
export function answerReserve(limit: number | undefined): number {
  return limit ? Math.min(4096, Math.floor(limit / 10)) : 0;
}

/** Context lengths the provider lists, per provider and model; a failed listing is asked again next time. */
export class ContextLengths {
  private readonly known = new Map<string, Promise<number | undefined>>();

  /** The context length of `model`, or `undefined` when the server does not say. */
  get(provider: LLMProvider, model: string): Promise<number | undefined> {
    const key = `${provider.name}\u0000${model}`;
    let found = this.known.get(key);
    if (!found) {
      found = provider.listModels().then(
        (models) => models.find((m) => m.id === model || m.id === `${model}:latest` || `${m.id}:latest` === model)?.contextLength,
        () => {
          this.known.delete(key);
          return undefined;
        },
      );
      this.known.set(key, found);
    }
    return found;
  }
}

/** Which part of which file an attachment is, as a key for the sizes the meter remembers. */
export function attachmentKey(a: Attachment): string {
  return `${a.path}:${a.startLine ?? ''}-${a.endLine ?? ''}`;
}

/**
 * The draft as the next user message: its text and the text of attached selections; a file counts
 * as text of the length it was read at (`fileSizes`, by `attachmentKey`).
 */
export function draftText(text: string, attachments: readonly Attachment[], fileSizes: ReadonlyMap<string, number>): string {
  const parts = [text];
  for (const a of attachments) {
    if (a.text) parts.push(a.text);
    else parts.push('x'.repeat(fileSizes.get(attachmentKey(a)) ?? 0));
  }
  return parts.filter(Boolean).join('\n\n');
}

/** The meter's view of a usage. */
export function usageView(usage: ContextUsage, settings: Pick<ArborSettings, 'autoCompactPercent'>): UsageView {
  return {
    used: usage.used,
    ...(usage.limit !== undefined ? { limit: usage.limit } : {}),
    reserved: usage.reserved,
    exact: usage.exact,
    parts: usage.parts,
    autoCompactAt: settings.autoCompactPercent / 100,
  };
}

/** The usage of the next request of a chat, with a draft. */
export function chatUsage(manager: ConversationManager, limit: number | undefined, draft: string): ContextUsage {
  return manager.getContextUsage({ draft, limit, reserve: answerReserve(limit), counter: ESTIMATE_COUNTER });
}
