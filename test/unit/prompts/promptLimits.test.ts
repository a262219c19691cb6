import { describe, expect, it } from 'vitest';
import { PromptLimitError } from '../../../src/core/errors';
import { checkPromptFolder } from '../../../src/core/promptFolder/checkPrompts';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import { usePromptFolders } from './promptFolders';
import { CountingAdapter, tempPrompts } from './tempPrompts';

const open = usePromptFolders();

/** `levels` partials, each including the next one `times` times; the last one is plain text. */
function partialBomb(levels: number, times: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < levels; i++) {
    files[`partials/p${i}.md`] = i === levels - 1 ? 'boom' : `{{> p${i + 1}}}`.repeat(times);
  }
  return files;
}

/** Asserts `promise` rejects with a `PromptLimitError` for `limit`, and returns the error. */
async function limitError(promise: Promise<unknown>, limit: string): Promise<PromptLimitError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PromptLimitError);
  expect((err as PromptLimitError).limit).toBe(limit);
  return err as PromptLimitError;
}

describe('prompt limits: includes', () => {
  it('refuses a 30-level partial expansion bomb at load, with a diagnostic and a typed error', async () => {
    const { library, builder } = await open({ ...partialBomb(30, 3), 'user/bomb.md': 'Start\n\n{{> p0}}' });
    const d = library.diagnostics().find((x) => x.file === 'user/bomb.md');
    expect(d).toMatchObject({ line: 3, column: 1, severity: 'error' });
    expect(d!.message).toMatch(/maxPartial(Depth|Expansions)/);
    const err = await builder.renderUserPrompt('bomb').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PromptLimitError);
    expect((err as PromptLimitError).file).toBe('user/bomb.md');
  });

  it('counts every inclusion: 4^12 expansions stay under the depth limit but pass maxPartialExpansions', async () => {
    const { library, builder } = await open({ ...partialBomb(12, 4), 'user/bomb.md': 'Start {{> p0}}' });
    const d = library.diagnostics().find((x) => x.file === 'user/bomb.md');
    expect(d).toMatchObject({ line: 1, column: 7, severity: 'error' });
    expect(d!.message).toContain('maxPartialExpansions = 1000');
    const err = await limitError(builder.renderUserPrompt('bomb'), 'maxPartialExpansions');
    expect(err.value).toBe(1000);
    expect(err.message).toMatch(/include fewer partials/);
  });

  it('refuses includes nested deeper than maxPartialDepth, and the limit is an option', async () => {
    const chain = partialBomb(25, 1);
    const { library, builder } = await open({ ...chain, 'user/deep.md': '{{> p0}}', 'user/ok.md': '{{> p20}}' });
    expect(library.diagnostics().find((x) => x.file === 'user/deep.md')?.message).toContain('maxPartialDepth = 20');
    await limitError(builder.renderUserPrompt('deep'), 'maxPartialDepth');
    expect((await builder.renderUserPrompt('ok')).content).toBe('boom');

    const folder = await tempPrompts({ ...partialBomb(4, 1), 'user/ok.md': '{{> p0}}' });
    const strict = await FileSystemPromptLibrary.open(folder.dir, { limits: { maxPartialDepth: 2 } });
    try {
      expect(strict.diagnostics().find((x) => x.file === 'user/ok.md')?.message).toContain('maxPartialDepth = 2');
    } finally {
      strict.dispose();
      await folder.remove();
    }
  });
});

describe('prompt limits: template text', () => {
  it('refuses a template over maxTemplateBytes without parsing it', async () => {
    const big = 'x {{a}} '.repeat(650_000); // 5.2 MB, 650,000 expressions
    const { library, builder } = await open({ 'user/big.md': big, 'user/fine.md': 'fine' });
    const d = library.diagnostics().find((x) => x.file === 'user/big.md');
    expect(d).toMatchObject({ line: 1, column: 1, severity: 'error' });
    expect(d!.message).toContain('maxTemplateBytes = 1048576');
    const err = await limitError(builder.renderUserPrompt('big'), 'maxTemplateBytes');
    expect(err.file).toBe('user/big.md');
    expect((await builder.renderUserPrompt('fine')).content).toBe('fine');
  });

  it('refuses a template with more than maxExpressions expressions at the first one over', async () => {
    const body = '---\ndescription: many\n---\n' + '{{a}}\n'.repeat(6000);
    const { library, builder } = await open({ 'user/many.md': body });
    const d = library.diagnostics().find((x) => x.file === 'user/many.md');
    expect(d).toMatchObject({ line: 4 + 5000, column: 1, severity: 'error' });
    expect(d!.message).toContain('maxExpressions = 5000');
    await limitError(builder.renderUserPrompt('many'), 'maxExpressions');
  });

  it('refuses 10,000 nested {{#if}} and blocks nested deeper than maxNestingDepth', async () => {
    const nested = (n: number) => '{{#if x}}\n'.repeat(n) + 'deep\n' + '{{/if}}\n'.repeat(n);
    const { library, builder } = await open({ 'user/huge.md': nested(10_000), 'user/deep.md': nested(150), 'user/ok.md': nested(50) });
    expect(library.diagnostics().find((x) => x.file === 'user/huge.md')?.message).toMatch(/maxExpressions|maxNestingDepth/);
    const d = library.diagnostics().find((x) => x.file === 'user/deep.md');
    expect(d).toMatchObject({ line: 101, column: 1, severity: 'error' });
    expect(d!.message).toContain('maxNestingDepth = 100');
    await limitError(builder.renderUserPrompt('deep'), 'maxNestingDepth');
    expect((await builder.renderUserPrompt('ok', { params: { x: true } })).content).toContain('deep');
  });
});

describe('prompt limits: rendering', () => {
  const eachBomb = (depth: number) =>
    '---\nparams:\n  l: {default: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}\n---\nHead\n' +
    '{{#each @root.l}}'.repeat(depth - 1) +
    '\n{{#each @root.l}}0123456789012345678901234567890123456789{{/each}}' +
    '{{/each}}'.repeat(depth - 1);

  it('stops a nested {{#each}} bomb while it renders, at maxOutputChars, and the library keeps working', async () => {
    const { builder } = await open({ 'user/each.md': eachBomb(9), 'user/fine.md': 'fine' });
    const err = await limitError(builder.renderUserPrompt('each'), 'maxOutputChars');
    expect(err.value).toBe(8_000_000);
    expect(err.file).toBe('user/each.md');
    expect(err.line).toBe(7);
    expect((await builder.renderUserPrompt('fine')).content).toBe('fine');
  });

  it('stops a render that passes maxRenderMs, set through the builder options', async () => {
    const { library } = await open({ 'user/slow.md': eachBomb(6).replace(/0123456789012345678901234567890123456789/, '') });
    const builder = new PromptBuilder(library, { limits: { maxRenderMs: 1 } });
    const err = await limitError(builder.renderUserPrompt('slow'), 'maxRenderMs');
    expect(err.message).toContain('maxRenderMs = 1');
  });

  it('counts the indentation Handlebars adds to each line of an indented partial', async () => {
    const lines = '{{#each @root.l}}{{#each @root.l}}{{#each @root.l}}{{#each @root.l}}x\n{{/each}}{{/each}}{{/each}}{{/each}}';
    const { builder } = await open({
      'partials/lines.md': lines,
      'user/indent.md': '---\nparams:\n  l: {default: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}\n---\n' + ' '.repeat(1000) + '{{> lines}}\n',
    });
    await limitError(builder.renderUserPrompt('indent'), 'maxOutputChars');
  });

  it('holds retrieval headers and item templates to the same limits', async () => {
    const header = '{{#each l}}' + '{{#each @root.l}}'.repeat(7) + '0123456789'.repeat(10) + '{{/each}}'.repeat(8);
    const { library } = await open({
      'rag/bomb.yaml': `adapter: docs\nquery: "q"\nheader: "${header}"\n`,
      'user/ask.md': '---\nparams:\n  l: {default: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}\nrag: [bomb]\n---\n{{RAG_CONTENT}}',
    });
    const builder = new PromptBuilder(library, { adapters: { docs: new CountingAdapter([{ content: 'c', score: 1 }]) } });
    await limitError(builder.renderUserPrompt('ask'), 'maxOutputChars');
  });

  it('arbor-prompts check reports each bomb at its line and exits 1', async () => {
    const folder = await tempPrompts({ ...partialBomb(30, 3), 'user/bomb.md': '{{> p0}}', 'user/each.md': eachBomb(9), 'user/fine.md': 'fine' });
    try {
      const report = await checkPromptFolder(folder.dir);
      expect(report.problems.find((p) => p.file === 'user/each.md')).toMatchObject({ line: 7, severity: 'error' });
      const out: string[] = [];
      const code = await runPromptsCli(['check', folder.dir], { out: (l) => out.push(l), err: (l) => out.push(l) });
      expect(code).toBe(1);
      expect(out).toContainEqual(expect.stringMatching(/user\/bomb\.md:1:1: error: .*maxPartial/));
      expect(out).toContainEqual(expect.stringMatching(/user\/each\.md:7:\d+: error: .*maxOutputChars = 8000000/));
    } finally {
      await folder.remove();
    }
  });
});
