/**
 * Reads Arbor's settings into one typed object. Pure (no `vscode` import): the host passes a getter
 * over `workspace.getConfiguration('arbor')`, tests pass a plain object, and bad values fall back to
 * the defaults with a warning instead of breaking the extension.
 */
import { DEFAULT_KEEP_RECENT_TOKENS, DEFAULT_KEEP_TOOL_OUTPUT_TOKENS, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_ANSWER_MS, DEFAULT_MAX_IMAGE_BYTES, INSTRUCTION_KINDS, isInstructionKind, type InstructionKind } from '../../core/index';
import { parseTeamStoreSettings, type TeamStoreSettings } from './teamStoreSettings';
import { DEFAULT_PROTECTED_FILES } from './protectedFileDefaults';

/** Which model server answers. */
export type ProviderKind = 'ollama' | 'openai';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Arbor's settings, validated. */
export interface ArborSettings {
  provider: ProviderKind;
  /** The model named in settings, or the provider's default when none is. */
  model: string;
  ollamaHost: string;
  openaiBaseUrl: string;
  pricing: Record<string, ModelPrice>;
  /** Undefined means no limit. */
  maxHistory?: number;
  maxTokens?: number;
  promptsFolder: string;
  ragInclude: string[];
  ragExclude: string[];
  ragMaxFileBytes: number;
  /** Most characters of one streamed answer before it is stopped and kept; 0: no cap. */
  maxAnswerChars: number;
  /** Most seconds for one answer before it is stopped and kept; 0: no cap. */
  maxAnswerSeconds: number;
  /** The `prompts/system/` prompt new chats send (`arbor.systemPrompt`); empty: none. */
  systemPrompt: string;
  /** Provider-specific request fields passed through as they are (`arbor.requestOptions`). */
  requestOptions: Record<string, unknown>;
  /** Conversations nobody changed for this many days are deleted at start, bookmarked ones never; 0 keeps everything. */
  retentionDays: number;
  /** `arbor.contextLength`: context length in tokens by model name, over the shipped table (and Ollama's `num_ctx`). */
  contextLengths: Record<string, number>;
  /** `arbor.ollama.numCtx`: the `num_ctx` sent to Ollama; 0: automatic (the model's own, else Ollama's default). */
  ollamaNumCtx: number;
  /** Compact before a request that would fill more than this percent of the model's window; 0: never automatically. */
  autoCompactPercent: number;
  /** Tokens of the newest turns a compaction keeps verbatim. */
  keepRecentTokens: number;
  /** Tokens of the newest tool outputs a request carries whole. */
  keepToolOutputTokens: number;
  /** `arbor.tools.enabled`: chats offer tools to models that take them, unless turned off in the chat. */
  toolsEnabled: boolean;
  /** `arbor.tools.approval`: a policy per tool name, display name or `prefix*`. */
  toolApproval: Record<string, 'auto' | 'ask' | 'off'>;
  /** `arbor.tools.maxSteps`: most model answers in one tool run. */
  toolMaxSteps: number;
  /** `arbor.tools.windowPercent`: the most of the model's window the tool definitions may take, in percent (1–90). */
  toolWindowPercent: number;
  /** `arbor.tools.commandAllowList`: command prefixes `run_command` runs without asking. */
  commandAllowList: string[];
  /** `arbor.tools.commandDenyList`: command prefixes `run_command` refuses. */
  commandDenyList: string[];
  /** `arbor.openai.supportsTools`: whether the OpenAI-compatible server's models take tools. */
  openaiSupportsTools: boolean;
  /** `arbor.instructions.enabled`: the kinds of instruction file (AGENTS.md, rules) read and sent; all by default. */
  instructionsEnabled: InstructionKind[];
  /** `arbor.openai.supportsVision`: whether the OpenAI-compatible server's models take images. */
  openaiSupportsVision: boolean;
  /** `arbor.openai.jsonSchema`: whether structured answers ask the OpenAI-compatible server for `json_schema` (else `json_object`). */
  openaiJsonSchema: boolean;
  /** `arbor.images.maxBytes`: the largest image a message may carry. */
  imagesMaxBytes: number;
  /** `arbor.tools.protectedFiles`: globs of the files a write to is asked about every time, never under a grant. */
  protectedFiles: string[];
  /** `arbor.storage.*`: the local store or the team store on PostgreSQL, and how to reach it. */
  teamStore: TeamStoreSettings;
}

/** The system prompt new chats use when `arbor.systemPrompt` is not set: `prompts/system/default.*`, when there is one. */
export const DEFAULT_SYSTEM_PROMPT = 'default';

/** The model used when `arbor.model` is empty. */
export const DEFAULT_MODELS: Record<ProviderKind, string> = { ollama: 'llama3.2', openai: 'gpt-4o-mini' };

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;
export const DEFAULT_MAX_ANSWER_SECONDS = DEFAULT_MAX_ANSWER_MS / 1000;
/** `arbor.context.autoCompactPercent`: compact before a request that would pass 85% of the window. */
export const DEFAULT_AUTO_COMPACT_PERCENT = 85;

/** The settings and what was wrong with them. */
export interface ParsedSettings {
  settings: ArborSettings;
  /** One line per setting that was ignored, naming the setting and the fix. */
  warnings: string[];
}

function asUrl(value: unknown, fallback: string, key: string, warnings: string[]): string {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'string') {
    try {
      const url = new URL(value.trim());
      if (url.protocol === 'http:' || url.protocol === 'https:') return value.trim().replace(/\/+$/, '');
    } catch {
      // fall through to the warning
    }
  }
  warnings.push(`arbor.${key} must be an http(s) URL such as ${fallback}; using ${fallback}.`);
  return fallback;
}

function asLimit(value: unknown, key: string, warnings: string[]): number | undefined {
  if (value === undefined || value === null || value === 0) return undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  warnings.push(`arbor.${key} must be a positive number (0 for no limit); ignoring it.`);
  return undefined;
}

/** The share of the window the tool definitions may take by default, in percent. */
export const DEFAULT_TOOL_WINDOW_PERCENT = 25;

/** A cap that is on by default: a whole number ≥ 0 (0 turns it off); anything else keeps the default, with a warning. */
function asCap(value: unknown, fallback: number, key: string, unit: string, warnings: string[]): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  warnings.push(`arbor.${key} must be a number of ${unit}, 0 for no cap; using ${fallback}.`);
  return fallback;
}

/** Days to keep untouched conversations: a whole number ≥ 0, 0 (the default) keeping them all; anything else keeps them all, with a warning. */
function asRetentionDays(value: unknown, warnings: string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  warnings.push('arbor.retention.days must be a whole number of days, 0 to keep every conversation; keeping every conversation.');
  return 0;
}

function asContextLengths(value: unknown, warnings: string[]): Record<string, number> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push('arbor.contextLength must be an object of model → tokens, e.g. {"qwen2.5-coder": 32768}; ignoring it.');
    return {};
  }
  const out: Record<string, number> = {};
  for (const [model, tokens] of Object.entries(value as Record<string, unknown>)) {
    if (typeof tokens === 'number' && Number.isFinite(tokens) && tokens >= 1) out[model] = Math.floor(tokens);
    else warnings.push(`arbor.contextLength["${model}"] must be a positive number of tokens; ignoring it.`);
  }
  return out;
}

function asNumCtx(value: unknown, warnings: string[]): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  warnings.push('arbor.ollama.numCtx must be a number of tokens, 0 for automatic; using automatic.');
  return 0;
}

function asStrings(value: unknown, key: string, warnings: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim()).filter(Boolean);
  warnings.push(`arbor.${key} must be a list of glob strings; ignoring it.`);
  return [];
}

function asPricing(value: unknown, warnings: string[]): Record<string, ModelPrice> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push('arbor.pricing must be an object of model → {input, output} in USD per million tokens; ignoring it.');
    return {};
  }
  const out: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(value as Record<string, unknown>)) {
    const p = price as Partial<ModelPrice> | null;
    if (p && typeof p.input === 'number' && typeof p.output === 'number' && p.input >= 0 && p.output >= 0) {
      out[model] = { input: p.input, output: p.output };
    } else {
      warnings.push(`arbor.pricing["${model}"] needs numbers "input" and "output" (USD per million tokens); ignoring it.`);
    }
  }
  return out;
}

function asSystemPrompt(value: unknown, warnings: string[]): string {
  if (value === undefined || value === null) return DEFAULT_SYSTEM_PROMPT;
  if (typeof value === 'string') return value.trim();
  warnings.push(`arbor.systemPrompt must be the name of a prompt in prompts/system/ (or "" for none); using "${DEFAULT_SYSTEM_PROMPT}".`);
  return DEFAULT_SYSTEM_PROMPT;
}

function asRequestOptions(value: unknown, warnings: string[]): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  // A JSON copy: VS Code hands settings over as read-only proxies, which cannot be cloned into a request or stored.
  if (typeof value === 'object' && !Array.isArray(value)) return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  warnings.push('arbor.requestOptions must be an object of request fields, e.g. {"top_k": 40}; ignoring it.');
  return {};
}

function asToolApproval(value: unknown, warnings: string[]): Record<string, 'auto' | 'ask' | 'off'> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push('arbor.tools.approval must be an object of tool name → "auto", "ask" or "off", e.g. {"everything › *": "auto"}; ignoring it.');
    return {};
  }
  const out: Record<string, 'auto' | 'ask' | 'off'> = {};
  for (const [name, policy] of Object.entries(value as Record<string, unknown>)) {
    if (policy === 'auto' || policy === 'ask' || policy === 'off') out[name] = policy;
    else warnings.push(`arbor.tools.approval["${name}"] must be "auto", "ask" or "off"; ignoring it.`);
  }
  return out;
}

function asCommandPrefixes(value: unknown, key: string, warnings: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim()).filter(Boolean);
  warnings.push(`arbor.${key} must be a list of command prefixes, e.g. ["npm test", "git status"]; ignoring it.`);
  return [];
}

function asBoolean(value: unknown, fallback: boolean, key: string, warnings: string[]): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  warnings.push(`arbor.${key} must be true or false; using ${String(fallback)}.`);
  return fallback;
}

function asInstructionKinds(value: unknown, warnings: string[]): InstructionKind[] {
  if (value === undefined || value === null) return [...INSTRUCTION_KINDS];
  if (!Array.isArray(value)) {
    warnings.push(`arbor.instructions.enabled must be a list of kinds (${INSTRUCTION_KINDS.join(', ')}); reading all of them.`);
    return [...INSTRUCTION_KINDS];
  }
  const unknown = value.filter((v) => !isInstructionKind(v));
  if (unknown.length) warnings.push(`arbor.instructions.enabled: ${unknown.map((v) => JSON.stringify(v)).join(', ')} is not a kind; use ${INSTRUCTION_KINDS.join(', ')}. Ignoring it.`);
  return [...new Set(value.filter(isInstructionKind))];
}

function asProtectedFiles(value: unknown, warnings: string[]): string[] {
  if (value === undefined || value === null) return [...DEFAULT_PROTECTED_FILES];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.map((v) => v.trim()).filter(Boolean);
  warnings.push('arbor.tools.protectedFiles must be a list of globs, e.g. ["**/.vscode/**", "package.json"]; protecting the default list.');
  return [...DEFAULT_PROTECTED_FILES];
}

/** The default of `arbor.tools.maxSteps`. */
export const DEFAULT_TOOL_MAX_STEPS = 25;

/** Turns raw setting values (keys as in `Settings`, e.g. `ollama.host`) into validated settings. */
export function parseSettings(get: (key: string) => unknown): ParsedSettings {
  const warnings: string[] = [];
  const rawProvider = get('provider');
  let provider: ProviderKind = 'ollama';
  if (rawProvider === 'openai' || rawProvider === 'ollama') provider = rawProvider;
  else if (rawProvider !== undefined && rawProvider !== null && rawProvider !== '') {
    warnings.push(`arbor.provider must be "ollama" or "openai", not ${JSON.stringify(rawProvider)}; using ollama.`);
  }
  const rawModel = get('model');
  const model = typeof rawModel === 'string' && rawModel.trim() ? rawModel.trim() : DEFAULT_MODELS[provider];
  const rawFolder = get('prompts.folder');
  let promptsFolder = 'prompts';
  if (typeof rawFolder === 'string' && rawFolder.trim()) {
    const folder = rawFolder.trim().replace(/\\/g, '/').replace(/\/+$/, '');
    if (folder.split('/').includes('..')) warnings.push('arbor.prompts.folder must stay inside the workspace; using "prompts".');
    else promptsFolder = folder;
  }
  const rawMax = get('rag.maxFileBytes');
  let ragMaxFileBytes = DEFAULT_MAX_FILE_BYTES;
  if (typeof rawMax === 'number' && Number.isFinite(rawMax) && rawMax > 0) ragMaxFileBytes = Math.floor(rawMax);
  else if (rawMax !== undefined && rawMax !== null) warnings.push(`arbor.rag.maxFileBytes must be a positive number; using ${DEFAULT_MAX_FILE_BYTES}.`);
  return {
    settings: {
      provider,
      model,
      ollamaHost: asUrl(get('ollama.host'), DEFAULT_OLLAMA_HOST, 'ollama.host', warnings),
      openaiBaseUrl: asUrl(get('openai.baseUrl'), DEFAULT_OPENAI_BASE_URL, 'openai.baseUrl', warnings),
      pricing: asPricing(get('pricing'), warnings),
      maxHistory: asLimit(get('context.maxHistory'), 'context.maxHistory', warnings),
      maxTokens: asLimit(get('context.maxTokens'), 'context.maxTokens', warnings),
      promptsFolder,
      ragInclude: asStrings(get('rag.include'), 'rag.include', warnings),
      ragExclude: asStrings(get('rag.exclude'), 'rag.exclude', warnings),
      ragMaxFileBytes,
      maxAnswerChars: asCap(get('limits.maxAnswerChars'), DEFAULT_MAX_ANSWER_CHARS, 'limits.maxAnswerChars', 'characters', warnings),
      maxAnswerSeconds: asCap(get('limits.maxAnswerSeconds'), DEFAULT_MAX_ANSWER_SECONDS, 'limits.maxAnswerSeconds', 'seconds', warnings),
      systemPrompt: asSystemPrompt(get('systemPrompt'), warnings),
      requestOptions: asRequestOptions(get('requestOptions'), warnings),
      retentionDays: asRetentionDays(get('retention.days'), warnings),
      contextLengths: asContextLengths(get('contextLength'), warnings),
      ollamaNumCtx: asNumCtx(get('ollama.numCtx'), warnings),
      autoCompactPercent: Math.min(100, asCap(get('context.autoCompactPercent'), DEFAULT_AUTO_COMPACT_PERCENT, 'context.autoCompactPercent', 'percent', warnings)),
      keepRecentTokens: asCap(get('context.keepRecentTokens'), DEFAULT_KEEP_RECENT_TOKENS, 'context.keepRecentTokens', 'tokens', warnings),
      keepToolOutputTokens: asCap(get('context.keepToolOutputTokens'), DEFAULT_KEEP_TOOL_OUTPUT_TOKENS, 'context.keepToolOutputTokens', 'tokens', warnings),
      toolsEnabled: asBoolean(get('tools.enabled'), true, 'tools.enabled', warnings),
      toolApproval: asToolApproval(get('tools.approval'), warnings),
      toolMaxSteps: Math.max(1, asCap(get('tools.maxSteps'), DEFAULT_TOOL_MAX_STEPS, 'tools.maxSteps', 'steps', warnings) || DEFAULT_TOOL_MAX_STEPS),
      toolWindowPercent: Math.min(90, Math.max(1, asCap(get('tools.windowPercent'), DEFAULT_TOOL_WINDOW_PERCENT, 'tools.windowPercent', 'percent', warnings) || DEFAULT_TOOL_WINDOW_PERCENT)),
      commandAllowList: asCommandPrefixes(get('tools.commandAllowList'), 'tools.commandAllowList', warnings),
      commandDenyList: asCommandPrefixes(get('tools.commandDenyList'), 'tools.commandDenyList', warnings),
      openaiSupportsTools: asBoolean(get('openai.supportsTools'), true, 'openai.supportsTools', warnings),
      instructionsEnabled: asInstructionKinds(get('instructions.enabled'), warnings),
      openaiSupportsVision: asBoolean(get('openai.supportsVision'), true, 'openai.supportsVision', warnings),
      openaiJsonSchema: asBoolean(get('openai.jsonSchema'), true, 'openai.jsonSchema', warnings),
      imagesMaxBytes: asCap(get('images.maxBytes'), DEFAULT_MAX_IMAGE_BYTES, 'images.maxBytes', 'bytes', warnings) || DEFAULT_MAX_IMAGE_BYTES,
      protectedFiles: asProtectedFiles(get('tools.protectedFiles'), warnings),
      teamStore: parseTeamStoreSettings(get, warnings),
    },
    warnings,
  };
}

/** Whether `url` is OpenAI's own API (which always needs a key), not a local OpenAI-compatible server. */
export function isOpenAIApi(url: string): boolean {
  try {
    return new URL(url).hostname.toLowerCase() === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * Why nothing can be sent yet: OpenAI's own API is chosen and no key is stored. `undefined` when nothing is missing (a local OpenAI-compatible server may need no key).
 */
export function missingApiKeyMessage(settings: ArborSettings, hasApiKey: boolean): string | undefined {
  if (settings.provider !== 'openai' || hasApiKey || !isOpenAIApi(settings.openaiBaseUrl)) return undefined;
  return 'No OpenAI API key is set. Set one with "Arbor: Set OpenAI API Key" (it is kept in VS Code\'s secret storage), or set arbor.provider to "ollama".';
}

/** The plain-language fix shown when no model server answers. */
export function noServerHint(settings: ArborSettings, hasApiKey: boolean): string {
  if (settings.provider === 'openai') {
    return hasApiKey
      ? `Check that ${settings.openaiBaseUrl} is reachable and the key is valid (Arbor: Set OpenAI API Key).`
      : 'Set an OpenAI API key with "Arbor: Set OpenAI API Key", or switch arbor.provider to "ollama".';
  }
  return `Start Ollama at ${settings.ollamaHost} (run "ollama serve", then "ollama pull ${settings.model}"), or set arbor.provider to "openai" and run "Arbor: Set OpenAI API Key".`;
}
