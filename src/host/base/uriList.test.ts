import { describe, expect, it } from 'vitest';
import { jsonUrisOf } from './uriList';

describe('jsonUrisOf', () => {
  it('keeps the .json URIs of a uri-list, skipping comments, blanks and other files', () => {
    const list = '# dragged\r\nfile:///w/chat.json\r\nfile:///w/notes.md\r\n\r\nfile:///w/Session%201.JSON\nvscode-remote://h/w/a.json?x=1\n';
    expect(jsonUrisOf(list)).toEqual(['file:///w/chat.json', 'file:///w/Session%201.JSON', 'vscode-remote://h/w/a.json?x=1']);
    expect(jsonUrisOf('')).toEqual([]);
  });
});
