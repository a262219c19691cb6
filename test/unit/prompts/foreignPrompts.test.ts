import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitBlobId, sha256Hex } from '../../../src/core/hashes';
import type { ForeignPrompt } from '../../../src/core/prompts/foreign/foreignTypes';
import { loadForeignPrompts } from '../../../src/core/prompts/foreign/loadForeignPrompts';
import { renderForeignPrompt } from '../../../src/core/prompts/foreign/renderForeignPrompt';

let root: string | undefined;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = undefined;
});

/** A workspace folder in a temp dir holding `files`. */
async function workspace(files: Record<string, string>): Promise<string> {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-foreign-'));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, content);
  }
  return root;
}

function byName(prompts: ForeignPrompt[], name: string): ForeignPrompt {
  const p = prompts.find((x) => x.name === name);
  if (!p) throw new Error(`no prompt ${name} among ${prompts.map((x) => x.name).join(', ')}`);
  return p;
}

const COPILOT = `---
description: Explain a topic with the selection
model: gpt-4o-mini
tools: ['codebase', 'readFile']
argument-hint: what to explain
---
Explain \${input:topic:the subject} to me.

Code from \${fileBasename} in \${workspaceFolderBasename}:
\${selection}

See #file:src/a.ts, and [the guide](../../docs/guide.md#intro) and [site](https://example.com) ![pic](img.png).
`;

describe('Copilot prompt files', () => {
  it('reads front matter, fields, editor variables and file references, and records the version', async () => {
    const dir = await workspace({
      '.github/prompts/explain.prompt.md': COPILOT,
      'src/a.ts': 'export const a = 1;\n',
      'docs/guide.md': '# Guide\n',
    });
    const set = await loadForeignPrompts(dir);
    expect(set.diagnostics).toEqual([]);
    const p = byName(set.prompts, 'explain');
    expect(p).toMatchObject({ source: 'copilot', label: 'Copilot', path: '.github/prompts/explain.prompt.md', description: 'Explain a topic with the selection', model: 'gpt-4o-mini', tools: ['codebase', 'readFile'] });
    expect(p.params).toEqual([{ name: 'topic', required: true, description: 'the subject' }]);
    expect(p.attachments.map((a) => a.path)).toEqual(['src/a.ts', 'docs/guide.md']);
    expect(p.attachments[0]).toMatchObject({ written: '#file:src/a.ts', line: 12, column: 5 });
    const bytes = await fs.readFile(path.join(dir, '.github/prompts/explain.prompt.md'));
    expect(p.gitBlobId).toBe(gitBlobId(bytes));
    expect(p.sha256).toBe(sha256Hex(bytes));

    const r = renderForeignPrompt(p, {
      values: { topic: 'closures' },
      typed: 'Keep it short.',
      editor: { selection: 'const f = () => x;', filePath: '/w/proj/src/b.ts', workspaceFolder: '/w/proj' },
    });
    expect(r.missing).toEqual([]);
    expect(r.text).toContain('Explain closures to me.');
    expect(r.text).toContain('Code from b.ts in proj:\nconst f = () => x;');
    expect(r.text.endsWith('\n\nKeep it short.')).toBe(true);
    expect(renderForeignPrompt(p, { values: {}, typed: '', editor: {} }).missing).toEqual(['topic']);
  });

  it('reports unknown variables, broken references, references leaving the workspace and bad front matter at their lines', async () => {
    const dir = await workspace({
      '.github/prompts/bad.prompt.md': '---\ndescription: [1, 2]\ntools: codebase\nmodel: gpt\n---\nUse ${selction} and #file:src/missing.ts\nand [up](../../../etc/passwd) and [folder](../../src)\n',
      '.github/prompts/yaml.prompt.md': '---\ndescription: a\n  b: c\n---\nx\n',
      'src/here.ts': '',
    });
    const { diagnostics } = await loadForeignPrompts(dir);
    const at = (file: string) => diagnostics.filter((d) => d.file === `.github/prompts/${file}`).map((d) => `${d.line}:${d.column}: ${d.severity}: ${d.message}`);
    expect(at('bad.prompt.md')).toEqual([
      expect.stringMatching(/^2:14: error: `description` must be text, not a list$/),
      expect.stringMatching(/^3:8: error: `tools` must be a list of names, not string "codebase"$/),
      expect.stringMatching(/^6:5: warning: unknown variable \$\{selction\}/),
      expect.stringMatching(/^7:5: error: \.\.\/\.\.\/\.\.\/etc\/passwd leaves the workspace/),
      expect.stringMatching(/^6:21: error: #file:src\/missing\.ts: src\/missing\.ts does not exist in the workspace$/),
      expect.stringMatching(/^7:35: error: \.\.\/\.\.\/src is a folder: refer to a file$/),
    ]);
    expect(at('yaml.prompt.md')).toContainEqual(expect.stringMatching(/^2:14: error: YAML: /));
  });
});

describe('Claude Code commands', () => {
  it('turns $ARGUMENTS and $1, $2 into fields named by the argument hint, reads allowed-tools and namespaces subfolders', async () => {
    const dir = await workspace({
      '.claude/commands/fix-issue.md': '---\nargument-hint: [issue] [priority]\nallowed-tools: Bash(git add:*, git status:*), Read\nmodel: claude-3-5-haiku\ndescription: Fix an issue\n---\nFix issue #$1 with priority $2. Details: $ARGUMENTS\nSee @docs/guide.md, ask @someone. !`git status`\n',
      '.claude/commands/frontend/component.md': 'Make a component called $ARGUMENTS.\n',
      'docs/guide.md': 'g',
    });
    const set = await loadForeignPrompts(dir);
    expect(set.diagnostics).toEqual([expect.objectContaining({ file: '.claude/commands/fix-issue.md', line: 8, severity: 'warning', message: expect.stringContaining('does not run shell commands') })]);
    const p = byName(set.prompts, 'fix-issue');
    expect(p.tools).toEqual(['Bash(git add:*, git status:*)', 'Read']);
    expect(p.model).toBe('claude-3-5-haiku');
    expect(p.params.map((q) => q.name)).toEqual(['issue', 'priority', 'arguments']);
    expect(p.attachments.map((a) => a.path)).toEqual(['docs/guide.md']);
    const filled = renderForeignPrompt(p, { values: { issue: '42', priority: 'high' }, typed: '', editor: {} });
    expect(filled.text.split('\n')[0]).toBe('Fix issue #42 with priority high. Details: 42 high');
    const typed = renderForeignPrompt(p, { values: { issue: '7' }, typed: 'the login page', editor: {} });
    expect(typed.text.split('\n')[0]).toBe('Fix issue #7 with priority . Details: the login page');
    expect(typed.text).not.toMatch(/the login page$/);
    const nested = byName(set.prompts, 'frontend:component');
    expect(renderForeignPrompt(nested, { values: {}, typed: 'Button', editor: {} }).text).toBe('Make a component called Button.');
  });
});

describe('Continue prompt files', () => {
  it('reads the preamble (both forms), the <system> block, {{{ input }}}, {{{ currentFile }}}, files in place and @ references', async () => {
    const dir = await workspace({
      '.continue/prompts/tests.prompt': '---\nname: Write Tests\ndescription: Tests for the selection\ntemperature: 0.2\n---\n<system>\nYou are a tester.\n</system>\n{{{ input }}}\n\nFile:\n{{{ currentFile }}}\nStyle: {{{ docs/style.md }}}\nSee @docs/guide.md and @terminal\n',
      '.continue/prompts/old.prompt': 'description: Old style\n---\nSay {{ input }}\n',
      'docs/style.md': 'Use vitest.',
      'docs/guide.md': 'guide',
    });
    const set = await loadForeignPrompts(dir);
    expect(set.diagnostics).toEqual([expect.objectContaining({ file: '.continue/prompts/tests.prompt', line: 14, severity: 'warning', message: expect.stringContaining('"terminal"') })]);
    const p = byName(set.prompts, 'Write-Tests');
    expect(p).toMatchObject({ system: 'You are a tester.', typedParam: 'input', description: 'Tests for the selection' });
    expect(p.inlineFiles.map((f) => f.path)).toEqual(['docs/style.md']);
    expect(p.attachments.map((f) => f.path)).toEqual(['docs/guide.md']);
    const r = renderForeignPrompt(p, { values: {}, typed: 'cover the edge cases', editor: { fileText: 'export const x = 1;' }, fileTexts: { 'docs/style.md': 'Use vitest.' } });
    expect(r.text).toBe('cover the edge cases\n\nFile:\nexport const x = 1;\nStyle: Use vitest.\nSee @docs/guide.md and @terminal');
    const old = byName(set.prompts, 'old');
    expect(old.description).toBe('Old style');
    expect(renderForeignPrompt(old, { values: { input: 'hi' }, typed: '', editor: {} }).text).toBe('Say hi');
  });

  it('reports wrong types, an unclosed <system> and unknown variables', async () => {
    const dir = await workspace({ '.continue/prompts/x.prompt': '---\ntemperature: hot\nversion: 3\n---\n<system>open\n{{{ nothing }}}\n' });
    const { diagnostics } = await loadForeignPrompts(dir);
    expect(diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      expect.stringMatching(/^2:14: `temperature` must be a number/),
      expect.stringMatching(/^3:10: `version` must be 1 or 2/),
      expect.stringMatching(/^5:1: <system> is never closed/),
      expect.stringMatching(/^6:1: unknown variable \{\{\{ nothing \}\}\}/),
    ]);
  });
});

describe('names and safety', () => {
  it('gives a name taken by a workspace prompt or another tool the source as prefix', async () => {
    const dir = await workspace({
      '.github/prompts/review.prompt.md': 'Copilot review',
      '.claude/commands/review.md': 'Claude review',
      '.continue/prompts/review.prompt': 'Continue review',
    });
    const set = await loadForeignPrompts(dir, { reservedNames: new Set(['review']) });
    expect(set.prompts.map((p) => p.name)).toEqual(['copilot:review', 'continue:review', 'claude:review']);
  });

  it('skips a prompt file that links outside the workspace, and an empty workspace has none', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-outside-'));
    try {
      await fs.writeFile(path.join(outside, 'secret.md'), 'secret $ARGUMENTS');
      const dir = await workspace({ '.claude/commands/ok.md': 'ok' });
      await fs.symlink(path.join(outside, 'secret.md'), path.join(dir, '.claude/commands/leak.md'));
      const set = await loadForeignPrompts(dir);
      expect(set.prompts.map((p) => p.name)).toEqual(['ok']);
      expect(set.diagnostics).toEqual([expect.objectContaining({ file: '.claude/commands/leak.md', severity: 'error', message: expect.stringContaining('links outside the workspace') })]);
      expect(await loadForeignPrompts(outside)).toEqual({ prompts: [], diagnostics: [] });
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });
});
