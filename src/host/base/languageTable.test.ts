import { describe, expect, it } from 'vitest';
import { languageTable } from './languageTable';

describe('languageTable', () => {
  const table = languageTable([
    { contributes: { languages: [{ id: 'typescript', extensions: ['.ts', '.cts', '.mts'] }] } },
    { contributes: { languages: [{ id: 'dockerfile', filenames: ['Dockerfile'], extensions: ['.dockerfile'] }, { id: 'plaintext', extensions: ['.txt'] }] } },
    { contributes: { languages: [{ id: 'typescript-declaration', extensions: ['.d.ts'] }, { id: 'late', extensions: ['.ts'] }] } },
    { contributes: { languages: [{ id: 42, extensions: ['.bad'] }, { id: 'nothing' }] } },
    { name: 'no contributions' },
    undefined,
  ]);

  it('names a file\'s language by its extension, whatever the case and folder', () => {
    expect(table.languageOf('src/cart.ts')).toBe('typescript');
    expect(table.languageOf('src\\Sub\\CART.TS')).toBe('typescript');
    expect(table.languageOf('notes.txt')).toBe('plaintext');
  });

  it('prefers a file name, then the longest extension listed', () => {
    expect(table.languageOf('build/Dockerfile')).toBe('dockerfile');
    expect(table.languageOf('types/index.d.ts')).toBe('typescript-declaration');
  });

  it('keeps the first claim of an extension and skips malformed entries', () => {
    expect(table.languageOf('a.ts')).toBe('typescript');
    expect(table.languageOf('x.bad')).toBeUndefined();
    expect(table.languageOf('README')).toBeUndefined();
    expect(table.languageOf('archive.unknown')).toBeUndefined();
  });
});
