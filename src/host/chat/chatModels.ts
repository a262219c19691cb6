import { isVscodeModelId, modelChoices } from '../../core/index';
import type { VscodeModelView } from '../../shared/protocol';
import { isNoServer } from './errorView';
import type { VscodeModelEntry } from '../llm/vscodeLmProvider';
import type { ChatServices } from './chatServices';
import { missingApiKeyMessage, noServerHint } from '../settings/settings';

/** How long the model list may take before the picker shows only the chat's model. */
const LIST_MODELS_TIMEOUT_MS = 4000;

/** What the chat's model picker offers, and a warning when the provider cannot list its models. */
export interface ChatModels {
  models: string[];
  current: string;
  /** VS Code's models, for their own "VS Code" group (none where VS Code offers none). */
  vscodeModels: VscodeModelView[];
  warning?: string;
}

/** How a VS Code model is described in the pickers: its vendor and family. */
export function vscodeModelView(e: VscodeModelEntry): VscodeModelView {
  return { id: e.id, name: e.name, description: [e.vendor, e.family].filter(Boolean).join(' · ') };
}

/** VS Code's models for the pickers, the chat's own first-class even when VS Code stopped offering it. */
export async function vscodeModelViews(services: ChatServices, current: string): Promise<VscodeModelView[]> {
  const views = (await services.vscodeLm.entries().catch(() => [])).map(vscodeModelView);
  if (isVscodeModelId(current) && !views.some((v) => v.id === current)) views.unshift({ id: current, name: current, description: 'not offered by VS Code now' });
  return views;
}

/**
 * The models to offer beside the chat's `current` one, each once, and VS Code's models apart. Nothing is
 * asked of OpenAI's API while no key is stored: the warning says the key is missing instead.
 */
export async function chatModels(services: ChatServices, current: string): Promise<ChatModels> {
  const vscodeModels = await vscodeModelViews(services, current);
  // A VS Code model is listed in its group, not among the provider's.
  const providerCurrent = isVscodeModelId(current) ? '' : current;
  const choices = (listed: readonly string[]) => ({ ...modelChoices(providerCurrent, listed), current, vscodeModels });
  const hasKey = !!(await services.apiKeys.get());
  const missingKey = missingApiKeyMessage(services.settings, hasKey);
  // A chat on a VS Code model needs neither the key nor the server: their warnings would only be noise.
  const quiet = isVscodeModelId(current);
  if (missingKey) return { ...choices([]), ...(quiet ? {} : { warning: missingKey }) };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const provider = await services.provider();
    const listed = await Promise.race([
      provider.listModels(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), LIST_MODELS_TIMEOUT_MS))),
    ]);
    return choices(listed.map((m) => m.id));
  } catch (err) {
    services.logger.warn('Could not list models', err);
    const warning = isNoServer(err) && !quiet ? `No model server is reachable. ${noServerHint(services.settings, hasKey)}` : undefined;
    return { ...choices([]), ...(warning ? { warning } : {}) };
  } finally {
    clearTimeout(timer);
  }
}
