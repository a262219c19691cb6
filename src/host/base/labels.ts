/**
 * Text shaping for the sidebar and status bar: relative times, first lines, role names, costs.
 * Pure, so it is unit tested without VS Code.
 */
import type { Role } from '../../core/index';

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", or the date for older times. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 30) return `${days} days ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** The first non-empty line of `text`, whitespace collapsed, cut to `max` characters with "…". */
export function firstLine(text: string, max = 60): string {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  const collapsed = line.replace(/\s+/g, ' ');
  return collapsed.length > max ? `${collapsed.slice(0, max - 1).trimEnd()}…` : collapsed;
}

/** How each role is named in labels and which codicon shows it; tool and function calls look alike. */
const ROLES: Record<Role, { name: string; icon: string }> = {
  user: { name: 'You', icon: 'account' },
  assistant: { name: 'Assistant', icon: 'hubot' },
  system: { name: 'System', icon: 'gear' },
  tool: { name: 'Tool', icon: 'tools' },
  function: { name: 'Tool', icon: 'tools' },
};

/** How a role is named in labels. */
export function roleName(role: Role): string {
  return ROLES[role].name;
}

/** The codicon id shown for a role. */
export function roleIcon(role: Role): string {
  return ROLES[role].icon;
}

/** "$0.0123", "$1.50", or "" for zero/unknown; small amounts keep enough digits to be seen. */
export function formatCost(usd: number | undefined): string {
  if (!usd || !Number.isFinite(usd) || usd <= 0) return '';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(4)}`;
}

/** "1 message", "6 messages". */
export function messageCount(n: number): string {
  return `${n} message${n === 1 ? '' : 's'}`;
}
