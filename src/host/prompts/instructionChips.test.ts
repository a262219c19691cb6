import { describe, expect, it } from 'vitest';
import type { ConversationNode } from '../../core/index';
import { excludedInstructionsUpdate, instructionChips, recordedInstructions } from './instructionChips';
import { parseSettings } from '../settings/settings';

const answer = (instructions: unknown, role: 'assistant' | 'user' = 'assistant'): ConversationNode =>
  ({ nodeId: 'a', parentId: 'u', message: { role, content: 'x' }, metadata: { instructions }, timestamp: '' }) as unknown as ConversationNode;

describe('instruction chips', () => {
  const refs = [
    { path: 'AGENTS.md', kind: 'agents', gitBlobId: 'v1' },
    { path: '.cursor/rules/x.mdc', kind: 'cursor', gitBlobId: 'c1', excluded: true },
    { path: 'CLAUDE.md', kind: 'claude', gitBlobId: 'k1' },
  ];

  it('shows what the answer was made with, what the chat excludes now, and which files changed or went away', () => {
    const versions = new Map<string, string | null>([
      ['AGENTS.md', 'v2'],
      ['.cursor/rules/x.mdc', 'c1'],
      ['CLAUDE.md', null],
    ]);
    expect(instructionChips(answer(refs), ['AGENTS.md'], versions)).toEqual([
      { path: 'AGENTS.md', kind: 'agents', sent: true, excluded: true, status: 'changed' },
      { path: '.cursor/rules/x.mdc', kind: 'cursor', sent: false, excluded: false, status: 'current' },
      { path: 'CLAUDE.md', kind: 'claude', sent: true, excluded: false, status: 'missing' },
    ]);
    expect(instructionChips(answer(refs), [])?.map((c) => c.status)).toEqual(['unknown', 'unknown', 'unknown']);
  });

  it('shows nothing without an answer that recorded files', () => {
    expect(instructionChips(undefined, [])).toBeUndefined();
    expect(instructionChips(answer([]), [])).toBeUndefined();
    expect(instructionChips(answer(refs, 'user'), [])).toBeUndefined();
    expect(recordedInstructions([answer(refs), answer(refs, 'user')]).map((r) => r.path)).toEqual(['AGENTS.md', '.cursor/rules/x.mdc', 'CLAUDE.md']);
  });

  it('a toggle adds the path to the chat’s excluded list once, and removes it (the key goes when empty)', () => {
    expect(excludedInstructionsUpdate({}, 'AGENTS.md', true)).toEqual({ excludedInstructions: ['AGENTS.md'] });
    expect(excludedInstructionsUpdate({ excludedInstructions: ['AGENTS.md'] }, 'AGENTS.md', true)).toEqual({ excludedInstructions: ['AGENTS.md'] });
    expect(excludedInstructionsUpdate({ excludedInstructions: ['AGENTS.md', 'b'] }, 'AGENTS.md', false)).toEqual({ excludedInstructions: ['b'] });
    expect(excludedInstructionsUpdate({ excludedInstructions: ['AGENTS.md'] }, 'AGENTS.md', false)).toEqual({ excludedInstructions: undefined });
  });
});

describe('arbor.instructions.enabled', () => {
  const from = (values: Record<string, unknown>) => (key: string) => values[key];

  it('reads every kind by default, the kinds listed, and warns about unknown ones', () => {
    expect(parseSettings(from({})).settings.instructionsEnabled).toEqual(['agents', 'copilot', 'copilotInstructions', 'claude', 'cursor', 'continue']);
    expect(parseSettings(from({ 'instructions.enabled': [] })).settings.instructionsEnabled).toEqual([]);
    const parsed = parseSettings(from({ 'instructions.enabled': ['cursor', 'windsurf', 'cursor'] }));
    expect(parsed.settings.instructionsEnabled).toEqual(['cursor']);
    expect(parsed.warnings.join('\n')).toMatch(/"windsurf" is not a kind/);
    const bad = parseSettings(from({ 'instructions.enabled': 'agents' }));
    expect(bad.settings.instructionsEnabled).toHaveLength(6);
    expect(bad.warnings.join('\n')).toMatch(/must be a list of kinds/);
  });
});
