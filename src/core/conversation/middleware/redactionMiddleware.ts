import { InvalidArgumentError } from '../../errors';
import type { LLMMessage } from '../../types';
import type { ConversationMiddleware } from './middleware';

/** One kind of secret to mask. `pattern` must be global (`/…/g`). */
export interface RedactionPattern {
  /** Shown in the mask, e.g. `[REDACTED:aws-access-key]`. */
  name: string;
  pattern: RegExp;
  /**
   * Replacement text; may use `$1`… to keep a captured prefix such as `api_key=`. Defaults to
   * `[REDACTED:<name>]`.
   */
  replacement?: string;
}

/** Secrets masked by default: provider API keys, cloud and forge tokens, bearer tokens, private keys, `api_key=…` settings. */
export const DEFAULT_REDACTION_PATTERNS: readonly RedactionPattern[] = [
  {
    name: 'private-key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g,
  },
  { name: 'api-key', pattern: /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { name: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { name: 'bearer-token', pattern: /\b(Bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi, replacement: '$1[REDACTED:bearer-token]' },
  {
    name: 'secret-setting',
    pattern:
      /\b((?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|aws[_-]?secret[_-]?access[_-]?key|password|passwd)["']?\s*[:=]\s*["']?)(?!\[REDACTED)([A-Za-z0-9_\-+/=.~!@#$%^&*]{8,})(?![\w([])/gi,
    replacement: '$1[REDACTED:secret]',
  },
];

/** Options of `RedactionMiddleware`. */
export interface RedactionOptions {
  /** Patterns used in addition to the defaults. */
  patterns?: RedactionPattern[];
  /** Use only `patterns`, not the defaults. */
  replaceDefaults?: boolean;
}

/** Masks every pattern in `text`. */
export function redactText(text: string, patterns: readonly RedactionPattern[]): string {
  let out = text;
  for (const p of patterns) {
    p.pattern.lastIndex = 0;
    out = out.replace(p.pattern, p.replacement ?? `[REDACTED:${p.name}]`);
  }
  return out;
}

/**
 * Masks secrets in what is sent to the model: message text and tool-call arguments. It works on
 * copies, so the conversation keeps what the user typed; only the outgoing request is masked.
 */
export class RedactionMiddleware implements ConversationMiddleware {
  readonly patterns: readonly RedactionPattern[];

  constructor(options: RedactionOptions = {}) {
    for (const p of options.patterns ?? []) {
      if (!p.pattern.global) {
        throw new InvalidArgumentError(`Redaction pattern "${p.name}" must have the g flag (e.g. /…/g) so every match is masked.`);
      }
    }
    this.patterns = [...(options.replaceDefaults ? [] : DEFAULT_REDACTION_PATTERNS), ...(options.patterns ?? [])];
  }

  processRequest(messages: LLMMessage[]): LLMMessage[] {
    return messages.map((m) => ({
      ...m,
      content: redactText(m.content, this.patterns),
      ...(m.toolCalls
        ? { toolCalls: m.toolCalls.map((c) => ({ ...c, function: { ...c.function, arguments: redactText(c.function.arguments, this.patterns) } })) }
        : {}),
    }));
  }
}
