import { InvalidArgumentError } from '../../errors';
import type { LLMMessage } from '../../types';
import { GITLEAKS_RULES } from './gitleaksRules';
import type { ConversationMiddleware } from './middleware';
import type { RedactionPattern } from './redactionPattern';


/**
 * Arbor's own patterns: provider API keys, cloud and forge tokens, bearer and basic credentials,
 * private keys (PGP blocks, and keys cut before their END line), passwords in URLs, and settings
 * such as `api_key=…`, `DB_PASSWORD=…`, `export X_TOKEN=…` or YAML `password: …`.
 */
const ARBOR_REDACTION_PATTERNS: readonly RedactionPattern[] = [
  {
    name: 'private-key',
    // The whole block; or, with no END line, the BEGIN line and the key's lines that follow it.
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END \1PRIVATE KEY\2-----|(?:\r?\n(?:[A-Za-z0-9+/]{16,}={0,2}|=[A-Za-z0-9+/]{4}|[A-Za-z][\w-]*: [^\r\n]*|[ \t]*(?=\r?\n[A-Za-z0-9+/=]{16,})))*)/g,
  },
  {
    name: 'url-password',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@\[\]]+:)(?!\[REDACTED)([^\s/?#@]+)(@)/gi,
    replacement: '$1[REDACTED:url-password]$3',
  },
  { name: 'basic-auth', pattern: /\b(Authorization["']?\s*[:=]\s*["']?Basic\s+)[A-Za-z0-9+/]{6,}={0,2}/gi, replacement: '$1[REDACTED:basic-auth]' },
  { name: 'api-key', pattern: /\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/g },
  { name: 'aws-access-key', pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g },
  { name: 'github-token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { name: 'bearer-token', pattern: /\b(Bearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi, replacement: '$1[REDACTED:bearer-token]' },
  {
    name: 'secret-setting',
    pattern:
      /\b((?:[A-Za-z0-9]+[_.-])*(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|aws[_-]?secret[_-]?access[_-]?key|password|passwd)["']?\s*[:=]\s*["']?)(?!\[REDACTED)([A-Za-z0-9_\-+/=.~!@#$%^&*]{8,})(?![\w([])/gi,
    replacement: '$1[REDACTED:secret]',
  },
  {
    // Environment style only (upper case, `=` with no space before it), so code such as
    // `token = nextToken` or `const SESSION_TOKEN = 'setting.name'` is left alone.
    name: 'env-secret',
    pattern: /\b([A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:SECRET|TOKEN|PASS|PWD|KEY)(?:=|:[ \t]*)["']?)(?!\[REDACTED)([^\s"'#$]{6,})/g,
    replacement: '$1[REDACTED:secret]',
  },
];

/** Secrets masked by default: Arbor's own patterns, then gitleaks' rules (see `gitleaksRules.ts`). */
export const DEFAULT_REDACTION_PATTERNS: readonly RedactionPattern[] = [...ARBOR_REDACTION_PATTERNS, ...GITLEAKS_RULES];

/** Characters of original and masked text `RedactionMiddleware` keeps to skip masking the same text twice. */
const CACHE_CHARS = 16_000_000;

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
  let lower: string | undefined;
  for (const p of patterns) {
    if (p.keywords && p.keywords.length > 0) {
      lower ??= out.toLowerCase();
      if (!p.keywords.some((k) => lower!.includes(k))) continue;
    }
    p.pattern.lastIndex = 0;
    const next = typeof p.replacement === 'function' ? out.replace(p.pattern, p.replacement) : out.replace(p.pattern, p.replacement ?? `[REDACTED:${p.name}]`);
    if (next !== out) lower = undefined;
    out = next;
  }
  return out;
}

/**
 * Masks secrets in what is sent to the model: message text and tool-call arguments. It works on
 * copies, so the conversation keeps what the user typed; only the outgoing request is masked.
 */
export class RedactionMiddleware implements ConversationMiddleware {
  readonly patterns: readonly RedactionPattern[];
  /** Masked text by original text: a conversation's history is sent again with every request. */
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;

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
      content: this.redact(m.content),
      ...(m.toolCalls
        ? { toolCalls: m.toolCalls.map((c) => ({ ...c, function: { ...c.function, arguments: this.redact(c.function.arguments) } })) }
        : {}),
    }));
  }

  private redact(text: string): string {
    let out = this.cache.get(text);
    if (out === undefined) {
      out = redactText(text, this.patterns);
      const size = text.length + out.length;
      if (size <= CACHE_CHARS / 4) {
        // Oldest first out, until the new pair fits.
        for (const [k, v] of this.cache) {
          if (this.cachedChars + size <= CACHE_CHARS) break;
          this.cache.delete(k);
          this.cachedChars -= k.length + v.length;
        }
        this.cache.set(text, out);
        this.cachedChars += size;
      }
    }
    return out;
  }
}
