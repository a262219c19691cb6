import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PromptValidationError } from '../../../src/core/errors';
import type { PromptBuilderOptions } from '../../../src/core/prompts/promptBuilder';
import { usePromptFolders } from './promptFolders';

const openPrompts = usePromptFolders();

async function setup(files: Record<string, string>, options: PromptBuilderOptions = {}) {
  return (await openPrompts(files, options)).builder;
}

describe('dataknobs conditional sections', () => {
  const files = {
    'user/cond.yaml': [
      'template: |-',
      '  Analyze((, focusing on {{focus}})).',
      '  ((Context: {{a}}((, and {{b}})).))',
      '  Code f((x)) stays.',
    ].join('\n'),
  };

  it('drops a section whose variables are all empty or missing', async () => {
    const b = await setup(files);
    const r = await b.renderUserPrompt('cond', { params: { focus: '', a: null } });
    expect(r.content).toBe('Analyze.\n\nCode f((x)) stays.');
  });

  it('keeps a partly filled section, rendering the empty variables as nothing', async () => {
    const b = await setup(files);
    expect((await b.renderUserPrompt('cond', { params: { focus: 'speed', b: 'B' } })).content).toBe(
      'Analyze, focusing on speed.\nContext: , and B.\nCode f((x)) stays.',
    );
  });

  it('handles nested sections: the inner one disappears on its own', async () => {
    const b = await setup(files);
    expect((await b.renderUserPrompt('cond', { params: { a: 'A' } })).content).toBe('Analyze.\nContext: A.\nCode f((x)) stays.');
  });

  it('treats variables inside sections as optional, even at level error', async () => {
    const b = await setup({ 'user/opt.yaml': 'template: "Hi((, {{name}}))"\nvalidation: {level: error}\n' });
    expect((await b.renderUserPrompt('opt')).content).toBe('Hi');
    expect(b.getRequiredParameters('opt')).toEqual([]);
  });

  it('does not apply sections to Markdown prompts unless the front matter asks', async () => {
    const b = await setup({
      'user/plain.md': 'call((x))({{y}})',
      'user/opted.md': '---\nconditionalSections: true\n---\nA(( {{y}}))',
    });
    expect((await b.renderUserPrompt('plain', { params: { y: 1 } })).content).toBe('call((x))(1)');
    expect((await b.renderUserPrompt('opted')).content).toBe('A');
  });
});

describe('validation levels', () => {
  const body = '---\nparams:\n  a: {required: true}\n  b: {required: true}\n  c: {default: C}\nvalidation: {level: LEVEL}\n---\n{{a}} {{b}} {{c}} {{d}}';
  const promptAt = (level: string) => ({ 'user/v.md': body.replace('LEVEL', level) });

  it('error: throws PromptValidationError naming every missing required parameter', async () => {
    const b = await setup(promptAt('error'));
    const err = await b.renderUserPrompt('v', { params: { b: 'B' } }).catch((e) => e);
    expect(err).toBeInstanceOf(PromptValidationError);
    expect(err.missing).toEqual(['a', 'd']);
    expect(err.message).toContain('"a", "d"');
    expect(err.promptName).toBe('v');
  });

  it('warn: renders and lists the missing parameters', async () => {
    const b = await setup(promptAt('warn'));
    const r = await b.renderUserPrompt('v', { params: { b: 'B' } });
    expect(r.content).toBe(' B C ');
    expect(r.paramsMissing).toEqual(['a', 'd']);
    expect(r.validationWarnings).toEqual(['missing required parameter "a"', 'missing required parameter "d"']);
  });

  it('ignore: renders silently', async () => {
    const b = await setup(promptAt('ignore'));
    const r = await b.renderUserPrompt('v');
    expect(r.content).toBe('  C ');
    expect(r.validationWarnings).toEqual([]);
  });

  it("uses the builder's default level when the prompt sets none, and dataknobs required_params", async () => {
    const b = await setup({ 'user/d.yaml': 'template: "{{x}} {{#if y}}{{y}}{{/if}}"\nvalidation: {required_params: [x, z]}\n' }, { defaultValidation: 'error' });
    await expect(b.renderUserPrompt('d')).rejects.toMatchObject({ missing: ['x', 'z'] });
    expect(b.getRequiredParameters('d')).toEqual(['x', 'z']);
    expect((await b.renderUserPrompt('d', { params: { x: 1, z: 2 } })).content).toBe('1 ');
  });
});

describe('rendering', () => {
  it('inserts values as text without HTML escaping', async () => {
    const b = await setup({ 'user/code.md': '{{code}} | {{{code}}}' });
    const code = 'if (a < b && c > "d") { return \'&amp;\'; }';
    expect((await b.renderUserPrompt('code', { params: { code } })).content).toBe(`${code} | ${code}`);
  });

  it('provides current_date, current_datetime, current_year and extra system values', async () => {
    const now = new Date(2031, 1, 3, 4, 5, 6);
    const b = await setup(
      { 'system/s.md': '---\nparams:\n  language: {default: text}\n---\n{{current_date}}|{{current_datetime}}|{{current_year}}|{{file}}|{{language}}|{{selection}}' },
      { now: () => now, systemValues: () => ({ file: 'src/a.ts', language: 'typescript' }) },
    );
    const r = await b.renderSystemPrompt('s', { systemValues: { selection: 'sel' } });
    expect(r.content).toBe(`2031-02-03|${now.toISOString()}|2031|src/a.ts|typescript|sel`);
    expect(r.paramsUsed).toEqual({ language: 'typescript' });
    const given = await b.renderSystemPrompt('s', { params: { language: 'rust' } });
    expect(given.content).toContain('|rust|');
  });

  it('records the file version: sha256 and the blob id git hash-object gives', async () => {
    const content = '---\ndescription: ünïcode ✓\n---\nHello {{x}}\r\nbytes\n';
    const { builder, folder } = await openPrompts({ 'user/ver.md': content });
    const r = await builder.renderUserPrompt('ver', { params: { x: 1 } });
    const abs = `${folder.dir}/user/ver.md`;
    const expected = execFileSync('git', ['hash-object', abs], { encoding: 'utf8' }).trim();
    const sha = execFileSync('sha256sum', [abs], { encoding: 'utf8' }).split(' ')[0];
    expect(r.prompt).toEqual({ name: 'ver', path: 'user/ver.md', sha256: sha, gitBlobId: expected });
  });

  it('renders inline prompts, which may include library partials', async () => {
    const b = await setup({ 'partials/sig.md': '-- {{who}}' });
    const r = await b.renderInlineSystemPrompt('You help {{who}}.\n{{> sig}}', { params: { who: 'Ann' } });
    expect(r.content).toBe('You help Ann.\n-- Ann');
    expect(r.prompt).toBeUndefined();
    const u = await b.renderInlineUserPrompt('Say {{thing}}');
    expect(u.validationWarnings).toEqual(['missing required parameter "thing"']);
  });

  it('caches compiled templates: rendering twice gives the same result and new content renders anew', async () => {
    const b = await setup({ 'user/c.md': 'n={{n}}' });
    expect((await b.renderUserPrompt('c', { params: { n: 1 } })).content).toBe('n=1');
    expect((await b.renderUserPrompt('c', { params: { n: 2 } })).content).toBe('n=2');
    expect((await b.renderInlineUserPrompt('m={{n}}', { params: { n: 3 } })).content).toBe('m=3');
  });

  it('names the available prompts when one is missing', async () => {
    const b = await setup({ 'user/one.md': '1', 'user/two.md': '2' });
    await expect(b.renderUserPrompt('three')).rejects.toThrow('there is no user prompt named "three" in user/ (available: one, two)');
  });
});
