import { describe, expect, it } from 'vitest';
import { safeToolName, uniqueToolName } from './toolNames';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('safeToolName', () => {
  it('keeps a valid name and replaces the characters model APIs refuse', () => {
    expect(safeToolName('read_file')).toBe('read_file');
    expect(safeToolName('vscode.search-files')).toBe('vscode_search-files');
    expect(safeToolName('größe messen')).toBe('gr__e_messen');
    expect(safeToolName('')).toBe('tool');
  });

  it('cuts a long name to 64 characters, ending in a hash that keeps different names apart', () => {
    const a = safeToolName(`${'x'.repeat(70)}a`);
    const b = safeToolName(`${'x'.repeat(70)}b`);
    expect(a).toMatch(VALID);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a.slice(0, 55)).toBe('x'.repeat(55));
    expect(safeToolName(`${'x'.repeat(70)}a`)).toBe(a); // the same name gives the same result
  });
});

describe('uniqueToolName', () => {
  it('numbers a name already used, within 64 characters', () => {
    const used = new Set<string>(['read_file']);
    expect(uniqueToolName('read_file', used)).toBe('read_file_2');
    expect(uniqueToolName('read_file', used)).toBe('read_file_3');
    expect(uniqueToolName('write_file', used)).toBe('write_file');
    const long = 'y'.repeat(64);
    expect(uniqueToolName(long, used)).toBe(long);
    const second = uniqueToolName(long, used);
    expect(second).toMatch(VALID);
    expect(second).toBe(`${'y'.repeat(62)}_2`);
  });
});
