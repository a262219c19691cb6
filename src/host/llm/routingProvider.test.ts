import { describe, expect, it } from 'vitest';
import type { CompletionOptions, LLMMessage, LLMProvider, LLMStreamChunk } from '../../core/index';
import { RoutingProvider } from './routingProvider';

/** A provider that answers with its own name and records the models it was asked for. */
function named(name: string, model: string, extra: Partial<LLMProvider> = {}): LLMProvider & { asked: (string | undefined)[] } {
  const asked: (string | undefined)[] = [];
  return {
    name,
    model,
    asked,
    complete: async (_m: LLMMessage[], o?: CompletionOptions) => {
      asked.push(o?.model);
      return { content: name, model: o?.model ?? model, finishReason: 'stop', metadata: {} };
    },
    async *stream(_m: LLMMessage[], o?: CompletionOptions): AsyncIterable<LLMStreamChunk> {
      asked.push(o?.model);
      yield { delta: name, done: true };
    },
    listModels: async () => [{ id: `${name}-model` }],
    embed: async () => [[name.length]],
    ...extra,
  };
}

describe('RoutingProvider', () => {
  it('sends vscode: models to VS Code and every other model to the configured provider', async () => {
    const ollama = named('ollama', 'llama3.2');
    const vscode = named('vscode', '', { supportsTools: async () => true, supportsVision: async () => false, contextLength: async () => ({ tokens: 64000, source: 'model' }) });
    const router = new RoutingProvider(ollama, vscode);
    expect((await router.complete([], { model: 'vscode:copilot/gpt-4o' })).content).toBe('vscode');
    expect((await router.complete([], { model: 'qwen2.5' })).content).toBe('ollama');
    const chunks: string[] = [];
    for await (const c of router.stream([], { model: 'vscode:copilot/gpt-4o' })) chunks.push(c.delta);
    expect(chunks).toEqual(['vscode']);
    expect(vscode.asked).toEqual(['vscode:copilot/gpt-4o', 'vscode:copilot/gpt-4o']);
    expect(ollama.asked).toEqual(['qwen2.5']);
    expect(await router.contextLength('vscode:copilot/gpt-4o')).toEqual({ tokens: 64000, source: 'model' });
    expect(await router.contextLength('qwen2.5')).toBeUndefined();
    // Images: the VS Code model says no; the configured provider, which cannot tell, is trusted to take them.
    expect(await router.supportsVision('vscode:copilot/gpt-4o')).toBe(false);
    expect(await router.supportsVision('qwen2.5')).toBe(true);
    expect(await router.listModels()).toEqual([{ id: 'ollama-model' }]);
    expect(await router.embed(['x'])).toEqual([[6]]);
    expect(router.name).toBe('ollama');
  });

  it('follows the default model when a call names none', async () => {
    const openai = named('openai', 'vscode:copilot/gpt-4o');
    const vscode = named('vscode', '');
    const router = new RoutingProvider(openai, vscode);
    expect((await router.complete([])).content).toBe('vscode');
    expect((await router.complete([], { model: ' ' })).content).toBe('vscode');
  });
});
