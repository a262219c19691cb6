/**
 * Reading why Node's `fetch` (undici) failed. It throws a bare `TypeError("fetch failed")` and keeps the reason
 * in `cause`: an error with a `code` for network failures (ECONNREFUSED, ENOTFOUND, certificate codes), or
 * without one when fetch itself refused the request ("bad port", "redirect count exceeded"). The `openai`
 * package wraps that again in its `APIConnectionError`, so the reason is looked for along the whole chain.
 */

/** A request fetch refused by its own rules, before or instead of talking to the server. */
export type FetchRefusal = 'bad_port' | 'redirect_loop';

/** Every error along `err`'s `cause` chain (and inside an `AggregateError`), `err` first, each once. */
export function causeChain(err: unknown): Error[] {
  const out: Error[] = [];
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (e instanceof Error) out.push(e);
    queue.push((e as { cause?: unknown }).cause);
    if (Array.isArray((e as { errors?: unknown }).errors)) queue.push(...(e as { errors: unknown[] }).errors);
  }
  return out;
}

/** `bad_port` or `redirect_loop` when fetch refused the request by its own rules; `undefined` otherwise. */
export function fetchRefusal(err: unknown): FetchRefusal | undefined {
  for (const e of causeChain(err)) {
    if (e.message === 'bad port') return 'bad_port';
    if (e.message === 'redirect count exceeded') return 'redirect_loop';
  }
  return undefined;
}

/** True when `err` is, or wraps, fetch's own "fetch failed" (the request never got an answer). */
export function isFetchFailure(err: unknown): boolean {
  return causeChain(err).some((e) => e instanceof TypeError && e.message === 'fetch failed');
}

/** The innermost reason fetch gave ("other side closed", "getaddrinfo ENOTFOUND x"), when it gave one. */
export function fetchFailureReason(err: unknown): string | undefined {
  const chain = causeChain(err);
  const at = chain.findIndex((e) => e instanceof TypeError && e.message === 'fetch failed');
  const inner = at >= 0 ? chain.slice(at + 1).filter((e) => e.message.trim()) : [];
  return inner.length > 0 ? inner[inner.length - 1].message : undefined;
}

/** True for an OpenSSL/Node code that means the server's TLS certificate was not accepted. */
export function isCertificateCode(code: string | undefined): boolean {
  return code !== undefined && /CERT|SIGNED|VERIFY|ALTNAME|TLS/.test(code);
}

/** The port a URL goes to, its scheme's default when it names none. */
export function portOf(url: string): string {
  try {
    const u = new URL(url);
    return u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return 'its port';
  }
}
