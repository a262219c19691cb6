import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { filterAllowedTools } from '../../../src/core/prompts/foreign/toolAllowList';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

async function workspace(files: Record<string, string>): Promise<string> {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-foreign-cli-'));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
  return root;
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPromptsCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('arbor-prompts check with other tools\' prompt files', () => {
  it('reports their problems as path:line:col beside the prompts folder, and exits 1 on an error', async () => {
    const dir = await workspace({
      'prompts/user/ok.md': 'Fine {{x}}',
      '.github/prompts/a.prompt.md': '---\nmodel: 4\n---\nSee #file:nope.ts\n',
      '.claude/commands/b.md': 'Run $ARGUMENTS',
    });
    const r = await run(['check', path.join(dir, 'prompts'), '--root', dir]);
    expect(r.code).toBe(1);
    expect(r.out).toEqual([
      `${path.join(dir, '.github/prompts/a.prompt.md')}:2:8: error: \`model\` must be text, not number 4`,
      `${path.join(dir, '.github/prompts/a.prompt.md')}:4:5: error: #file:nope.ts: nope.ts does not exist in the workspace`,
    ]);
    expect(r.err).toEqual([expect.stringMatching(/1 prompt checked in .*prompts and 2 prompt files of other tools, 2 errors, 0 warnings$/)]);
  });

  it('passes a workspace with only other tools\' prompt files and no prompts folder', async () => {
    const dir = await workspace({ '.continue/prompts/t.prompt': 'name: t\n---\n{{{ input }}}\n' });
    const r = await run(['check', `--root=${dir}`]);
    expect(r.out).toEqual([expect.stringMatching(/^arbor-prompts: 0 prompts checked in .*prompts and 1 prompt file of other tools, 0 errors, 0 warnings$/)]);
    expect(r.code).toBe(0);
    expect((await run(['check', '--root'])).code).toBe(2);
    expect((await run(['check', 'a', 'b'])).code).toBe(2);
  });
});

describe('tool allow-lists of foreign prompts', () => {
  const offered = [
    { name: 'read_file', displayName: 'read_file' },
    { name: 'edit_file', displayName: 'edit_file' },
    { name: 'run_command', displayName: 'run_command' },
    { name: 'search_workspace', displayName: 'search_workspace' },
    { name: 'gh_issues', displayName: 'github › issues', server: 'github' },
    { name: 'db_query', displayName: 'db › query', server: 'db' },
  ];
  const names = (allowed: string[]) => filterAllowedTools(offered, allowed).map((t) => t.name);

  it("maps Claude Code's and Copilot's tool names onto Arbor's tools and MCP tools", () => {
    expect(names(['Read', 'Bash(git add:*, git status:*)'])).toEqual(['read_file', 'run_command']);
    expect(names(['codebase', 'editFiles'])).toEqual(['edit_file', 'search_workspace']);
    expect(names(['mcp__github__issues', 'db/*'])).toEqual(['gh_issues', 'db_query']);
    expect(names(['read_file'])).toEqual(['read_file']);
    expect(names([])).toEqual([]);
    expect(names(['WebFetch'])).toEqual([]);
  });
});
