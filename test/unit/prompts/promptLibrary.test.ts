import { promises as fs } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import { PromptError } from '../../../src/core/errors';
import { tempPrompts, type TempPrompts } from './tempPrompts';

let folder: TempPrompts | undefined;
let library: FileSystemPromptLibrary | undefined;
afterEach(async () => {
  library?.dispose();
  library = undefined;
  await folder?.remove();
  folder = undefined;
});

async function open(files: Record<string, string>, watch = false) {
  folder = await tempPrompts(files);
  library = await FileSystemPromptLibrary.open(folder.dir, { watch, debounceMs: 20 });
  return { library, builder: new PromptBuilder(library, {}) };
}

describe('FileSystemPromptLibrary formats', () => {
  it('loads Markdown, Handlebars, YAML, YML and JSON prompts with their params and defaults', async () => {
    const { library, builder } = await open({
      'system/md-prompt.md': '---\ndescription: From Markdown\nparams:\n  who: {default: world, description: Who}\nmodel: m1\ntemperature: 0.3\nmaxTokens: 99\n---\nHello {{who}}!',
      'user/hbs-prompt.hbs': '---\nparams:\n  n: {default: 3}\n---\nCount {{n}}',
      'user/yaml-prompt.yaml': 'template: "Hi {{name}} from yaml"\ndefaults:\n  name: Ada\nmetadata:\n  description: dataknobs yaml\n',
      'user/yml-prompt.yml': 'template: |\n  Line {{x}}\ndefaults: {x: yml}\n',
      'user/json-prompt.json': JSON.stringify({ template: 'JSON says {{word}}', defaults: { word: 'hi' }, validation: { level: 'error', required_params: ['word'] } }),
    });
    expect(library.diagnostics()).toEqual([]);
    expect(library.listPrompts().map((p) => `${p.kind}/${p.name}`)).toEqual([
      'system/md-prompt',
      'user/hbs-prompt',
      'user/json-prompt',
      'user/yaml-prompt',
      'user/yml-prompt',
    ]);
    const md = library.getSystemPrompt('md-prompt')!;
    expect(md.description).toBe('From Markdown');
    expect(md.params).toEqual([{ name: 'who', default: 'world', description: 'Who' }]);
    expect(md.settings).toEqual({ model: 'm1', temperature: 0.3, maxTokens: 99 });
    expect(library.getUserPrompt('yaml-prompt')!.description).toBe('dataknobs yaml');
    expect(library.getUserPrompt('json-prompt')!.validation).toBe('error');

    const r = await builder.renderSystemPrompt('md-prompt');
    expect(r.content).toBe('Hello world!');
    expect(r.settings).toEqual({ model: 'm1', temperature: 0.3, maxTokens: 99 });
    expect((await builder.renderSystemPrompt('md-prompt', { params: { who: 'Bob' } })).content).toBe('Hello Bob!');
    expect((await builder.renderUserPrompt('hbs-prompt')).content).toBe('Count 3');
    expect((await builder.renderUserPrompt('yaml-prompt')).content).toBe('Hi Ada from yaml');
    expect((await builder.renderUserPrompt('yml-prompt')).content).toBe('Line yml\n');
    const json = await builder.renderUserPrompt('json-prompt', { params: { extra: 1 } });
    expect(json.content).toBe('JSON says hi');
    expect(json.paramsUsed).toEqual({ word: 'hi', extra: 1 });
  });

  it('names prompts by file name without extensions, nests sub-folders, and is fine with missing folders', async () => {
    const { library } = await open({ 'user/review/deep.prompt.md': 'Deep {{x}}' });
    expect(library.getUserPrompt('review/deep')?.path).toBe('user/review/deep.prompt.md');
    expect(library.getSystemPrompt('anything')).toBeUndefined();
    expect(library.diagnostics()).toEqual([]);
  });

  it('opens a folder that does not exist as an empty library', async () => {
    folder = await tempPrompts();
    library = await FileSystemPromptLibrary.open(`${folder.dir}/nope`);
    expect(library.listPrompts()).toEqual([]);
  });

  it('loads messages prompts and named rag configs', async () => {
    const { library, builder } = await open({
      'messages/chat.yaml': 'defaults: {lang: go}\nmessages:\n  - role: system\n    content: "You write {{lang}}"\n  - role: user\n    content: "{{ask}}"\n',
      'rag/docs.yml': 'adapter_name: workspace\nquery: "{{topic}}"\nk: 3\nplaceholder: DOCS\nitem_template: "- {{content}}"\n',
    });
    expect(library.getRagConfig('docs')).toEqual({ adapter: 'workspace', query: '{{topic}}', k: 3, placeholder: 'DOCS', itemTemplate: '- {{content}}' });
    const r = await builder.renderMessagesPrompt('chat', { params: { ask: 'sort a slice' } });
    expect(r.messages).toEqual([
      { role: 'system', content: 'You write go' },
      { role: 'user', content: 'sort a slice' },
    ]);
    expect(r.prompt?.path).toBe('messages/chat.yaml');
  });

  it('prefers .md over .yaml for the same name and warns about the other file', async () => {
    const { library } = await open({ 'user/dup.md': 'from md', 'user/dup.yaml': 'template: from yaml' });
    expect(library.getUserPrompt('dup')?.path).toBe('user/dup.md');
    expect(library.diagnostics()).toEqual([
      expect.objectContaining({ file: 'user/dup.yaml', severity: 'warning', message: expect.stringContaining('user/dup.md') }),
    ]);
  });
});

describe('FileSystemPromptLibrary problems', () => {
  it('reports a YAML front matter error at its file line and keeps the other prompts working', async () => {
    const { library, builder } = await open({
      'user/broken.md': '---\ndescription: ok\nparams: [unclosed\nmore: 1\n---\nbody',
      'user/fine.md': 'Fine {{x}}',
    });
    const [d] = library.diagnostics();
    expect(d.file).toBe('user/broken.md');
    expect(d.severity).toBe('error');
    expect(d.message).toMatch(/^YAML: /);
    // The unclosed list starts on line 3 of the file; the parser notices by line 5 at the latest.
    expect(d.line).toBeGreaterThanOrEqual(3);
    expect(d.line).toBeLessThanOrEqual(5);
    expect(library.getUserPrompt('broken')).toBeUndefined();
    expect((await builder.renderUserPrompt('fine', { params: { x: 1 } })).content).toBe('Fine 1');
    await expect(builder.renderUserPrompt('broken')).rejects.toThrow(/could not be loaded: user\/broken\.md:\d+/);
  });

  it('reports a bad indentation in a YAML file at the exact line', async () => {
    const { library } = await open({ 'user/bad.yaml': 'template: "x"\ndefaults:\n  a: 1\n b: 2\n' });
    const [d] = library.diagnostics();
    expect(d).toMatchObject({ file: 'user/bad.yaml', line: 4, severity: 'error' });
  });

  it('reports an unclosed front matter block', async () => {
    const { library } = await open({ 'user/open.md': '---\ndescription: x\nbody' });
    expect(library.diagnostics()[0]).toMatchObject({ file: 'user/open.md', line: 1, message: expect.stringContaining('never closed') });
  });

  it('gives a Handlebars syntax error the line and column in the file, after the front matter', async () => {
    // Front matter takes lines 1-4, so template line 2 is file line 6; `{{name}` breaks at column 13.
    const { library, builder } = await open({ 'user/syntax.md': '---\nparams:\n  name: {default: x}\n---\nline one\nhello {{name} there\n' });
    expect(library.diagnostics()).toEqual([
      expect.objectContaining({ file: 'user/syntax.md', line: 6, column: 13, severity: 'error', message: expect.stringContaining('syntax error') }),
    ]);
    const err = await builder.renderUserPrompt('syntax').catch((e) => e);
    expect(err).toBeInstanceOf(PromptError);
    expect(err).toMatchObject({ file: 'user/syntax.md', line: 6, column: 13 });
    expect(err.message).toContain('user/syntax.md:6:13');
  });

  it('positions a block mismatch inside a YAML block scalar on the file line', async () => {
    const { library } = await open({ 'user/block.yaml': 'defaults: {}\ntemplate: |\n  first\n  {{#if a}}x{{/each}}\n' });
    expect(library.diagnostics()[0]).toMatchObject({ file: 'user/block.yaml', line: 4, severity: 'error', message: expect.stringContaining("if doesn't match each") });
  });

  it('checks each message of a messages prompt at its own file position', async () => {
    const { library } = await open({
      'messages/m.yaml': 'messages:\n  - role: system\n    content: |\n      ok\n      bad {{x\n  - role: user\n    content: "q {{/if}}"\n',
    });
    expect(library.diagnostics().map((d) => [d.line, d.column])).toEqual([
      [5, 14],
      [7, 17],
    ]);
    expect(library.diagnostics()[0].message).toContain('end of template');
  });

  it('reports unknown helpers and unknown rag config names', async () => {
    const { library } = await open({ 'user/h.md': '---\nrag: [missing-config]\n---\nA\n{{shout name}}' });
    const ds = library.diagnostics();
    expect(ds).toContainEqual(expect.objectContaining({ line: 5, column: 3, message: expect.stringContaining('unknown helper "shout"') }));
    expect(ds).toContainEqual(expect.objectContaining({ message: expect.stringContaining('rag config "missing-config" was not found') }));
  });
});

describe('partials', () => {
  it('includes other prompts by name, from partials/ or the same folder, with their variables', async () => {
    const { builder } = await open({
      'partials/rules.md': 'Rules for {{who}}.',
      'system/base.md': 'Base {{> rules}}',
      'user/ask.md': '---\nparams:\n  who: {default: you}\n---\n{{> system/base}} / {{> "partials/rules"}}',
    });
    expect((await builder.renderUserPrompt('ask')).content).toBe('Base Rules for you. / Rules for you.');
    expect(builder.getRequiredParameters('base', 'system')).toEqual(['who']);
  });

  it('refuses a partial name that reaches outside prompts/', async () => {
    const { library, builder } = await open({ 'user/escape.md': 'A\n  {{> ../secret}}', 'user/escape2.md': '{{> "../../etc/passwd"}}' });
    await fs.writeFile(`${folder!.dir}/../secret.md`, 'SECRET');
    expect(library.diagnostics()).toEqual([
      expect.objectContaining({ file: 'user/escape.md', line: 2, column: 3, message: expect.stringContaining('reaches outside prompts/') }),
      expect.objectContaining({ file: 'user/escape2.md', line: 1, message: expect.stringContaining('reaches outside prompts/') }),
    ]);
    await expect(builder.renderUserPrompt('escape')).rejects.toThrow(/reaches outside prompts\//);
  });

  it('reports an include cycle as an error instead of hanging', async () => {
    const { library, builder } = await open({
      'partials/a.md': 'A {{> b}}',
      'partials/b.md': 'B {{> a}}',
      'user/start.md': 'Start {{> a}}',
      'user/self.md': 'Self {{> self}}',
    });
    const cycles = library.diagnostics().filter((d) => d.message.includes('include cycle'));
    expect(cycles.map((d) => d.file)).toEqual(expect.arrayContaining(['partials/a.md', 'user/self.md']));
    await expect(builder.renderUserPrompt('start')).rejects.toThrow(/include cycle: partials\/a\.md → partials\/b\.md → partials\/a\.md/);
    await expect(builder.renderUserPrompt('self')).rejects.toThrow(/include cycle: user\/self\.md → user\/self\.md/);
  });

  it('reports a missing partial with a fix', async () => {
    const { library } = await open({ 'user/p.md': '{{> nowhere}}' });
    expect(library.diagnostics()[0].message).toContain('partial "nowhere" was not found');
  });
});

describe('watch', () => {
  it('reloads an edited file, fires onDidChange, and renders the new content', async () => {
    const { library, builder } = await open({ 'user/live.md': 'Version one' }, true);
    expect((await builder.renderUserPrompt('live')).content).toBe('Version one');
    const changed = new Promise<string[]>((resolve) => library.onDidChange((e) => resolve(e.paths)));
    await folder!.write('user/live.md', 'Version two, longer');
    expect(await changed).toEqual(['user/live.md']);
    expect((await builder.renderUserPrompt('live')).content).toBe('Version two, longer');
  });

  it('renders the new text of an edited partial when the prompt that includes it did not change', async () => {
    const { library, builder } = await open({ 'partials/sig.md': 'old signature', 'user/mail.md': 'Mail\n{{> sig}}' });
    expect((await builder.renderUserPrompt('mail')).content).toBe('Mail\nold signature');
    await folder!.write('partials/sig.md', 'the new signature');
    expect((await library.reload()).paths).toEqual(['partials/sig.md']);
    expect((await builder.renderUserPrompt('mail')).content).toBe('Mail\nthe new signature');
  });

  it('picks up a new file and a fixed syntax error', async () => {
    const { library, builder } = await open({ 'user/fix.md': 'broken {{x' }, true);
    expect(library.diagnostics()).toHaveLength(1);
    const changed = new Promise<void>((resolve) => {
      const sub = library.onDidChange(() => {
        if (library.getUserPrompt('added') && library.diagnostics().length === 0) {
          sub.dispose();
          resolve();
        }
      });
    });
    await folder!.write('user/fix.md', 'fixed {{x}}');
    await folder!.write('user/added.md', 'new');
    await changed;
    expect((await builder.renderUserPrompt('fix', { params: { x: 1 } })).content).toBe('fixed 1');
  });
});
