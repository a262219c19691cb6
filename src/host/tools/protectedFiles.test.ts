import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { DEFAULT_PROTECTED_FILES, ProtectedFiles } from './protectedFiles';
import { checkWriteTarget, writeVerdict } from './writeAccess';

const VSCODE = 'VS Code settings and tasks decide what runs';

describe('ProtectedFiles', () => {
  const defaults = new ProtectedFiles();

  it('protects by default what decides what runs or what models are told, at any depth where that makes sense', () => {
    const protectedPaths = [
      '.vscode/settings.json', '.vscode/tasks.json', 'packages/app/.vscode/launch.json', 'arbor.code-workspace', '.devcontainer/devcontainer.json',
      '.github/workflows/ci.yml', '.gitlab-ci.yml', '.husky/pre-commit', '.githooks/pre-push',
      'package.json', 'packages/app/package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lockb', 'Cargo.lock',
      'Cargo.toml', 'crates/x/Cargo.toml', 'build.gradle', 'app/build.gradle.kts', 'settings.gradle', 'pom.xml', 'Makefile', 'src/App/App.csproj',
      'AGENTS.md', 'docs/AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', '.github/instructions/ts.instructions.md', '.cursor/rules/style.mdc',
      '.continue/rules/a.md', '.claude/settings.json', 'prompts/user/review.md', 'prompts/flows/triage.yaml',
    ];
    for (const p of protectedPaths) expect(defaults.reasonFor(p), p).toBeDefined();
    const ordinary = ['src/a.ts', 'README.md', 'docs/package.md', 'src/prompts/chat.ts', '.github/ISSUE_TEMPLATE/bug.md', 'vscode/settings.json', 'Makefile.md', 'src/package.ts'];
    for (const p of ordinary) expect(defaults.reasonFor(p), p).toBeUndefined();
    expect(defaults.reasonFor('.vscode/settings.json')).toBe(VSCODE);
    expect(defaults.reasonFor('package.json')).toBe('its scripts run on npm install, npm test and npm run');
    expect(defaults.reasonFor('AGENTS.md')).toBe('instruction files decide what agents and models are told');
  });

  it('reads the path as macOS and Windows open it: case, trailing dots and spaces, alternate streams', () => {
    for (const p of ['.VSCode/settings.json', '.vscode./settings.json', '.vscode /settings.json', '.vscode::$INDEX_ALLOCATION/settings.json', 'PACKAGE.JSON', 'package.json.', 'package.json::$DATA', '.GitHub/Workflows/ci.yml', 'agents.md']) {
      expect(defaults.reasonFor(p), p).toBeDefined();
    }
  });

  it('follows the setting: the user narrows or widens the list, and the prompts entry follows arbor.prompts.folder', () => {
    const narrowed = new ProtectedFiles({ globs: DEFAULT_PROTECTED_FILES.filter((g) => g !== 'package.json') });
    expect(narrowed.reasonFor('package.json')).toBeUndefined();
    expect(narrowed.reasonFor('.vscode/settings.json')).toBe(VSCODE);
    const widened = new ProtectedFiles({ globs: [...DEFAULT_PROTECTED_FILES, 'scripts/**', '*.sh'] });
    expect(widened.reasonFor('scripts/release.js')).toBe('it matches "scripts/**" in arbor.tools.protectedFiles');
    expect(widened.reasonFor('tools/deploy.SH')).toBe('it matches "*.sh" in arbor.tools.protectedFiles');
    expect(widened.reasonFor('src/scripts/x.js')).toBeUndefined();
    const moved = new ProtectedFiles({ globs: DEFAULT_PROTECTED_FILES, promptsFolder: 'ai/prompts' });
    expect(moved.reasonFor('ai/prompts/flows/triage.yaml')).toBe('the prompt library decides what models are told and which flows run');
    expect(moved.reasonFor('prompts/user/x.md')).toBeDefined();
    expect(new ProtectedFiles({ globs: ['package.json'], promptsFolder: 'ai/prompts' }).reasonFor('ai/prompts/x.md')).toBeUndefined();
    expect(new ProtectedFiles({ globs: [] }).reasonFor('.vscode/settings.json')).toBeUndefined();
  });
});

describe('writes to protected files', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('are asked every time, by name and with the reason, as a verdict no grant covers', async () => {
    const target = await checkWriteTarget(w.env, '.vscode/settings.json');
    expect(target).toMatchObject({ shown: '.vscode/settings.json', protectedReason: VSCODE, askReason: `writes ".vscode/settings.json", which is protected: ${VSCODE}` });
    expect(await writeVerdict(w.env, '.vscode/settings.json')).toEqual({ kind: 'ask', reason: `writes ".vscode/settings.json", which is protected: ${VSCODE}`, once: true });
    expect(await writeVerdict(w.env, '.VSCode./settings.json')).toMatchObject({ kind: 'ask', once: true });
    expect(await writeVerdict(w.env, 'prompts/flows/triage.yaml')).toMatchObject({ kind: 'ask', once: true });
    // An ordinary file stays an ordinary write.
    expect(await writeVerdict(w.env, 'src/a.ts')).toBeUndefined();
    // The user's list decides.
    expect(await writeVerdict({ ...w.env, protectedFiles: () => ({ globs: [] }) }, '.vscode/settings.json')).toBeUndefined();
    expect(await writeVerdict({ ...w.env, protectedFiles: () => ({ globs: ['src/**'] }) }, 'src/a.ts')).toMatchObject({ kind: 'ask', once: true });
  });

  it('are judged by where a link leads, and say when they are also outside the workspace or ignored', async () => {
    await fs.mkdir(path.join(w.ws, '.vscode'), { recursive: true });
    await fs.writeFile(path.join(w.ws, '.vscode', 'settings.json'), '{}\n');
    await fs.symlink(path.join(w.ws, '.vscode', 'settings.json'), path.join(w.ws, 'innocent.json'));
    expect(await checkWriteTarget(w.env, 'innocent.json')).toMatchObject({ protectedReason: VSCODE, askReason: `writes "innocent.json", which is protected: ${VSCODE}` });
    const outside = path.join(w.root, 'other', '.vscode', 'tasks.json');
    expect((await checkWriteTarget(w.env, outside)).askReason).toBe(`writes "${outside}", which is protected: ${VSCODE} (outside the workspace: ${outside})`);
    await fs.writeFile(path.join(w.ws, '.gitignore'), '.vscode/\n');
    expect((await checkWriteTarget(w.env, '.vscode/settings.json')).askReason).toBe(`writes ".vscode/settings.json", which is protected: ${VSCODE} (it is also ignored by .gitignore)`);
  });
});
