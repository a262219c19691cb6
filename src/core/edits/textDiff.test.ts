import { describe, expect, it } from 'vitest';
import { detectEol, toLf, withEol } from './lineEndings';
import { proposeContent, proposeEdit } from './proposeEdit';
import { diffText, minimalReplacement } from './textDiff';

describe('diffText', () => {
  it('gives a unified diff with context and counts a changed line once on each side', () => {
    const lines = 'abcdefghijkl'.split('');
    const before = [...lines, ''].join('\n');
    const after = [...lines.slice(0, 3), 'D', ...lines.slice(4), 'm', ''].join('\n');
    const diff = diffText(before, after, { path: 'src/x.txt' });
    expect(diff.unified).toBe(
      ['--- a/src/x.txt', '+++ b/src/x.txt', '@@ -1,7 +1,7 @@', ' a', ' b', ' c', '-d', '+D', ' e', ' f', ' g', '@@ -10,3 +10,4 @@', ' j', ' k', ' l', '+m'].join('\n'),
    );
    expect([diff.added, diff.removed, diff.hunks.length]).toEqual([2, 1, 2]);
  });

  it('diffs a new file against /dev/null, and an unchanged file as nothing', () => {
    const created = diffText(undefined, 'one\ntwo\n', { path: 'n.txt' });
    expect(created.unified).toBe('--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two');
    expect([created.added, created.removed]).toEqual([2, 0]);
    expect(diffText(undefined, '', { path: 'empty' }).unified).toBe('--- /dev/null\n+++ b/empty');
    expect(diffText('same\n', 'same\n')).toEqual({ unified: '', added: 0, removed: 0, hunks: [] });
  });

  it('compares CRLF and LF text by lines, and marks a missing final line break', () => {
    const crlf = diffText('a\r\nb\r\n', 'a\r\nB\r\n', { path: 'w.txt' });
    expect(crlf.unified).not.toContain('\r');
    expect([crlf.added, crlf.removed]).toEqual([1, 1]);
    const noEol = diffText('a\nb', 'a\nb\n');
    expect(noEol.unified).toContain('\\ No newline at end of file');
    expect([noEol.added, noEol.removed]).toEqual([1, 1]);
  });

  it('shows a change too large to diff line by line as the whole text replaced', () => {
    const before = Array.from({ length: 30 }, (_, i) => `old ${i}`).join('\n') + '\n';
    const after = Array.from({ length: 20 }, (_, i) => `new ${i}`).join('\n');
    const diff = diffText(before, after, { maxEditLength: 5 });
    expect([diff.added, diff.removed, diff.hunks.length]).toEqual([20, 30, 1]);
    expect(diff.unified.split('\n').slice(0, 3)).toEqual(['--- a/file', '+++ b/file', '@@ -1,30 +1,20 @@']);
    expect(diff.unified.endsWith('+new 19\n\\ No newline at end of file')).toBe(true);
  });
});

describe('minimalReplacement', () => {
  it('replaces only what differs, never splitting a CRLF or a surrogate pair', () => {
    expect(minimalReplacement('abcdef', 'abXYef')).toEqual({ start: 2, end: 4, text: 'XY' });
    expect(minimalReplacement('same', 'same')).toBeUndefined();
    expect(minimalReplacement('abc', 'abcabc')).toEqual({ start: 3, end: 3, text: 'abc' });
    // 'a\r\n' → 'a\r\r\n': the common start would end between \r and \n.
    const crlf = minimalReplacement('a\r\nb', 'a\r\r\nb')!;
    expect(crlf.start).toBe(1);
    const apply = (before: string, r: { start: number; end: number; text: string }) => before.slice(0, r.start) + r.text + before.slice(r.end);
    expect(apply('a\r\nb', crlf)).toBe('a\r\r\nb');
    const emoji = minimalReplacement('x\u{1F600}y', 'x\u{1F601}y')!;
    expect(emoji).toEqual({ start: 1, end: 3, text: '\u{1F601}' });
  });
});

describe('line endings and proposals', () => {
  it('detects the line ending most lines use and rewrites text with it', () => {
    expect(detectEol('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(detectEol('a\nb\r\nc\n')).toBe('\n');
    expect(detectEol('no breaks')).toBe('\n');
    expect(withEol('a\nb\r\nc', '\r\n')).toBe('a\r\nb\r\nc');
    expect(toLf('a\r\nb\rc')).toBe('a\nb\rc');
  });

  it('proposes an edit with its diff without touching the input, and a new content in the old file\'s line ending', () => {
    const before = 'x = 1\r\ny = 2\r\n';
    const edit = proposeEdit(before, [{ search: 'y = 2', replace: 'y = 3' }], 'v.py');
    expect(edit.after).toBe('x = 1\r\ny = 3\r\n');
    expect(edit.before).toBe(before);
    expect(edit.diff.unified).toContain('-y = 2\n+y = 3');
    const whole = proposeContent(before, 'z = 0\n', 'v.py');
    expect(whole.after).toBe('z = 0\r\n');
    expect([whole.diff.added, whole.diff.removed]).toEqual([1, 2]);
    expect(proposeContent(undefined, 'a\r\nb\n', 'new.txt').after).toBe('a\r\nb\n');
    expect(proposeContent('one line', 'a\r\nb', 'x').after).toBe('a\r\nb');
  });
});
