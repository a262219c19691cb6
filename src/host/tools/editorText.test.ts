import { describe, expect, it } from 'vitest';
import { formatDiagnostics, formatSelection, type DiagnosticEntry } from './editorText';

describe('formatDiagnostics', () => {
  const d = (path: string, line: number, severity: DiagnosticEntry['severity'], message: string, extra: Partial<DiagnosticEntry> = {}): DiagnosticEntry => ({ path, line, column: 3, severity, message, ...extra });

  it('lists errors first, then by path and position, under a count, with source and code', () => {
    expect(
      formatDiagnostics([
        d('src/b.ts', 9, 'warning', 'Unused variable', { source: 'eslint', code: 'no-unused-vars' }),
        d('src/b.ts', 2, 'error', "Cannot find name 'x'.\n  Did you mean 'y'?", { source: 'ts', code: '2304' }),
        d('src/a.ts', 5, 'error', 'Missing semicolon'),
      ]),
    ).toBe(
      [
        '2 errors, 1 warning in the workspace (2 files):',
        'src/a.ts:5:3 error: Missing semicolon',
        "src/b.ts:2:3 error: Cannot find name 'x'. Did you mean 'y'? (ts 2304)",
        'src/b.ts:9:3 warning: Unused variable (eslint no-unused-vars)',
      ].join('\n'),
    );
  });

  it('says when there are none, and caps a long list', () => {
    expect(formatDiagnostics([], 'src')).toBe('No problems in src (the Problems panel is empty for the workspace files Arbor may read).');
    const many = Array.from({ length: 5 }, (_, i) => d('a.ts', i + 1, 'hint', `h${i}`));
    const out = formatDiagnostics(many, undefined, 2).split('\n');
    expect(out).toEqual(['5 hints in the workspace (1 file):', 'a.ts:1:3 hint: h0', 'a.ts:2:3 hint: h1', '[… 3 more not shown; ask for one file or folder with path.]']);
  });
});

describe('formatSelection', () => {
  const active = { path: 'src/a.ts', language: 'typescript', start: { line: 2, column: 1 }, end: { line: 3, column: 5 } };

  it('gives the active file, its language, the selection and its text, and the open editors', () => {
    expect(formatSelection({ active: { ...active, text: 'two\nthre' }, openEditors: ['src/a.ts', 'README.md'] })).toBe(
      'Active editor: src/a.ts (typescript), selection from line 2, column 1 to line 3, column 5.\nSelected text:\ntwo\nthre\nOpen editors (2): src/a.ts, README.md',
    );
  });

  it('gives the cursor when nothing is selected, the reason when the text is withheld, and says when no editor is open', () => {
    expect(formatSelection({ active: { ...active, end: active.start, text: '' }, openEditors: ['src/a.ts'] })).toBe(
      'Active editor: src/a.ts (typescript), cursor at line 2, column 1, nothing selected.\nOpen editors (1): src/a.ts',
    );
    const secret = formatSelection({ active: { ...active, path: '.env', text: 'KEY=1', withheld: 'Its text is not shared: secret.' }, openEditors: ['.env'] });
    expect(secret).toContain('Its text is not shared: secret.');
    expect(secret).not.toContain('KEY=1');
    expect(formatSelection({ openEditors: [] })).toBe('No text editor is active.\nNo editors are open.');
  });

  it('cuts a very long selection, keeping its head and tail', () => {
    const text = `HEAD${'x'.repeat(50_000)}TAIL`;
    const out = formatSelection({ active: { ...active, text }, openEditors: [] });
    expect(out.length).toBeLessThan(21_000);
    expect(out).toContain('HEAD');
    expect(out).toContain('TAIL');
    expect(out).toMatch(/characters of the tool's output left out/);
  });
});
