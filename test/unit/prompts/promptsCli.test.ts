import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { tempPrompts, type TempPrompts } from './tempPrompts';

const repo = path.resolve(__dirname, '../../..');
let folder: TempPrompts | undefined;
afterEach(async () => {
  await folder?.remove();
  folder = undefined;
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPromptsCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('arbor-prompts check', () => {
  it("passes on the repository's sample prompts", async () => {
    const r = await run(['check', path.join(repo, 'prompts')]);
    expect(r.err).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toMatch(/^arbor-prompts: \d+ prompts( and \d+ flows?)? checked in .*prompts, 0 errors, 0 warnings$/);
  });

  it('prints each problem as path:line:col: severity: message and exits 1 on errors', async () => {
    folder = await tempPrompts({
      'user/good.md': 'Fine {{x}}',
      'user/syntax.md': '---\ndescription: d\n---\nhello {{name}',
      'user/yaml.yaml': 'template: x\ndefaults:\n  a: 1\n b: 2\n',
      'user/dup.yaml': 'template: x',
      'user/dup.md': 'x',
      'user/helper.md': '{{#each}}x{{/each}}',
    });
    const r = await run(['check', folder.dir]);
    expect(r.code).toBe(1);
    const rel = (p: string) => path.join(folder!.dir, p);
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${rel('user/syntax.md')}:4:13: error: template syntax error`)));
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${rel('user/yaml.yaml')}:4:\\d+: error: YAML: `)));
    expect(r.out).toContainEqual(`${rel('user/dup.yaml')}:1:1: warning: ignored: user/dup.md has the same prompt name "dup"`);
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${rel('user/helper.md')}:1:1: error: .*#each`)));
    expect(r.err).toEqual([expect.stringMatching(/4 prompts checked .*, 3 errors, 1 warning$/)]);
  });

  it('exits 0 with warnings only, and 2 on a usage mistake', async () => {
    folder = await tempPrompts({ 'user/a.md': 'A', 'user/a.json': '{"template": "B"}' });
    expect((await run(['check', folder.dir])).code).toBe(0);
    expect((await run(['lint'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
  });

  it('fails on a folder that does not exist', async () => {
    const r = await run(['check', '/definitely/not/here']);
    expect(r.code).toBe(1);
    expect(r.out[0]).toContain('is not a folder of prompts');
  });

  it('works through npx in this repository, with exit status 1 on a bad folder', async () => {
    folder = await tempPrompts({ 'system/bad.md': '{{#if x}}open' });
    const ok = spawnSync('npx', ['--no-install', 'arbor-prompts', 'check', 'prompts'], { cwd: repo, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('0 errors');
    const bad = spawnSync('npx', ['--no-install', 'arbor-prompts', 'check', folder.dir], { cwd: repo, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain(`${path.join(folder.dir, 'system/bad.md')}:1:`);
  });
});
