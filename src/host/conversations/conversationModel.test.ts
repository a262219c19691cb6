import { describe, expect, it } from 'vitest';
import { conversationModel, modelMetadata, pinModelUpdate } from './conversationModel';

const ollama = { provider: 'ollama' as const, model: 'llama3.2' };

describe("a chat's model", () => {
  it('is the one stored on the conversation, whatever the default says', () => {
    const stored = modelMetadata('qwen:7b', 'ollama');
    expect(stored).toEqual({ model: 'qwen:7b', modelProvider: 'ollama' });
    expect(conversationModel(stored, ollama)).toBe('qwen:7b');
    expect(conversationModel({ model: 'qwen:7b', modelProvider: 'ollama' }, { provider: 'ollama', model: 'other' })).toBe('qwen:7b');
  });

  it('is the default when none is stored, the stored one is for another provider, or is not text', () => {
    expect(conversationModel({}, ollama)).toBe('llama3.2');
    expect(conversationModel(undefined, ollama)).toBe('llama3.2');
    expect(conversationModel({ model: 'gpt-4o', modelProvider: 'openai' }, ollama)).toBe('llama3.2');
    expect(conversationModel({ model: 42 }, ollama)).toBe('llama3.2');
  });

  it('is listed under one name: name:latest is name', () => {
    expect(conversationModel({ model: 'mistral:latest' }, ollama)).toBe('mistral');
    expect(conversationModel({}, { provider: 'ollama', model: 'mistral:latest' })).toBe('mistral');
  });

  it('is pinned at the first answer only when the chat has none for this provider', () => {
    expect(pinModelUpdate({}, ollama)).toEqual({ model: 'llama3.2', modelProvider: 'ollama' });
    expect(pinModelUpdate({ model: 'gpt-4o', modelProvider: 'openai' }, ollama)).toEqual({ model: 'llama3.2', modelProvider: 'ollama' });
    expect(pinModelUpdate({ model: 'qwen:7b', modelProvider: 'ollama' }, ollama)).toBeUndefined();
  });

  it("keeps a VS Code model (vscode: id) as the chat's model whatever arbor.provider is", () => {
    const stored = modelMetadata('vscode:copilot/gpt-4o', 'ollama');
    expect(conversationModel(stored, { provider: 'openai', model: 'gpt-4o-mini' })).toBe('vscode:copilot/gpt-4o');
    expect(pinModelUpdate(stored, { provider: 'openai', model: 'gpt-4o-mini' })).toBeUndefined();
  });
});
