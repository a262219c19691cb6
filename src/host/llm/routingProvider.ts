/**
 * Sends each call to the provider its model belongs to: a VS Code model id (`vscode:<vendor>/<id>`) to
 * VS Code's language models, every other model to the provider the settings chose (Ollama or
 * OpenAI-compatible). A call that names no model goes where the configured default model belongs. Pure:
 * both providers are handed in.
 */
import { isVscodeModelId } from '../../core/index';
import type { CompletionOptions, ContextLength, LLMMessage, LLMProvider, LLMResponse, LLMStreamChunk, ModelInfo } from '../../core/index';

/** An `LLMProvider` over the configured provider and VS Code's models. */
export class RoutingProvider implements LLMProvider {
  constructor(
    /** The provider of the settings (`arbor.provider`). */
    readonly configured: LLMProvider,
    /** VS Code's language models. */
    readonly vscodeLm: LLMProvider,
  ) {}

  get name(): string {
    return this.configured.name;
  }

  get model(): string {
    return this.configured.model;
  }

  /** The provider that answers `model` (default: the configured default model). */
  providerFor(model?: string): LLMProvider {
    return isVscodeModelId(model?.trim() ? model : this.configured.model) ? this.vscodeLm : this.configured;
  }

  complete(messages: LLMMessage[], options?: CompletionOptions): Promise<LLMResponse> {
    return this.providerFor(options?.model).complete(messages, options);
  }

  stream(messages: LLMMessage[], options?: CompletionOptions): AsyncIterable<LLMStreamChunk> {
    return this.providerFor(options?.model).stream(messages, options);
  }

  /** The configured provider's models; VS Code's are listed apart, in their own group of the pickers. */
  listModels(): Promise<ModelInfo[]> {
    return this.configured.listModels();
  }

  /** Embeddings always come from the configured provider (VS Code offers none to extensions). */
  embed(texts: string[]): Promise<number[][]> {
    return this.configured.embed(texts);
  }

  async modelCapabilities(model: string): Promise<string[] | undefined> {
    const p = this.providerFor(model);
    return p.modelCapabilities ? p.modelCapabilities(model) : undefined;
  }

  async supportsTools(model?: string): Promise<boolean> {
    const p = this.providerFor(model);
    return p.supportsTools ? p.supportsTools(model) : true;
  }

  async supportsVision(model?: string): Promise<boolean> {
    const p = this.providerFor(model);
    return p.supportsVision ? p.supportsVision(model) : true;
  }

  async contextLength(model?: string, signal?: AbortSignal): Promise<ContextLength | undefined> {
    const p = this.providerFor(model);
    return p.contextLength ? p.contextLength(model, signal) : undefined;
  }
}
