import { describe, expect, it } from 'vitest';
import type { Role } from '../../core/index';
import { firstLine, formatCost, messageCount, relativeTime, roleIcon, roleName } from './labels';

describe('labels', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('gives relative times from seconds to dates', () => {
    expect(relativeTime('2026-03-10T11:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-03-10T11:50:00Z', now)).toBe('10 min ago');
    expect(relativeTime('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-03-09T10:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-03-05T12:00:00Z', now)).toBe('5 days ago');
    expect(relativeTime('2025-12-01T12:00:00Z', now)).toBe('2025-12-01');
    expect(relativeTime('not a date', now)).toBe('');
  });
  it('cuts the first line with an ellipsis', () => {
    expect(firstLine('\n\n  hello world  \nsecond')).toBe('hello world');
    expect(firstLine('a'.repeat(100), 10)).toBe(`${'a'.repeat(9)}…`);
    expect(firstLine('')).toBe('');
  });
  it('names roles and costs', () => {
    expect(roleName('user')).toBe('You');
    expect(roleIcon('assistant')).toBe('hubot');
    expect(['user', 'assistant', 'system', 'tool', 'function'].map((r) => roleName(r as Role))).toEqual(['You', 'Assistant', 'System', 'Tool', 'Tool']);
    expect(['user', 'assistant', 'system', 'tool', 'function'].map((r) => roleIcon(r as Role))).toEqual(['account', 'hubot', 'gear', 'tools', 'tools']);
    expect(formatCost(0)).toBe('');
    expect(formatCost(0.00012)).toBe('$0.0001');
    expect(formatCost(2.5)).toBe('$2.50');
    expect(messageCount(1)).toBe('1 message');
  });
});
