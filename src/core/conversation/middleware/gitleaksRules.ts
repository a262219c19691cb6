/**
 * The secret rules of gitleaks (a maintained secret scanner, MIT licence), vendored as data in
 * `gitleaksRules.json` (its `source` block names the version, commit and licence; regenerate it with
 * `scripts/vendorGitleaksRules.py`). Each rule becomes a `RedactionPattern` that masks only the
 * secret part of a match, and only when gitleaks would report it: its keywords are present, the
 * secret is random enough (entropy) and no allowlist (the rule's or the global one) lets it pass.
 */
import data from './gitleaksRules.json';
import { re2ToJs } from './re2';
import type { RedactionPattern } from './redactionPattern';

interface RawAllowlist {
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
}

interface RawRule {
  id: string;
  regex: string;
  secretGroup?: number;
  entropy?: number;
  keywords?: string[];
  allowlists?: RawAllowlist[];
}

/** Where the vendored rules come from: project, file, version, commit, licence. */
export const gitleaksRuleSource: Readonly<typeof data.source> = data.source;

interface Allowlist {
  target: 'secret' | 'match' | 'line';
  regexes: RegExp[];
  stopwords: string[];
}

function compileAllowlist(a: RawAllowlist): Allowlist {
  const target = a.regexTarget === 'match' || a.regexTarget === 'line' ? a.regexTarget : 'secret';
  return { target, regexes: (a.regexes ?? []).map((r) => new RegExp(re2ToJs(r))), stopwords: (a.stopwords ?? []).map((w) => w.toLowerCase()) };
}

function allows(list: Allowlist, secret: string, match: string, line: string): boolean {
  const lower = secret.toLowerCase();
  if (list.stopwords.some((w) => lower.includes(w))) return true;
  const subject = list.target === 'match' ? match : list.target === 'line' ? line : secret;
  return list.regexes.some((r) => r.test(subject));
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const globalAllowlist = compileAllowlist(data.allowlist as RawAllowlist);

function lineAround(whole: string, offset: number, length: number): string {
  const start = whole.lastIndexOf('\n', offset - 1) + 1;
  const end = whole.indexOf('\n', offset + length);
  return whole.slice(start, end < 0 ? whole.length : end);
}

function toPattern(rule: RawRule): RedactionPattern {
  const lists = (rule.allowlists ?? []).map(compileAllowlist);
  const mask = `[REDACTED:${rule.id}]`;
  return {
    name: rule.id,
    pattern: new RegExp(re2ToJs(rule.regex), 'g'),
    keywords: (rule.keywords ?? []).map((k) => k.toLowerCase()),
    replacement: (match: string, ...rest: unknown[]) => {
      // replace() passes the groups, then the offset, the whole string and (with named groups) an object.
      const named = typeof rest[rest.length - 1] === 'object' && rest[rest.length - 1] !== undefined ? 1 : 0;
      const whole = rest[rest.length - 1 - named] as string;
      const offset = rest[rest.length - 2 - named] as number;
      const groups = rest.slice(0, rest.length - 2 - named) as Array<string | undefined>;
      // gitleaks: the secret is the rule's secretGroup, else the first group that matched, else the match.
      const secret = (rule.secretGroup ? groups[rule.secretGroup - 1] : groups.find((g) => g !== undefined && g !== '')) ?? match;
      if (secret === '' || (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy)) return match;
      const line = lineAround(whole, offset, match.length);
      if (allows(globalAllowlist, secret, match, line) || lists.some((l) => allows(l, secret, match, line))) return match;
      const at = match.lastIndexOf(secret);
      return `${match.slice(0, at)}${mask}${match.slice(at + secret.length)}`;
    },
  };
}

/** How many rules the vendored file holds (a test checks every one of them loads). */
export const GITLEAKS_RULE_COUNT = data.rules.length;

/**
 * gitleaks' rules as redaction patterns, in gitleaks' order. A rule whose regex cannot be converted
 * is left out rather than stopping the extension from loading; the tests hold the count to the file's.
 */
export const GITLEAKS_RULES: readonly RedactionPattern[] = (data.rules as RawRule[]).flatMap((r) => {
  try {
    return [toPattern(r)];
  } catch {
    return [];
  }
});
