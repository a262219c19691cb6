/**
 * Which system prompt of `prompts/system/` a chat sends. Like the model (see `conversationModel.ts`), a
 * prompt picked in a chat is stored on its conversation and becomes the default (`arbor.systemPrompt`) for
 * new chats; a chat with none stored follows the default until its first answer pins it. Pure.
 */
import { readConversationMetadata } from '../../core/index';
import type { ConversationMetadata } from '../../core/index';
import { DEFAULT_SYSTEM_PROMPT, type ArborSettings } from '../settings/settings';

type PromptSettings = Pick<ArborSettings, 'systemPrompt'>;

/** Where the chat's system prompt name came from: picked in (or pinned on) the chat, or the setting. */
export interface ChosenSystemPrompt {
  /** A `prompts/system/` name; `''` for none. */
  name: string;
  /** Picked in the chat, or pinned at its first answer (else it follows `arbor.systemPrompt`). */
  stored: boolean;
}

/**
 * The chat's system prompt: the one stored on it, else the default from the settings. A conversation
 * whose root holds a system message of its own (imported, or made with one) keeps it unless a prompt is picked.
 */
export function conversationSystemPrompt(
  metadata: Readonly<Record<string, unknown>> | undefined,
  settings: PromptSettings,
  rootHasSystemMessage = false,
): ChosenSystemPrompt {
  const stored = readConversationMetadata(metadata, 'systemPrompt');
  if (stored !== undefined) return { name: stored.trim(), stored: true };
  return { name: rootHasSystemMessage ? '' : settings.systemPrompt, stored: false };
}

/** The metadata that makes `name` the chat's system prompt (`''`: none). */
export function systemPromptMetadata(name: string): Pick<ConversationMetadata, 'systemPrompt'> {
  return { systemPrompt: name.trim() };
}

/**
 * What a chat's system prompt resolves to against the prompts the library has. A missing prompt the
 * person chose (in the chat, or by naming it in `arbor.systemPrompt`) is an error with the fix; the
 * built-in default `default` quietly means none when the workspace has no `prompts/system/default.*`.
 */
export type SystemPromptResolution = { kind: 'none' } | { kind: 'prompt'; name: string } | { kind: 'missing'; name: string; message: string };

/** Resolves the chat's choice; `has` says whether `prompts/system/` holds a prompt of that name. */
export function resolveSystemPrompt(chosen: ChosenSystemPrompt, has: (name: string) => boolean): SystemPromptResolution {
  if (!chosen.name) return { kind: 'none' };
  if (has(chosen.name)) return { kind: 'prompt', name: chosen.name };
  if (!chosen.stored && chosen.name === DEFAULT_SYSTEM_PROMPT) return { kind: 'none' };
  const where = chosen.stored ? 'This chat uses' : 'arbor.systemPrompt names';
  return {
    kind: 'missing',
    name: chosen.name,
    message: `${where} the system prompt "${chosen.name}", but prompts/system/ has no such file. Pick another in the chat's header (or "None"), or add prompts/system/${chosen.name}.md.`,
  };
}

/**
 * Pins what the chat sent at its first answer when it has nothing stored, so a prompt picked later in
 * another chat (which changes the default) leaves this one be; `undefined` when it already has one.
 */
export function pinSystemPromptUpdate(metadata: Readonly<Record<string, unknown>> | undefined, resolution: SystemPromptResolution): Pick<ConversationMetadata, 'systemPrompt'> | undefined {
  if (readConversationMetadata(metadata, 'systemPrompt') !== undefined) return undefined;
  return systemPromptMetadata(resolution.kind === 'prompt' ? resolution.name : '');
}
