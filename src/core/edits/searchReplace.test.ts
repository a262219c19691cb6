import { describe, expect, it } from 'vitest';
import { applySearchReplace, EditMatchError } from './searchReplace';

function failure(fn: () => unknown): EditMatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof EditMatchError) return err;
    throw err;
  }
  throw new Error('expected an EditMatchError');
}

const SOURCE = ['function add(a, b) {', '  return a + b;', '}', '', 'function sub(a, b) {', '  return a - b;', '}', ''].join('\n');

describe('applySearchReplace', () => {
  it('replaces an exact match, as text (a "$&" in the replacement is not a pattern)', () => {
    const out = applySearchReplace(SOURCE, [{ search: '  return a + b;', replace: '  return `$&${a + b}`;' }]);
    expect(out.text).toBe(SOURCE.split('  return a + b;').join('  return `$&${a + b}`;'));
    expect(out.applied).toEqual([{ edit: 1, match: 'exact', startLine: 2, endLine: 2, reindented: false }]);
  });

  it('applies edits in order, each to the result of the one before', () => {
    const out = applySearchReplace(SOURCE, [
      { search: 'function add(a, b) {', replace: 'function plus(a, b) {' },
      { search: 'plus(a, b) {\n  return a + b;', replace: 'plus(a, b) {\n  return b + a;' },
    ]);
    expect(out.text.split('\n').slice(0, 2)).toEqual(['function plus(a, b) {', '  return b + a;']);
  });

  it('matches lines with different indentation and spacing, and shifts the replacement by the indentation the file adds', () => {
    const file = ['class A {', '    run() {', '        go( 1 );', '        stop();', '    }', '}', ''].join('\n');
    const out = applySearchReplace(file, [{ search: 'run() {\n    go(1);\n    stop();\n}', replace: 'run() {\n    go(2);\n}' }]);
    expect(out.text).toBe(['class A {', '    run() {', '        go(2);', '    }', '}', ''].join('\n'));
    expect(out.applied[0]).toEqual({ edit: 1, match: 'whitespace', startLine: 2, endLine: 4, reindented: true });
  });

  it('takes off the indentation the search text had and the file lacks', () => {
    const file = 'if (x) {\n  y();\n}\n';
    const out = applySearchReplace(file, [{ search: '    if (x) {\n      y();\n    }', replace: '    if (x) {\n      z();\n    }' }]);
    expect(out.text).toBe('if (x) {\n  z();\n}\n');
  });

  it('keeps the replacement as written when the lines differ in indentation in no single way', () => {
    const file = 'a\n\tb\n  c\n';
    const out = applySearchReplace(file, [{ search: '  a \nb\n c', replace: 'A\nB\nC' }]);
    expect(out.text).toBe('A\nB\nC\n');
    expect(out.applied[0].reindented).toBe(false);
  });

  it('ignores blank lines at the edges of the search text when matching by lines, and the same ones in the replacement', () => {
    const file = 'one\ntwo\nthree\n';
    const out = applySearchReplace(file, [{ search: '\n two \n', replace: '\nTWO\n' }]);
    expect(out.text).toBe('one\nTWO\nthree\n');
  });

  it('fails an ambiguous edit, naming the lines, and asks for more context', () => {
    const err = failure(() => applySearchReplace(SOURCE, [{ search: '(a, b) {', replace: '(x) {' }], 'src/math.js'));
    expect(err.failure).toBe('ambiguous');
    expect(err.message).toBe(
      'The edit: the search text occurs 2 times in src/math.js (at lines 1, 5). Add a few lines before or after it to the search text so it matches one place only. No change was written.',
    );
    // Exactly once is not ambiguous, though the same text ignoring whitespace is on another line too.
    const loose = applySearchReplace('  x = 1\nx  =  1\n', [{ search: 'x = 1', replace: 'y' }, { search: 'x=1', replace: 'z' }]);
    expect(loose.text).toBe('  y\nz\n');
    expect(loose.applied.map((a) => a.match)).toEqual(['exact', 'whitespace']);
    const twice = failure(() => applySearchReplace('a\n  b\nc\nb\n', [{ search: ' b ', replace: 'B' }]));
    expect(twice.failure).toBe('ambiguous');
    expect(twice.message).toMatch(/ignoring whitespace it matches 2 places \(at lines 2, 4\)/);
  });

  it('fails a search text the file does not have, telling the model to read the file again, and says how far it got', () => {
    const err = failure(() =>
      applySearchReplace(SOURCE, [{ search: 'function add(a, b) {', replace: 'function add(a, b, c) {' }, { search: 'function sub(a, b) {\n  return b - a;', replace: '' }], 'src/math.js'),
    );
    expect(err.failure).toBe('notFound');
    expect(err.edit).toBe(2);
    expect(err.message).toBe(
      'Edit 2 of 2: the search text was not found in src/math.js, not even ignoring whitespace. Its first line is at line 5, but the lines after it differ. The file may have changed since you read it: read it again with read_file and copy the lines to replace exactly. No change was written.',
    );
    expect(failure(() => applySearchReplace(SOURCE, [{ search: 'nowhere();', replace: '' }])).message).toMatch(/Not even its first line \("nowhere\(\);"\) is in the file\./);
  });

  it('refuses an empty or blank search text', () => {
    const err = failure(() => applySearchReplace(SOURCE, [{ search: ' \n', replace: 'x' }]));
    expect(err.failure).toBe('emptySearch');
    expect(err.message).toMatch(/search for the lines next to where it goes/);
  });

  it('keeps CRLF line endings, whatever endings the model wrote', () => {
    const file = 'one\r\ntwo\r\nthree\r\n';
    expect(applySearchReplace(file, [{ search: 'two\nthree', replace: '2\n3\n3.5' }]).text).toBe('one\r\n2\r\n3\r\n3.5\r\n');
    expect(applySearchReplace(file, [{ search: ' two\r\n', replace: 'TWO\r\n' }]).text).toBe('one\r\nTWO\r\nthree\r\n');
  });

  it('keeps a file without a final line break without one, and one with it with it', () => {
    expect(applySearchReplace('a\nb', [{ search: 'b', replace: 'c' }]).text).toBe('a\nc');
    expect(applySearchReplace('a\n  b', [{ search: 'b\n', replace: 'c\n' }]).text).toBe('a\n  c');
    expect(applySearchReplace('a\nb\n', [{ search: ' b', replace: 'c' }]).text).toBe('a\nc\n');
    // Removing every line leaves an empty file, not a lone line break.
    expect(applySearchReplace('a\n', [{ search: ' a', replace: '' }]).text).toBe('');
  });

  it('removes lines when the replacement is empty', () => {
    const out = applySearchReplace('a\nb\nc\n', [{ search: ' b\n', replace: '' }]);
    expect(out.text).toBe('a\nc\n');
    expect(out.applied[0]).toMatchObject({ startLine: 2, endLine: 1 });
  });
});
