import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSetting, fromContinueConfig, isContinueConfigName, parseContinueConfigText } from '../../../../src/core/conversation/imports/continueConfig';
import { InvalidArgumentError } from '../../../../src/core/index';
import { FIXTURES } from './importStore';

const read = async (name: string) => parseContinueConfigText(await readFile(path.join(FIXTURES, name), 'utf8'), name);

describe("Continue's model configuration", () => {
  it('offers the chat models of config.yaml Arbor can talk to, with exactly the settings each sets', async () => {
    const { choices, skipped } = fromContinueConfig(await read('continue-config.yaml'));
    expect(choices.map((c) => [c.label, c.settings.map(describeSetting)])).toEqual([
      ['Llama 3.1 8B', ['arbor.provider = "ollama"', 'arbor.model = "llama3.1:8b"', 'arbor.ollama.host = "http://127.0.0.1:11434"', 'arbor.contextLength["llama3.1:8b"] = 32768']],
      ['GPT-4o', ['arbor.provider = "openai"', 'arbor.model = "gpt-4o"', 'arbor.openai.baseUrl = "https://api.openai.com/v1"']],
      ['LM Studio Qwen', ['arbor.provider = "openai"', 'arbor.model = "qwen2.5-coder-7b-instruct"', 'arbor.openai.baseUrl = "http://localhost:1234/v1"']],
    ]);
    // The key goes apart, for the key store; never among the settings.
    expect(choices[1].apiKey).toBe('sk-test-not-a-real-key-0000');
    expect(JSON.stringify(choices.map((c) => c.settings))).not.toContain('sk-test');
    expect(choices[0].apiKey).toBeUndefined();
    expect(skipped).toEqual([
      'Nomic Embed: not a chat model (roles: embed).',
      'anthropic/claude-3-7-sonnet: a Continue Hub block ("uses"), whose provider is not in the file.',
    ]);
  });

  it('reads the older config.json: an OpenAI-compatible server at its apiBase, and says why another provider is left out', async () => {
    const { choices, skipped } = fromContinueConfig(await read('continue-config.json'));
    expect(choices).toEqual([
      {
        label: 'DeepSeek Coder (vLLM)',
        provider: 'vllm',
        model: 'deepseek-coder-6.7b-instruct',
        settings: [
          { key: 'arbor.provider', value: 'openai' },
          { key: 'arbor.model', value: 'deepseek-coder-6.7b-instruct' },
          { key: 'arbor.openai.baseUrl', value: 'http://gpu-box:8000/v1' },
          { key: 'arbor.contextLength', value: { 'deepseek-coder-6.7b-instruct': 16384 }, merge: true },
        ],
      },
    ]);
    expect(skipped).toEqual(['Claude 3.5 Sonnet: provider "anthropic" is not one Arbor talks to (Ollama, or an OpenAI-compatible server).']);
  });

  it('leaves a secret reference alone, needs an apiBase for a server without a known address, and names bad files', () => {
    const config = { models: [{ name: 'A', provider: 'openai', model: 'gpt-4o', apiKey: '${{ secrets.OPENAI_API_KEY }}' }, { name: 'B', provider: 'vllm', model: 'm' }] };
    const { choices, skipped } = fromContinueConfig(config);
    expect(choices[0].apiKey).toBeUndefined();
    expect(skipped).toEqual(['B: provider "vllm" without an "apiBase" URL.']);
    expect(() => fromContinueConfig({ name: 'x' })).toThrow(InvalidArgumentError);
    expect(() => parseContinueConfigText('models: [', 'config.yaml')).toThrow(/config\.yaml is not valid YAML/);
    expect(() => parseContinueConfigText('{', 'config.json')).toThrow(/config\.json is not valid JSON/);
    expect(isContinueConfigName('/home/me/.continue/config.yaml')).toBe(true);
    expect(isContinueConfigName('C:\\Users\\me\\.continue\\config.json')).toBe(true);
    expect(isContinueConfigName('myconfig.yaml')).toBe(false);
  });
});
