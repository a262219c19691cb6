/**
 * Files that decide what runs, or what models are told: VS Code's workspace settings and tasks, CI
 * workflows and git hooks, build manifests and lock files, the instruction files agents read, and
 * Arbor's own prompt library. A write to one is asked every time, naming the file and why it is
 * protected, and no grant ("in this conversation", "in this workspace", "always") covers it. The list is
 * `arbor.tools.protectedFiles` (application-scoped: a workspace cannot narrow it). Pure (no `vscode`).
 */
import picomatch from 'picomatch';
import { canonicalPath } from '../../core/index';

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
const DEFAULTS: ReadonlyArray<readonly [glob: string, why: string]> = [
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
export const DEFAULT_PROTECTED_FILES: readonly string[] = DEFAULTS.map(([glob]) => glob);

const WHY = new Map<string, string>(DEFAULTS);

/** What the protection is built from: the globs of `arbor.tools.protectedFiles`, and `arbor.prompts.folder`. */
export interface ProtectedFilesSetting {
  readonly globs: readonly string[];
  /** Workspace-relative, `/`-separated (default `prompts`): what `PROMPTS_ENTRY` stands for. */
  readonly promptsFolder?: string;
}

const compiled = new Map<string, (p: string) => boolean>();

/** One glob's matcher, without case (paths come in canonical), compiled once. */
function matcherOf(glob: string): (p: string) => boolean {
  let m = compiled.get(glob);
  if (!m) {
    const isMatch = picomatch(glob, { dot: true, nocase: true, basename: !glob.includes('/') });
    m = (p: string) => isMatch(p);
    compiled.set(glob, m);
  }
  return m;
}

/** The protected files of one call, from the setting; see the file's header. */
export class ProtectedFiles {
  private readonly rules: ReadonlyArray<{ glob: string; why: string }>;

  constructor(setting: ProtectedFilesSetting = { globs: DEFAULT_PROTECTED_FILES }) {
    const rules: Array<{ glob: string; why: string }> = [];
    const folder = (setting.promptsFolder ?? 'prompts').replace(/\/+$/, '');
    for (const raw of setting.globs) {
      const glob = raw.trim().replace(/\\/g, '/').replace(/^\.\//, '');
      if (!glob) continue;
      const why = WHY.get(glob) ?? `it matches "${glob}" in arbor.tools.protectedFiles`;
      rules.push({ glob, why });
      // The prompt library is protected where it is, and `prompts/` stays protected too.
      if (glob === PROMPTS_ENTRY && folder && folder !== 'prompts') rules.push({ glob: `${folder}/**`, why });
    }
    this.rules = rules;
  }

  /**
   * Why the file at `posixPath` (relative to its workspace folder, or absolute without the leading
   * `/` outside the workspace) is protected, or `undefined` when it is not. Compares the path as
   * `canonicalPath` spells it: `.VSCode./settings.json` is `.vscode/settings.json`.
   */
  reasonFor(posixPath: string): string | undefined {
    const p = canonicalPath(posixPath);
    return this.rules.find((r) => matcherOf(r.glob)(p))?.why;
  }
}
