/**
 * An instruction file's globs come from the repository, and so do the file names they are matched
 * against. A glob of many `*` runs compiles to a regular expression whose matching time grows as the path
 * length to the power of their number: such a glob is refused with a problem on its file, never matched.
 */
import { describe, expect, it } from 'vitest';
import { applicableInstructions } from '../../../src/core/instructions/applicability';
import { INSTRUCTION_KINDS, parseInstructionFile, type InstructionFile } from '../../../src/core/instructions/instructionFile';
import { globProblem } from '../../../src/core/globSafety';

const BOMB = '*a*a*a*a*a*a*a*a*a*a*b';
const bytes = (s: string) => new TextEncoder().encode(s);

describe('instruction globs that could freeze the host', () => {
  it('are a problem on their file, and only the safe globs of it are kept', () => {
    const file = parseInstructionFile('copilotInstructions', '.github/instructions/x.instructions.md', bytes(`---\napplyTo: "${BOMB}, **/*.ts"\n---\nUse tabs.`));
    expect(file.problem).toBe(`.github/instructions/x.instructions.md: the glob "${BOMB}" has 11 wildcards (* or **); at most 3 are read, since each one more can multiply the time to match a path (it could freeze VS Code). Write a simpler glob for \`applyTo\`.`);
    expect(file.globs).toEqual(['**/*.ts']);
    // A 60-character name of `a`s: about 10^11 steps for the backtracking engine to say no.
    const inPlay = ['a'.repeat(60), 'src/x.ts'];
    expect(applicableInstructions([file], inPlay, INSTRUCTION_KINDS).applied.map((a) => a.matched)).toEqual(['src/x.ts']);
  });

  it('a rule file whose only glob is refused applies to nothing (not to everything)', () => {
    const file = parseInstructionFile('continue', '.continue/rules/r.md', bytes(`---\nglobs: "${BOMB}"\n---\nRule.`));
    expect(file.problem).toMatch(/has 11 wildcards/);
    expect(applicableInstructions([file], ['aaaab', 'src/y.ts'], INSTRUCTION_KINDS).applied).toEqual([]);
  });

  it('are left out by the matcher too, whatever made the file', () => {
    const file: InstructionFile = { kind: 'cursor', path: '.cursor/rules/r.mdc', body: 'Rule.', gitBlobId: 'x', globs: [BOMB] };
    // `aaaaaaaaaab` matches the glob: it is not matched because the glob is not used at all.
    expect(applicableInstructions([file], ['aaaaaaaaaab'], INSTRUCTION_KINDS).applied).toEqual([]);
  });

  it('real globs pass', () => {
    for (const glob of ['**/*.ts', 'src/**/*.{ts,tsx}', 'src/**/test/**/*.spec.ts', '*.md', 'docs/**']) expect(globProblem(glob)).toBeUndefined();
    expect(globProblem('x'.repeat(1001))).toMatch(/longer than 1000 characters/);
  });
});
