/**
 * The default list of `arbor.tools.protectedFiles`: each glob with why a write to it is asked every time.
 * It lives with the settings, whose reader falls back to it; `tools/protectedFiles.ts` matches writes
 * against the list the settings hold. Pure (no `vscode`).
 */

/** The entry that stands for Arbor's prompt folder, wherever `arbor.prompts.folder` puts it. */
export const PROMPTS_ENTRY = 'prompts/**';

const VSCODE = 'VS Code settings and tasks decide what runs';
const CI = 'CI workflows run with the repository\'s secrets';
const HOOKS = 'git hooks run on every commit';
const LOCK = 'a lock file decides which package versions are installed';
const BUILD = 'a build manifest decides what runs on every build';
const INSTRUCTIONS = 'instruction files decide what agents and models are told';

/**
 * The default list, each glob with why it is protected. A glob without `/` matches a file's name in
 * any folder; one with `/` matches the path from the workspace folder (`**\/` for any depth).
 */
export const PROTECTED_FILE_DEFAULTS: ReadonlyArray<readonly [glob: string, why: string]> = [
  ['**/.vscode/**', VSCODE],
  ['*.code-workspace', 'a workspace file holds VS Code settings and tasks, which decide what runs'],
  ['**/.devcontainer/**', 'the dev container configuration decides what runs when the container is built'],
  ['**/.github/workflows/**', CI],
  ['.gitlab-ci.yml', CI],
  ['**/.husky/**', HOOKS],
  ['**/.githooks/**', HOOKS],
  ['package.json', 'its scripts run on npm install, npm test and npm run'],
  ...['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb', 'Cargo.lock', 'Gemfile.lock', 'poetry.lock', 'Pipfile.lock', 'uv.lock', 'composer.lock', 'go.sum'].map(
    (name) => [name, LOCK] as const,
  ),
  ['Cargo.toml', 'its build scripts run on cargo build'],
  ['*.gradle*', BUILD],
  ['pom.xml', BUILD],
  ['Makefile', 'make runs its recipes'],
  ['*.csproj', BUILD],
  ['AGENTS.md', INSTRUCTIONS],
  ['CLAUDE.md', INSTRUCTIONS],
  ['**/.github/copilot-instructions.md', INSTRUCTIONS],
  ['**/.github/instructions/**', INSTRUCTIONS],
  ['**/.cursor/rules/**', INSTRUCTIONS],
  ['**/.continue/**', INSTRUCTIONS],
  ['**/.claude/**', INSTRUCTIONS],
  [PROMPTS_ENTRY, 'the prompt library decides what models are told and which flows run'],
];

/** The default of `arbor.tools.protectedFiles`. */
export const DEFAULT_PROTECTED_FILES: readonly string[] = PROTECTED_FILE_DEFAULTS.map(([glob]) => glob);
