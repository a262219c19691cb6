import { OllamaProvider, OpenAIProvider } from '../../core/index';
import type { LLMProvider } from '../../core/index';
import type { ApiKeyStore } from '../base/secrets';
import type { ArborSettings } from '../settings/settings';

/**
 * The provider `arbor.provider` names, built from the settings `s` and (for an OpenAI-compatible
 * server) the stored API key. `Services` caches it until the settings or the key change.
 */
export async function configuredProvider(s: ArborSettings, apiKeys: ApiKeyStore): Promise<LLMProvider> {
  const limits = { maxAnswerChars: s.maxAnswerChars, maxAnswerMs: s.maxAnswerSeconds * 1000 };
  if (s.provider === 'openai') {
    const apiKey = await apiKeys.get();
    return new OpenAIProvider({ baseURL: s.openaiBaseUrl, apiKey, model: s.model, pricing: s.pricing, contextLengths: s.contextLengths, supportsTools: s.openaiSupportsTools, supportsVision: s.openaiSupportsVision, jsonSchema: s.openaiJsonSchema, ...limits });
  }
  return new OllamaProvider({ host: s.ollamaHost, model: s.model, numCtx: s.ollamaNumCtx, contextLengths: s.contextLengths, ...limits });
}
