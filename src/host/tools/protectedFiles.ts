/**
 * Files that decide what runs, or what models are told: VS Code's workspace settings and tasks, CI
 * workflows and git hooks, build manifests and lock files, the instruction files agents read, and
 * Arbor's own prompt library. A write to one is asked every time, naming the file and why it is
 * protected, and no grant ("in this conversation", "in this workspace", "always") covers it. The list is
 * `arbor.tools.protectedFiles` (application-scoped: a workspace cannot narrow it). Pure (no `vscode`).
 */
import picomatch from 'picomatch';
import { canonicalPath } from '../../core/index';
import { DEFAULT_PROTECTED_FILES, PROMPTS_ENTRY, PROTECTED_FILE_DEFAULTS } from '../settings/protectedFileDefaults';

export { DEFAULT_PROTECTED_FILES, PROMPTS_ENTRY } from '../settings/protectedFileDefaults';

const WHY = new Map<string, string>(PROTECTED_FILE_DEFAULTS);

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
