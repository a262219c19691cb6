import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceIndex } from '../../core/index';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { searchWorkspaceTool, snippet } from './searchWorkspaceTool';

describe('search_workspace', () => {
  let w: ToolWorkspace;
  let index: WorkspaceIndex;
  beforeEach(async () => {
    w = await makeToolWorkspace();
    index = await WorkspaceIndex.open({ folders: [w.ws], storagePath: path.join(w.root, 'index.bin') });
    await index.update();
  });
  afterEach(async () => {
    await index.dispose();
    await w.dispose();
  });

  const search = (input: Record<string, unknown>) => runTool(searchWorkspaceTool({ ...w.env, searchIndex: (q, k) => index.search(q, k) }), input);

  it('returns the index hits with path, line range, score and text, and none from ignored or secret files', async () => {
    const out = await search({ query: 'needle' });
    expect(out.status).toBe('done');
    const heads = out.content.split('\n').filter((l) => /^\d+\. /.test(l));
    const paths = heads.map((l) => /^\d+\. (.+):\d+-\d+ \(score \d+\.\d\d\)$/.exec(l)?.[1]).sort();
    expect(paths).toEqual(['README.md', 'src/a.ts', 'src/notes.md', 'src/sub/b.ts']);
    expect(out.content.split('\n')[0]).toBe('4 results for "needle", best first:');
    expect(out.content).toContain('src/sub/b.ts:1-2 (score');
    expect(out.content).toContain('console.log(one, "needle");');
    for (const hidden of ['API_KEY', 'BEGIN needle', 'var needle', 'needle in a log', 'module.exports']) expect(out.content).not.toContain(hidden);
  });

  it('takes maxResults, and says when nothing matches', async () => {
    const one = await search({ query: 'needle readme', maxResults: 1 });
    expect(one.content).toMatch(/^1 result for "needle readme", best first:\n\n1\. README\.md:1-3 \(score/);
    const none = await search({ query: 'zebra' });
    expect(none.content).toMatch(/^Nothing in the index matches "zebra"/);
  });

  it('says the index is off when there is none, and what to use instead', async () => {
    const out = await runTool(searchWorkspaceTool(w.env), { query: 'needle' });
    expect(out.status).toBe('failed');
    expect(out.content).toMatch(/index is off here .* use grep or list_files and read_file instead/);
  });
});

describe('snippet', () => {
  it('keeps a short chunk whole and points a long one to the lines left to read', () => {
    expect(snippet('a\nb', 'x.ts', 5, 6)).toBe('a\nb');
    const long = Array.from({ length: 50 }, (_, i) => `l${i + 10}`).join('\n');
    expect(snippet(long, 'x.ts', 10, 59).split('\n').at(-1)).toBe('[… the chunk goes on: read_file x.ts with startLine 40 and endLine 59]');
    const wide = 'x'.repeat(3000);
    expect(snippet(wide, 'y.ts', 7, 7).endsWith('[… the chunk goes on: read_file y.ts with startLine 7 and endLine 7]')).toBe(true);
  });
});
