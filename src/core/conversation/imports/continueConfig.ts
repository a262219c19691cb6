/**
 * Continue's model configuration (`~/.continue/config.yaml`, and the older `config.json`) read into
 * the Arbor settings that would answer with the same model: `arbor.provider`, `arbor.model`, and
 * `arbor.ollama.host` or `arbor.openai.baseUrl` (plus its context length, when the file gives one).
 * Pure: it only says what would be set; the host asks the user and writes it. An API key found in the
 * file is returned apart, for the key store, never as a setting.
 */
import { parse as parseYaml } from 'yaml';
import { InvalidArgumentError } from '../../errors';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One setting an import would write. */
export interface ImportedSetting {
  /** Full key, e.g. `arbor.model`. */
  key: string;
  value: unknown;
  /** For object settings (`arbor.contextLength`): the value's entries are added to the current ones. */
  merge?: boolean;
}

/** A model of the Continue configuration that Arbor can answer with, and what choosing it sets. */
export interface ContinueModelChoice {
  /** Continue's name for it (`name` in YAML, `title` in JSON). */
  label: string;
  provider: string;
  model: string;
  settings: ImportedSetting[];
  /** A literal key from the file (`apiKey`), for the OpenAI key store; absent for a `${{ secrets.X }}` reference. */
  apiKey?: string;
}

/** What a Continue configuration offers. */
export interface ContinueConfigImport {
  choices: ContinueModelChoice[];
  /** One line per model left out, saying why. */
  skipped: string[];
}

/** Continue providers that speak OpenAI's chat API at their `apiBase` (and, for some, a known default). */
const OPENAI_COMPATIBLE: Record<string, string | undefined> = {
  openai: 'https://api.openai.com/v1',
  lmstudio: 'http://localhost:1234/v1',
  vllm: undefined,
  deepseek: undefined,
  groq: undefined,
  together: undefined,
  openrouter: undefined,
  mistral: undefined,
  xAI: undefined,
  fireworks: undefined,
  deepinfra: undefined,
  nvidia: undefined,
};

/** Whether `name` is a Continue configuration file by its name (`config.yaml`, `config.yml`, `config.json`). */
export function isContinueConfigName(name: string): boolean {
  return /(^|[\\/])config\.(ya?ml|json)$/i.test(name);
}

/** Whether a parsed object looks like a Continue configuration (a `models` list of `{provider, model}` or `{uses}`). */
export function isContinueConfig(obj: unknown): boolean {
  return isObject(obj) && Array.isArray(obj.models) && obj.models.some((m) => isObject(m) && ((typeof m.provider === 'string' && typeof m.model === 'string') || typeof m.uses === 'string'));
}

/** Parses the text of a Continue `config.yaml` or `config.json` (by `fileName`); throws a readable error when it is neither. */
export function parseContinueConfigText(text: string, fileName: string): unknown {
  try {
    return /\.json$/i.test(fileName) ? JSON.parse(text.replace(/^\uFEFF/, '')) : parseYaml(text);
  } catch (error) {
    throw new InvalidArgumentError(`${fileName} is not valid ${/\.json$/i.test(fileName) ? 'JSON' : 'YAML'} (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`);
  }
}

/** The models of a Continue configuration Arbor can use, with the settings each would write. */
export function fromContinueConfig(obj: unknown): ContinueConfigImport {
  if (!isContinueConfig(obj)) {
    throw new InvalidArgumentError('Expected a Continue configuration with a "models" list ({provider, model} entries).');
  }
  const choices: ContinueModelChoice[] = [];
  const skipped: string[] = [];
  for (const raw of (obj as { models: unknown[] }).models) {
    if (!isObject(raw)) continue;
    const label = text(raw.name) ?? text(raw.title) ?? text(raw.model) ?? text(raw.uses) ?? 'a model';
    if (typeof raw.uses === 'string') {
      skipped.push(`${label}: a Continue Hub block ("uses"), whose provider is not in the file.`);
      continue;
    }
    const provider = text(raw.provider);
    const model = text(raw.model);
    if (!provider || !model) {
      skipped.push(`${label}: no provider or model.`);
      continue;
    }
    const roles = Array.isArray(raw.roles) ? raw.roles : undefined;
    if (roles && !roles.includes('chat')) {
      skipped.push(`${label}: not a chat model (roles: ${roles.join(', ')}).`);
      continue;
    }
    const apiBase = text(raw.apiBase)?.replace(/\/+$/, '');
    const settings: ImportedSetting[] = [];
    if (provider === 'ollama') {
      settings.push({ key: 'arbor.provider', value: 'ollama' }, { key: 'arbor.model', value: model });
      if (apiBase) settings.push({ key: 'arbor.ollama.host', value: apiBase.replace(/\/api$/, '') });
    } else if (provider in OPENAI_COMPATIBLE) {
      const baseUrl = apiBase ?? OPENAI_COMPATIBLE[provider];
      if (!baseUrl) {
        skipped.push(`${label}: provider "${provider}" without an "apiBase" URL.`);
        continue;
      }
      settings.push({ key: 'arbor.provider', value: 'openai' }, { key: 'arbor.model', value: model }, { key: 'arbor.openai.baseUrl', value: baseUrl });
    } else {
      skipped.push(`${label}: provider "${provider}" is not one Arbor talks to (Ollama, or an OpenAI-compatible server).`);
      continue;
    }
    const options = isObject(raw.defaultCompletionOptions) ? raw.defaultCompletionOptions : raw;
    const contextLength = options.contextLength;
    if (typeof contextLength === 'number' && Number.isInteger(contextLength) && contextLength > 0) {
      settings.push({ key: 'arbor.contextLength', value: { [model]: contextLength }, merge: true });
    }
    const choice: ContinueModelChoice = { label, provider, model, settings };
    const key = text(raw.apiKey);
    if (key && provider !== 'ollama' && !/\$\{\{.*\}\}/.test(key)) choice.apiKey = key;
    choices.push(choice);
  }
  return { choices, skipped };
}

/** A setting as the confirmation lists it: `arbor.model = "gpt-4o"`, or `arbor.contextLength["gpt-4o"] = 128000`. */
export function describeSetting(setting: ImportedSetting): string {
  if (setting.merge && isObject(setting.value)) {
    return Object.entries(setting.value).map(([k, v]) => `${setting.key}[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join(', ');
  }
  return `${setting.key} = ${JSON.stringify(setting.value)}`;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}
