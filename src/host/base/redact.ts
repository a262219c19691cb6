/**
 * Masks anything that looks like a credential before it reaches a log line: OpenAI-style keys,
 * bearer tokens, `api_key=` pairs and private-key blocks. Pure; a second line of defence, since
 * keys are never passed to the logger in the first place.
 */
const PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi,
  /\b(api[_-]?key|authorization|password|secret|token)(["']?\s*[:=]\s*["']?)[^\s"',;]{4,}/gi,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** `text` with every credential-looking part replaced by `***`. */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  let out = text;
  for (const secret of extra) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***');
  }
  out = out.replace(PATTERNS[0], 'sk-***');
  out = out.replace(PATTERNS[1], '$1***');
  out = out.replace(PATTERNS[2], '$1$2***');
  out = out.replace(PATTERNS[3], '-----PRIVATE KEY REDACTED-----');
  return out;
}
