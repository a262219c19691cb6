import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachmentLabel, composeUserMessage, resolveInWorkspace, sliceLines, toWorkspaceRelative } from './workspacePaths';

const ws = path.resolve('/tmp/ws-app');
const other = path.resolve('/tmp/ws-lib');

describe('workspace paths', () => {
  it('resolves relative paths inside the folder and refuses escapes', () => {
    expect(resolveInWorkspace([ws], 'src/a.ts')).toBe(path.join(ws, 'src/a.ts'));
    expect(resolveInWorkspace([ws], '../secret')).toBeUndefined();
    expect(resolveInWorkspace([ws], 'src/../../x')).toBeUndefined();
    expect(resolveInWorkspace([ws], '/etc/passwd')).toBeUndefined();
    expect(resolveInWorkspace([ws], 'C:/Windows')).toBeUndefined();
    expect(resolveInWorkspace([], 'a.ts')).toBeUndefined();
  });

  it('uses the folder name prefix in multi-root workspaces, both ways', () => {
    expect(resolveInWorkspace([ws, other], 'ws-lib/index.ts')).toBe(path.join(other, 'index.ts'));
    expect(toWorkspaceRelative([ws, other], path.join(other, 'index.ts'))).toBe('ws-lib/index.ts');
    expect(toWorkspaceRelative([ws], path.join(ws, 'src', 'a.ts'))).toBe('src/a.ts');
    expect(toWorkspaceRelative([ws], '/elsewhere/a.ts')).toBeUndefined();
  });

  it('slices 1-based inclusive line ranges', () => {
    expect(sliceLines('a\nb\nc\nd', 2, 3)).toBe('b\nc');
    expect(sliceLines('a\r\nb', 2)).toBe('b');
    expect(sliceLines('a\nb', 1, 99)).toBe('a\nb');
    expect(sliceLines('whole')).toBe('whole');
  });

  it('composes the message with fenced attachments that code cannot close', () => {
    const msg = composeUserMessage('Why does this fail?', [
      { kind: 'selection', path: 'src/a.ts', startLine: 3, endLine: 5, language: 'typescript', text: 'const s = "```";' },
    ]);
    expect(msg).toBe('Why does this fail?\n\nSelection from src/a.ts (lines 3-5):\n````typescript\nconst s = "```";\n````');
    expect(composeUserMessage('hi', [])).toBe('hi');
    expect(attachmentLabel({ kind: 'file', path: 'x.py', startLine: 4 })).toBe('x.py (line 4)');
  });
});
