import { modelChoices } from '../core/index';
import { isNoServer } from './errorView';
import type { Services } from './services';
import { missingApiKeyMessage, noServerHint } from './settings';

/** How long the model list may take before the picker shows only the chat's model. */
const LIST_MODELS_TIMEOUT_MS = 4000;

/** What the chat's model picker offers, and a warning when the provider cannot list its models. */
export interface ChatModels {
  models: string[];
  current: string;
  warning?: string;
}

/**
 * The models to offer beside the chat's `current` one, each once. Nothing is asked of OpenAI's API
 * while no key is stored: the warning says the key is missing instead.
 */
export async function chatModels(services: Services, current: string): Promise<ChatModels> {
  const hasKey = !!(await services.apiKeys.get());
  const missingKey = missingApiKeyMessage(services.settings, hasKey);
  if (missingKey) return { ...modelChoices(current, []), warning: missingKey };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const provider = await services.provider();
    const listed = await Promise.race([
      provider.listModels(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), LIST_MODELS_TIMEOUT_MS))),
    ]);
    return modelChoices(current, listed.map((m) => m.id));
  } catch (err) {
    services.logger.warn('Could not list models', err);
    const warning = isNoServer(err) ? `No model server is reachable. ${noServerHint(services.settings, hasKey)}` : undefined;
    return { ...modelChoices(current, []), ...(warning ? { warning } : {}) };
  } finally {
    clearTimeout(timer);
  }
}
