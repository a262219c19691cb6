import { describe, expect, it } from 'vitest';
import { abortable, lmInputSchema, lmResultText, lmToolLeftOut, lmWireNames, promptTsxText } from './lmToolParts';

describe('lmWireNames', () => {
  it('keeps valid names, makes the others valid, and numbers clashes with each other and with reserved names', () => {
    const names = lmWireNames(['copilot_searchCodebase', 'vscode.editFile', 'vscode_editFile', 'read_file', `ext_${'n'.repeat(80)}`], ['read_file']);
    expect(names.slice(0, 4)).toEqual(['copilot_searchCodebase', 'vscode_editFile', 'vscode_editFile_2', 'read_file_2']);
    expect(names[4]).toMatch(/^ext_n+_[0-9a-f]{8}$/);
    expect(names.every((name) => /^[A-Za-z0-9_-]{1,64}$/.test(name))).toBe(true);
    // Stable: the same tools give the same names on the next request.
    expect(lmWireNames(['copilot_searchCodebase', 'vscode.editFile', 'vscode_editFile', 'read_file', `ext_${'n'.repeat(80)}`], ['read_file'])).toEqual(names);
  });
});

describe('lmToolLeftOut', () => {
  const object = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };

  it('leaves out VS Code\'s internal tools, whatever their schema', () => {
    expect(lmToolLeftOut({ name: 'vscode_searchExtensions_internal', inputSchema: object })).toBe('internal');
    expect(lmToolLeftOut({ name: 'vscode_editFile_internal', inputSchema: {} })).toBe('internal');
    expect(lmToolLeftOut({ name: 'vscode_editFile_INTERNAL' })).toBe('internal');
    // Only the suffix counts: a name that merely contains the word is another extension's tool.
    expect(lmToolLeftOut({ name: 'internal_docs_search', inputSchema: object })).toBeUndefined();
    expect(lmToolLeftOut({ name: 'vscode_internal_search', inputSchema: object })).toBeUndefined();
  });

  it('offers a tool with an object schema, or with none (it takes no input)', () => {
    expect(lmToolLeftOut({ name: 'copilot_searchCodebase', inputSchema: object })).toBeUndefined();
    expect(lmToolLeftOut({ name: 'ext_noInput', inputSchema: undefined })).toBeUndefined();
    expect(lmToolLeftOut({ name: 'ext_bare', inputSchema: { type: 'object' } })).toBeUndefined();
  });

  it('leaves out a tool whose declared schema a function-calling API cannot take', () => {
    const refused = [{}, { properties: { q: { type: 'string' } } }, { type: 'string' }, { type: ['object', 'null'] }, [], null, 'object', { type: 'object', properties: [] }, { type: 'object', required: 'q' }, { type: 'object', required: [1] }];
    expect(refused.map((inputSchema) => lmToolLeftOut({ name: 'ext_tool', inputSchema }))).toEqual(refused.map(() => 'schema'));
  });
});

describe('lmInputSchema', () => {
  it('keeps a declared schema and gives a tool without one an empty object schema', () => {
    const declared = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
    expect(lmInputSchema(declared)).toBe(declared);
    expect(lmInputSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(lmInputSchema({})).toEqual({ type: 'object', properties: {} });
  });
});

describe('lmResultText', () => {
  it('joins text parts and describes what the model cannot read', () => {
    expect(
      lmResultText([
        { kind: 'text', value: 'Found 2 files:' },
        { kind: 'text', value: 'a.ts\nb.ts' },
        { kind: 'data', mimeType: 'image/png', bytes: 2048 },
        { kind: 'unknown', description: 'a result part of type Foo Arbor cannot show' },
        { kind: 'text', value: '' },
      ]),
    ).toBe('Found 2 files:\na.ts\nb.ts\n[image/png data, 2048 bytes]\n[a result part of type Foo Arbor cannot show]');
  });

  it('reads the text chunks of a serialized prompt-tsx tree in order', () => {
    // The shape of @vscode/prompt-tsx's PromptElementJSON: pieces (type 1) with children, text chunks (type 2).
    const tree = {
      node: {
        type: 1,
        ctor: 2,
        ctorName: 'ToolResult',
        props: { text: 'not content' },
        children: [
          { type: 2, text: 'Line one.', priority: 10, lineBreakBefore: false },
          { type: 1, ctor: 1, children: [{ type: 2, text: 'Line two.', priority: 5, lineBreakBefore: true }] },
          { type: 2, text: ' Still two.', priority: 5 },
        ],
      },
    };
    expect(promptTsxText(tree)).toBe('Line one.\nLine two. Still two.');
    expect(lmResultText([{ kind: 'promptTsx', value: tree }])).toBe('Line one.\nLine two. Still two.');
    expect(promptTsxText({ node: { type: 1, children: [] } })).toBe('{"node":{"type":1,"children":[]}}');
    expect(promptTsxText('plain')).toBe('plain');
  });
});

describe('abortable', () => {
  it('settles as the promise does while not aborted', async () => {
    const controller = new AbortController();
    await expect(abortable(Promise.resolve(42), controller.signal)).resolves.toBe(42);
    await expect(abortable(Promise.reject(new Error('tool failed')), controller.signal)).rejects.toThrow('tool failed');
  });

  it('rejects with the abort reason when aborted, even if the tool never answers', async () => {
    const controller = new AbortController();
    const never = new Promise<string>(() => undefined);
    const call = abortable(never, controller.signal);
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await expect(abortable(Promise.resolve(1), controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
