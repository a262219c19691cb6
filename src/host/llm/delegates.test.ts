import { describe, expect, it } from 'vitest';
import { InvalidOperationError } from '../../core/index';
import type { LLMMessage, LLMProvider, LLMStreamChunk } from '../../core/index';
import { DelegatingPromptBuilder, DelegatingProvider } from './delegates';

/** A provider that answers with its own name, so a test can see which one was called. */
function namedProvider(name: string): LLMProvider {
  return {
    name,
    model: `${name}-model`,
    async complete(messages: LLMMessage[]) {
      return { content: `${name}:${messages.length}`, model: `${name}-model`, finishReason: 'stop', metadata: {} };
    },
    async *stream(): AsyncIterable<LLMStreamChunk> {
      yield { delta: name, done: false };
      yield { delta: '', done: true };
    },
    async listModels() {
      return [{ id: `${name}-model` }];
    },
    async embed(texts: string[]) {
      return texts.map(() => [name.length]);
    },
  };
}

describe('DelegatingProvider', () => {
  it('calls whichever provider is current at call time', async () => {
    let current = namedProvider('ollama');
    const p = new DelegatingProvider(async () => current, () => ({ name: current.name, model: current.model }));
    expect((await p.complete([{ role: 'user', content: 'hi' }])).content).toBe('ollama:1');
    current = namedProvider('openai');
    expect(p.name).toBe('openai');
    const deltas: string[] = [];
    for await (const c of p.stream([])) deltas.push(c.delta);
    expect(deltas.join('')).toBe('openai');
    expect((await p.listModels()).map((m) => m.id)).toEqual(['openai-model']);
  });
});

describe('DelegatingPromptBuilder', () => {
  it('refuses named prompts with the reason when there is no builder, and passes inline text through', async () => {
    const b = new DelegatingPromptBuilder(async () => undefined, () => 'Workspace prompts are off in Restricted Mode.');
    await expect(b.renderUserPrompt('review')).rejects.toThrow(InvalidOperationError);
    await expect(b.renderSystemPrompt('review')).rejects.toThrow('Restricted Mode');
    expect((await b.renderInlineUserPrompt('{{x}} stays')).content).toBe('{{x}} stays');
  });
});
