/**
 * A chat's system prompt and request options, on the host side: what the header's picker and options
 * form show (`chatOptions`), what they change, and what each request sends.
 *
 * The system prompt enters the request at request time, as the first system message of the path
 * (`CompleteOptions.systemPromptOverride`), not as a node of the tree. So changing it mid-conversation
 * leaves the history as it was (no node is added, moved or rewritten; branches and `‹ n/m ›` stay put),
 * the next request simply carries the new text; and the context window always keeps system messages,
 * so it is never trimmed away however long the chat grows. Each answer records which prompt (name,
 * file, git blob id) it was made with in `metadata.systemPrompt`.
 */
import { InvalidOperationError, parseChatRequestOptions, readConversationMetadata, ROOT_NODE_ID, requestOverrides, COMPACT_PROMPT_NAME } from '../../core/index';
import type { ChatRequestOptions, CompleteOptions, ConversationManager, ConversationMetadata, ThinkingSupport } from '../../core/index';
import type { ChatOptionsMessage, RequestOptionsView, ToWebview } from '../../shared/protocol';
import { conversationModel } from '../conversations/conversationModel';
import { conversationSystemPrompt, pinSystemPromptUpdate, resolveSystemPrompt } from '../conversations/conversationSystemPrompt';
import { editorValues } from './editorActions';
import { MissingSystemPromptError } from './errorView';
import type { ChatServices } from './chatServices';

/** What one request sends beside the path: the model's overrides, the system prompt, the instruction files, and what the answer records. */
export type RequestPlan = Pick<CompleteOptions, 'configOverrides' | 'systemPromptOverride' | 'instructions' | 'metadata'>;

/** Capabilities Ollama reported, by host and model, so a chat asks once per model. */
const capabilityCache = new Map<string, Promise<ThinkingSupport>>();

/** The header's system prompt and request options of one chat panel. */
export class ChatOptions {
  constructor(
    private readonly services: ChatServices,
    private readonly conversationId: string,
    private readonly post: (message: ToWebview) => void,
  ) {}

  /** Sends what the header shows: the system prompts, the chat's choice, its options and whether its model thinks. */
  async postOptions(): Promise<void> {
    try {
      this.post(await this.message());
    } catch (err) {
      this.services.logger.warn(`Could not read the options of conversation ${this.conversationId}`, err);
    }
  }

  private async message(): Promise<ChatOptionsMessage> {
    const manager = await this.services.manager(this.conversationId);
    const metadata = manager.getMetadata() as Record<string, unknown>;
    const library = this.services.trusted ? await this.services.promptLibrary() : undefined;
    // `compact` is the summary prompt of compactions, not a chat's system prompt.
    const systemPrompts = (library?.listPrompts() ?? []).filter((p) => p.kind === 'system' && p.name !== COMPACT_PROMPT_NAME).map((p) => ({ name: p.name, description: p.description }));
    const chosen = conversationSystemPrompt(metadata, this.services.settings, rootHasSystemMessage(manager));
    // Without a library nothing from it is sent (see `plan`), so the picker shows None rather than a missing prompt.
    const resolution = library ? resolveSystemPrompt(chosen, (name) => systemPrompts.some((p) => p.name === name)) : ({ kind: 'none' } as const);
    const note = !this.services.trusted
      ? 'System prompts from the workspace are off in Restricted Mode.'
      : !library
        ? 'Open a folder with a prompts/system/ folder to pick a system prompt.'
        : undefined;
    return {
      type: 'chatOptions',
      systemPrompts,
      systemPrompt: resolution.kind === 'none' ? '' : chosen.name,
      ...(note ? { systemPromptNote: note } : {}),
      requestOptions: chatRequestOptions(metadata),
      thinking: await this.thinkingSupport(conversationModel(metadata, this.services.settings)),
      provider: this.services.settings.provider,
    };
  }

  /** The chat sends `name` from its next request on, and new chats start with it; the history is kept as it is. */
  async selectSystemPrompt(name: string): Promise<void> {
    await this.services.selectSystemPrompt(name, this.conversationId);
    await this.postOptions();
  }

  /** Replaces the chat's request options with the valid fields of `options`. */
  async setRequestOptions(options: RequestOptionsView): Promise<void> {
    const parsed = parseChatRequestOptions(options) ?? {};
    const key: keyof ConversationMetadata = 'requestOptions';
    // No option set: the key goes, and the chat sends the server's defaults again.
    await this.services.withManager(this.conversationId, (m) => m.setMetadata(key, Object.keys(parsed).length > 0 ? parsed : undefined));
    await this.postOptions();
  }

  /**
   * What the next request of the chat sends: its model with the chat's options (thinking only when the
   * model can), `arbor.requestOptions`, the system prompt rendered now and the instruction files that
   * apply (the answer records which). Pins the system prompt on a chat that had none stored. Throws,
   * with the fix, when the chat's chosen prompt is gone.
   */
  async plan(manager: ConversationManager, model: string): Promise<RequestPlan> {
    const plan = await this.promptPlan(manager, model);
    const instructions = await this.services.instructions.forRequest(manager);
    if (instructions.refs.length === 0) return plan;
    return { ...plan, ...(instructions.text ? { instructions: instructions.text } : {}), metadata: { ...(plan.metadata ?? {}), instructions: instructions.refs } };
  }

  /** The chat's model and its options (temperature, thinking…) as a request sends them; a flow's steps use these. */
  async configOverrides(manager: ConversationManager, model: string): Promise<RequestPlan['configOverrides']> {
    return requestOverrides(model, chatRequestOptions(manager.getMetadata() as Record<string, unknown>), await this.thinkingSupport(model), this.services.settings.requestOptions);
  }

  /** The model's options and the system prompt of the next request (see `plan`). */
  private async promptPlan(manager: ConversationManager, model: string): Promise<RequestPlan> {
    const metadata = manager.getMetadata() as Record<string, unknown>;
    const configOverrides = await this.configOverrides(manager, model);
    const library = this.services.trusted ? await this.services.promptLibrary() : undefined;
    const chosen = conversationSystemPrompt(metadata, this.services.settings, rootHasSystemMessage(manager));
    // Without a library (restricted mode, no folder) no workspace prompt can be sent: the chat runs without one.
    const resolution = library ? resolveSystemPrompt(chosen, (name) => library.getSystemPrompt(name) !== undefined) : ({ kind: 'none' } as const);
    if (resolution.kind === 'missing') throw new MissingSystemPromptError(`${resolution.message} Nothing was sent.`);
    const pin = pinSystemPromptUpdate(metadata, resolution);
    if (pin && library) await manager.setMetadata(pin);
    if (resolution.kind === 'none') return { configOverrides };
    const builder = await this.services.promptBuilder();
    if (!builder) throw new InvalidOperationError(`The system prompt "${resolution.name}" cannot be rendered: the workspace's prompts are not available.`);
    const { selection: _selection, ...values } = editorValues(this.services);
    const rendered = await builder.renderSystemPrompt(resolution.name, { params: values, includeRag: true });
    return {
      configOverrides,
      systemPromptOverride: rendered.content,
      ...(rendered.prompt ? { metadata: { systemPrompt: { ...rendered.prompt } } } : {}),
    };
  }

  /**
   * The chat's system prompt as the next request would send it, for the context meter: rendered
   * without retrieval and without pinning anything; `undefined` when the chat sends none or it cannot
   * be rendered (the request itself then says why).
   */
  async systemPromptText(manager: ConversationManager): Promise<string | undefined> {
    try {
      const library = this.services.trusted ? await this.services.promptLibrary() : undefined;
      if (!library) return undefined;
      const chosen = conversationSystemPrompt(manager.getMetadata() as Record<string, unknown>, this.services.settings, rootHasSystemMessage(manager));
      const resolution = resolveSystemPrompt(chosen, (name) => library.getSystemPrompt(name) !== undefined);
      if (resolution.kind !== 'prompt') return undefined;
      const { selection: _selection, ...values } = editorValues(this.services);
      return (await (await this.services.promptBuilder())?.renderSystemPrompt(resolution.name, { params: values, includeRag: false }))?.content;
    } catch {
      return undefined;
    }
  }

  /** Whether the model thinks, as the provider reports it (asked once per model and server). */
  private async thinkingSupport(model: string): Promise<ThinkingSupport> {
    const s = this.services.settings;
    if (s.provider !== 'ollama') return 'unknown';
    const key = `${s.ollamaHost}|${model}`;
    let support = capabilityCache.get(key);
    if (!support) {
      support = this.services
        .provider()
        .then((p) => p.modelCapabilities?.(model))
        .then((caps): ThinkingSupport => (caps === undefined ? 'unknown' : caps.includes('thinking') ? 'supported' : 'unsupported'));
      capabilityCache.set(key, support);
      // A failed look-up (server down) is asked again next time instead of being remembered.
      support.catch(() => capabilityCache.delete(key));
    }
    return support.catch(() => 'unknown' as const);
  }
}

/** The chat's stored request options (empty when none are set). */
function chatRequestOptions(metadata: Readonly<Record<string, unknown>>): ChatRequestOptions {
  return readConversationMetadata(metadata, 'requestOptions') ?? {};
}

function rootHasSystemMessage(manager: ConversationManager): boolean {
  return manager.getNode(ROOT_NODE_ID).message.content !== '';
}
