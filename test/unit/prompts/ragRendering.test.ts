import { describe, expect, it } from 'vitest';
import { PromptError } from '../../../src/core/errors';
import type { PromptBuilderOptions } from '../../../src/core/prompts/promptBuilder';
import { formatRagResults, ragQueryHash } from '../../../src/core/prompts/ragRunner';
import type { RagAdapter, RagResultItem } from '../../../src/core/rag/ragAdapter';
import { usePromptFolders } from './promptFolders';
import { CountingAdapter } from './tempPrompts';

const openPrompts = usePromptFolders();

/** Opens `files` as a prompt folder that must load without a diagnostic, and returns its builder. */
async function setup(files: Record<string, string>, options: PromptBuilderOptions = {}) {
  const { library, builder } = await openPrompts(files, options);
  expect(library.diagnostics()).toEqual([]);
  return builder;
}

const results: RagResultItem[] = [
  { content: 'export function add(a, b) {\n  return a + b;\n}', score: 3.5, path: 'src/math.ts', startLine: 10, endLine: 12 },
  { content: 'has ``` inside', score: 1.25, path: 'docs/notes.md', startLine: 1, endLine: 1 },
];

const reviewPrompt = [
  '---',
  'params:',
  '  topic: {default: adding}',
  'rag:',
  '  - adapter: workspace',
  '    query: "how {{topic}} works"',
  '    k: 2',
  '    placeholder: CODE',
  '    header: "Found for {{topic}}:"',
  '    itemTemplate: "[{{index}}] {{path}}:{{startLine}}-{{endLine}} score={{score}}\\n{{content}}"',
  '---',
  'Question about {{topic}}.',
  '{{CODE}}',
].join('\n');

describe('RAG formatting', () => {
  it('renders the query over the params, searches k results and formats them with header and item template', async () => {
    const workspace = new CountingAdapter(results);
    const b = await setup({ 'user/review.md': reviewPrompt }, { adapters: { workspace } });
    const r = await b.renderUserPrompt('review', { params: { topic: 'adding <numbers>' }, returnRagMetadata: true });
    expect(workspace.calls).toEqual([{ query: 'how adding <numbers> works', k: 2, filters: undefined }]);
    const expected =
      'Found for adding <numbers>:\n' +
      '[1] src/math.ts:10-12 score=3.5\nexport function add(a, b) {\n  return a + b;\n}\n\n' +
      '[2] docs/notes.md:1-1 score=1.25\nhas ``` inside\n';
    expect(r.content).toBe(`Question about adding <numbers>.\n${expected}`);
    const meta = r.ragMetadata!.CODE;
    expect(meta).toMatchObject({
      placeholder: 'CODE',
      adapter: 'workspace',
      query: 'how adding <numbers> works',
      queryHash: ragQueryHash('workspace', 'how adding <numbers> works'),
      k: 2,
      results,
      formattedContent: expected,
    });
    expect(meta.queryHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isNaN(Date.parse(meta.timestamp))).toBe(false);
  });

  it('uses RAG_CONTENT and a default item template with path:lines and a fence longer than any inside', async () => {
    const files = new CountingAdapter(results);
    const b = await setup({ 'user/ask.md': '---\nrag:\n  - adapter: files\n    query: src/math.ts\n---\n{{RAG_CONTENT}}' }, { adapters: { files } });
    const r = await b.renderUserPrompt('ask');
    expect(files.calls[0].k).toBe(5);
    expect(r.content).toBe(
      'src/math.ts:10-12\n```typescript\nexport function add(a, b) {\n  return a + b;\n}\n```\n\n' + 'docs/notes.md:1-1\n````markdown\nhas ``` inside\n````\n',
    );
  });

  it('expands a prompts/rag/ config referenced by name, and dataknobs rag_configs with snake_case fields', async () => {
    const docs = new CountingAdapter([{ content: 'Doc text', score: 1 }]);
    const b = await setup(
      {
        'rag/team-docs.yaml': 'adapter_name: docs\nquery: "{{q}} guide"\nplaceholder: DOCS\nitem_template: "* {{content}}"\nfilters: {kind: guide}\n',
        'user/named.md': '---\nrag: [team-docs]\n---\n{{DOCS}}',
        'user/dk.yaml': 'template: "{{DOCS}}"\nrag_config_refs: [team-docs]\ndefaults: {q: style}\n',
        'user/byRef.md': '---\nrag:\n  - ref: team-docs\n---\n{{DOCS}}',
      },
      { adapters: { docs } },
    );
    expect((await b.renderUserPrompt('named', { params: { q: 'naming' } })).content).toBe('* Doc text\n');
    expect((await b.renderUserPrompt('dk')).content).toBe('* Doc text\n');
    expect((await b.renderUserPrompt('byRef', { params: { q: 'ref' } })).content).toBe('* Doc text\n');
    expect(docs.calls).toEqual([
      { query: 'naming guide', k: 5, filters: { kind: 'guide' } },
      { query: 'style guide', k: 5, filters: { kind: 'guide' } },
      { query: 'ref guide', k: 5, filters: { kind: 'guide' } },
    ]);
  });

  it('expands a rag/ file that lists several configs', async () => {
    const kb = new CountingAdapter([{ content: 'K', score: 1 }]);
    const b = await setup(
      {
        'rag/both.yaml': 'configs:\n  - {adapter: kb, query: one, placeholder: ONE, itemTemplate: "1{{content}}"}\n  - {adapter: kb, query: two, placeholder: TWO, itemTemplate: "2{{content}}"}\n',
        'user/u.md': '---\nrag: [both]\n---\n{{ONE}}{{TWO}}',
      },
      { adapters: { kb } },
    );
    expect((await b.renderUserPrompt('u')).content).toBe('1K\n2K\n');
    expect(kb.calls.map((c) => c.query).sort()).toEqual(['one', 'two']);
  });

  it('runs inline ragConfigs, and leaves placeholders empty with includeRag: false', async () => {
    const kb = new CountingAdapter([{ content: 'Be brief.', score: 1 }]);
    const b = await setup({}, { adapters: { kb } });
    const ragConfigs = [{ adapter: 'kb', query: 'guidelines', placeholder: 'G', header: '', itemTemplate: '- {{content}}' }];
    expect((await b.renderInlineSystemPrompt('Rules:\n{{G}}', { ragConfigs })).content).toBe('Rules:\n- Be brief.\n');
    const off = await b.renderInlineSystemPrompt('Rules:\n{{G}}', { ragConfigs, includeRag: false });
    expect(off.content).toBe('Rules:\n');
    expect(off.validationWarnings).toEqual([]);
    expect(kb.calls).toHaveLength(1);
  });
});

describe('RAG execution', () => {
  it('runs all configs of a prompt at the same time', async () => {
    // Each adapter waits until the other has started: run one after the other, the first would time out.
    let startA!: () => void;
    let startB!: () => void;
    const aStarted = new Promise<void>((r) => (startA = r));
    const bStarted = new Promise<void>((r) => (startB = r));
    const waitFor = (p: Promise<void>) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the other search never started')), 5000))]);
    const adapterA: RagAdapter = { search: async () => (startA(), await waitFor(bStarted), [{ content: 'from A', score: 1 }]) };
    const adapterB: RagAdapter = { search: async () => (startB(), await waitFor(aStarted), [{ content: 'from B', score: 1 }]) };
    const b = await setup(
      { 'user/two.md': '---\nrag:\n  - {adapter: a, query: x, placeholder: A, itemTemplate: "{{content}}"}\n  - {adapter: b, query: y, placeholder: B, itemTemplate: "{{content}}"}\n---\n{{A}}|{{B}}' },
      { adapters: { a: adapterA, b: adapterB } },
    );
    const r = await b.renderUserPrompt('two');
    expect(r.validationWarnings).toEqual([]);
    expect(r.content).toBe('from A\n|from B\n');
  });

  it('lets delayed adapters overlap (both active at once)', async () => {
    let active = 0;
    let maxActive = 0;
    const slow = (label: string): RagAdapter => ({
      async search() {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setTimeout(r, 30));
        active--;
        return [{ content: label, score: 1 }];
      },
    });
    const b = await setup({}, { adapters: { one: slow('1'), two: slow('2') } });
    await b.renderInlineUserPrompt('{{P1}}{{P2}}', {
      ragConfigs: [
        { adapter: 'one', query: 'q', placeholder: 'P1' },
        { adapter: 'two', query: 'q', placeholder: 'P2' },
      ],
    });
    expect(maxActive).toBe(2);
  });

  it('leaves the placeholder of a failing or unknown adapter empty with a warning', async () => {
    const broken = new CountingAdapter([], 0, 'index is not built yet');
    const good = new CountingAdapter([{ content: 'ok', score: 1 }]);
    const b = await setup(
      {
        'user/mixed.md':
          '---\nrag:\n  - {adapter: broken, query: q, placeholder: X}\n  - {adapter: nowhere, query: q, placeholder: Y}\n  - {adapter: good, query: q, placeholder: Z, itemTemplate: "{{content}}"}\n---\n[{{X}}][{{Y}}][{{Z}}]',
      },
      { adapters: { broken, good } },
    );
    const r = await b.renderUserPrompt('mixed', { returnRagMetadata: true });
    expect(r.content).toBe('[][][ok\n]');
    expect(r.validationWarnings).toEqual([
      expect.stringContaining('adapter "broken" failed: index is not built yet'),
      expect.stringContaining('no adapter named "nowhere" is registered (known: broken, good)'),
    ]);
    expect(Object.keys(r.ragMetadata!)).toEqual(['Z']);
  });

  it('throws instead when told to raise on RAG errors', async () => {
    const broken = new CountingAdapter([], 0, 'connection refused');
    const b = await setup({ 'user/r.md': '---\nrag:\n  - {adapter: broken, query: q}\n---\n{{RAG_CONTENT}}' }, { adapters: { broken }, raiseOnRagError: true });
    const err = await b.renderUserPrompt('r').catch((e) => e);
    expect(err).toBeInstanceOf(PromptError);
    expect(err.message).toContain('connection refused');
  });

  it('reuses cached metadata on a branch: the adapter is searched once, not twice', async () => {
    const workspace = new CountingAdapter(results);
    const b = await setup({ 'user/review.md': reviewPrompt }, { adapters: { workspace } });
    const first = await b.renderUserPrompt('review', { params: { topic: 'sums' }, returnRagMetadata: true });
    const cachedRag = Object.values(first.ragMetadata!);
    const second = await b.renderUserPrompt('review', { params: { topic: 'sums' }, returnRagMetadata: true, cachedRag });
    expect(workspace.calls).toHaveLength(1);
    expect(second.content).toBe(first.content);
    expect(second.ragMetadata!.CODE).toEqual(first.ragMetadata!.CODE);
    // A different query misses the cache and searches.
    await b.renderUserPrompt('review', { params: { topic: 'products' }, cachedRag });
    expect(workspace.calls.map((c) => c.query)).toEqual(['how sums works', 'how products works']);
  });

  it('does not reuse cached metadata stored under another placeholder', async () => {
    const workspace = new CountingAdapter(results);
    const b = await setup({ 'user/review.md': reviewPrompt }, { adapters: { workspace } });
    const first = await b.renderUserPrompt('review', { params: { topic: 'sums' }, returnRagMetadata: true });
    const moved = { ...first.ragMetadata!.CODE, placeholder: 'OTHER' };
    await b.renderUserPrompt('review', { params: { topic: 'sums' }, cachedRag: [moved] });
    expect(workspace.calls).toHaveLength(2);
  });
});

describe('formatting retrieved chunks', () => {
  it('fences a chunk holding 200,000 backtick runs longer than its longest run, without overflowing the stack', () => {
    const content = '`a'.repeat(200_000) + '````';
    const text = formatRagResults({ adapter: 'files', query: 'q' }, [{ content, score: 1, path: 'src/a.ts' }]);
    expect(text.startsWith('src/a.ts\n`````typescript\n')).toBe(true);
    expect(text.endsWith('\n`````\n')).toBe(true);
  });
});
