/** Number formats shared by the header and the message footers. */

/** A cost in US dollars: small amounts keep enough digits to be told apart. */
export function formatCost(usd: number): string {
  if (usd === 0) {
    return '$0.00';
  }
  if (usd < 0.01) {
    return `$${usd.toFixed(4)}`;
  }
  return `$${usd.toFixed(2)}`;
}

// One formatter for all calls: `toLocaleString` builds a new one each time, slow over 1,000 messages.
const GROUPED = new Intl.NumberFormat('en-US');

/** A token count, grouped by thousands. */
export function formatTokens(count: number): string {
  return `${GROUPED.format(count)} tokens`;
}

/** `path:12-30`, `path:12` or `path` for a file reference. */
export function formatRange(path: string, startLine?: number, endLine?: number): string {
  if (startLine === undefined) {
    return path;
  }
  if (endLine === undefined || endLine === startLine) {
    return `${path}:${startLine}`;
  }
  return `${path}:${startLine}-${endLine}`;
}
