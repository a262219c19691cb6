/**
 * Wire names for tools that come from elsewhere (MCP servers, other extensions), whose own names may hold
 * characters or lengths model APIs refuse: the name a model calls must match `^[A-Za-z0-9_-]{1,64}$`
 * and be unique among the tools of a request.
 */
import { createHash } from 'node:crypto';

/** The longest tool name model APIs accept (OpenAI's rule, which the executor enforces). */
export const MAX_TOOL_NAME = 64;

/**
 * `raw` as a name model APIs accept: other characters become `_`; a name longer than 64 characters is cut
 * and ends in a short hash of `hashOf` (by default `raw` itself), so two long names that differ only at
 * the end stay apart. An empty name becomes `tool`.
 */
export function safeToolName(raw: string, hashOf = raw): string {
  const safe = raw.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
  if (safe.length <= MAX_TOOL_NAME) return safe;
  const hash = createHash('sha256').update(hashOf).digest('hex').slice(0, 8);
  return `${safe.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/**
 * `base` if no name in `used` has it, else `base_2`, `base_3`… (cut so it stays within 64 characters).
 * Adds the result to `used`, so calling it in a stable order gives stable names.
 */
export function uniqueToolName(base: string, used: Set<string>): string {
  let name = base;
  for (let n = 2; used.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME - 1 - String(n).length)}_${n}`;
  used.add(name);
  return name;
}
