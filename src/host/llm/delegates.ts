/**
 * Stand-ins handed to every `ConversationManager` that forward to whatever provider and prompt
 * builder the settings currently describe, so a settings change or a newly set key takes effect
 * for open conversations without re-opening them. Pure: no `vscode` import.
 */
import { InvalidOperationError } from '../../core/index';
import type {
  CompletionOptions,
  ConversationPromptBuilder,
  LLMMessage,
  LLMProvider,
  LLMResponse,
  LLMStreamChunk,
  ModelInfo,
  RenderOptions,
  RenderResult,
} from '../../core/index';

/** An `LLMProvider` that resolves the real one on every call. */
export class DelegatingProvider implements LLMProvider {
  constructor(
    private readonly current: () => Promise<LLMProvider>,
    private readonly describe: () => { name: string; model: string },
  ) {}

  get name(): string {
    return this.describe().name;
  }

  get model(): string {
    return this.describe().model;
  }

  async complete(messages: LLMMessage[], options?: CompletionOptions): Promise<LLMResponse> {
    return (await this.current()).complete(messages, options);
  }

  async *stream(messages: LLMMessage[], options?: CompletionOptions): AsyncIterable<LLMStreamChunk> {
    const provider = await this.current();
    yield* provider.stream(messages, options);
  }

  async listModels(): Promise<ModelInfo[]> {
    return (await this.current()).listModels();
  }

  async embed(texts: string[]): Promise<number[][]> {
    return (await this.current()).embed(texts);
  }

  /** Whether `model` takes tools, as the current provider says; one that cannot tell is trusted to. */
  async supportsTools(model?: string): Promise<boolean> {
    const provider = await this.current();
    return provider.supportsTools ? provider.supportsTools(model) : true;
  }

  /** Whether `model` takes images, as the current provider says; one that cannot tell is trusted to. */
  async supportsVision(model?: string): Promise<boolean> {
    const provider = await this.current();
    return provider.supportsVision ? provider.supportsVision(model) : true;
  }
}

/**
 * A prompt builder that resolves the workspace's builder on every render, and refuses named
 * prompts (with the reason) when there is none: an untrusted workspace or no folder open.
 */
export class DelegatingPromptBuilder implements ConversationPromptBuilder {
  constructor(private readonly current: () => Promise<ConversationPromptBuilder | undefined>, private readonly unavailableReason: () => string) {}

  private async builder(): Promise<ConversationPromptBuilder> {
    const b = await this.current();
    if (!b) throw new InvalidOperationError(this.unavailableReason());
    return b;
  }

  async renderSystemPrompt(name: string, options?: RenderOptions): Promise<RenderResult> {
    return (await this.builder()).renderSystemPrompt(name, options);
  }

  async renderUserPrompt(name: string, options?: RenderOptions): Promise<RenderResult> {
    return (await this.builder()).renderUserPrompt(name, options);
  }

  async renderInlineSystemPrompt(content: string, options?: RenderOptions): Promise<RenderResult> {
    const b = await this.current();
    return b ? b.renderInlineSystemPrompt(content, options) : { content, paramsUsed: {}, paramsMissing: [], validationWarnings: [] };
  }

  async renderInlineUserPrompt(content: string, options?: RenderOptions): Promise<RenderResult> {
    const b = await this.current();
    return b ? b.renderInlineUserPrompt(content, options) : { content, paramsUsed: {}, paramsMissing: [], validationWarnings: [] };
  }
}
