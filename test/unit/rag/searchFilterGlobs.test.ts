/**
 * A retrieval config's `filters` globs come from the prompts folder, and the index matches them against
 * every file of the workspace: a glob that could take minutes per path is refused with its reason.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/core/errors';
import { compileFilters } from '../../../src/core/rag/searchFilters';

describe('retrieval filters', () => {
  it('refuse an include or exclude glob of many * runs, naming it', () => {
    for (const filters of [{ include: '*a*a*a*a*a*a*a*a*a*a*b' }, { exclude: ['docs/**', '*a*a*a*a*a*a*a*a*a*a*b'] }]) {
      expect(() => compileFilters(filters)).toThrow(InvalidArgumentError);
      expect(() => compileFilters(filters)).toThrow(/^The retrieval filters are refused: the glob "\*a\*a\*a\*a\*a\*a\*a\*a\*a\*a\*b" has 11 wildcards/);
    }
  });

  it('keep reading real globs', () => {
    const filter = compileFilters({ include: 'src/**/*.ts', exclude: '**/*.test.ts' });
    expect(filter?.('src/a/b.ts', 'src/a/b.ts')).toBe(true);
    expect(filter?.('src/a/b.test.ts', 'src/a/b.test.ts')).toBe(false);
  });
});
