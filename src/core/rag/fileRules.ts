/**
 * Which workspace files retrieval may see: secrets and tool folders are always left out, host
 * globs (`files.exclude` style) and include globs narrow the rest.
 */
import picomatch from 'picomatch';
import { canonicalPath, canonicalSegment } from './pathNames';

/**
 * Files that commonly hold credentials: never indexed, never returned, never written, unless the host
 * overrides the list. A glob without `/` matches a file's name in any folder; one with `/` matches at
 * any depth (`.config/gh/**` is also `home/me/.config/gh/hosts.yml`). Matching ignores case, trailing
 * dots and spaces, and alternate streams (see `canonicalPath`).
 */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = [
  '.env', '.env.*', '*.env', '*.pem', '*.key', '*.p12', '*.pfx', '*.crt', '*.cer', '*.der', '*.jks', '*.keystore',
  '*.kdbx', '*.ppk', '*.gpg', 'id_rsa*', 'id_dsa*', 'id_ecdsa*', 'id_ed25519*', '.npmrc', '.yarnrc', '.yarnrc.yml',
  '.pypirc', '.netrc', '_netrc', '.htpasswd', '.pgpass', '.git-credentials', '.dockercfg', 'credentials*',
  'secrets.*', 'secret.*', '*.secret', '*.secrets', 'service-account*.json', '.ssh/**', '.aws/**', '.gnupg/**',
  '.envrc', '*.tfvars', '*.tfvars.json', '.docker/config.json', '.kube/**',
  // The tokens of command-line tools.
  '.config/gh/**', '.config/gcloud/**', '.azure/**', '.config/hub', '.cargo/credentials*', '.gem/credentials',
  // Shell and REPL histories: commands typed with their passwords and tokens.
  '*_history', '.history', '.lesshst', '.Rhistory', 'ConsoleHost_history.txt', '.julia/logs/repl_history.jl',
  // VS Code's (and code-server's) own state and secret stores.
  'User/globalStorage/**', 'User/workspaceStorage/**', 'workspaceStorage/**', 'state.vscdb*',
  // Browser profiles: saved passwords, cookies, history.
  'Login Data*', 'Cookies', 'Cookies-journal', 'Web Data*', 'logins.json', 'key4.db', 'key3.db', 'cookies.sqlite*',
  '.mozilla/**', '.config/google-chrome/**', '.config/chromium/**', '.config/BraveSoftware/**', '.config/microsoft-edge/**',
  'snap/firefox/**', 'snap/chromium/**', 'Library/Application Support/Google/Chrome/**', 'Library/Application Support/Firefox/**',
  'Library/Application Support/Chromium/**', 'Library/Application Support/BraveSoftware/**', 'Library/Application Support/Microsoft Edge/**',
  'AppData/Local/Google/Chrome/User Data/**', 'AppData/Roaming/Mozilla/**', 'AppData/Local/Microsoft/Edge/User Data/**',
  'AppData/Local/Chromium/User Data/**', 'AppData/Local/BraveSoftware/**',
];

/**
 * Why retrieval leaves a path out: inside `node_modules`/`.git` (`tool-folder`), a credential file,
 * the host's excludes, outside the include globs, or a `.gitignore` rule.
 */
export type SkipReason = 'tool-folder' | 'secret' | 'excluded' | 'not-included' | 'gitignored';

/** Folder names that are never entered (compared as `canonicalSegment` spells them). */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

/** A host exclude setting: a list of globs, or VS Code's `files.exclude` map of glob to enabled. */
export type ExcludeSetting = readonly string[] | Readonly<Record<string, boolean>>;

/** Turns an exclude setting into the list of globs that are on. */
export function excludeGlobs(setting: ExcludeSetting | undefined): string[] {
  if (!setting) return [];
  if (Array.isArray(setting)) return [...(setting as readonly string[])];
  return Object.entries(setting as Record<string, boolean>).filter(([, on]) => on).map(([g]) => g);
}

/** A matcher over `/`-separated relative paths; an empty list matches nothing. Case-insensitive with `basename` or `nocase`. */
export function globMatcher(globs: readonly string[], options: { basename?: boolean; nocase?: boolean } = {}): (relPath: string) => boolean {
  if (globs.length === 0) return () => false;
  const m = picomatch(globs as string[], { dot: true, nocase: options.basename === true || options.nocase === true, basename: options.basename });
  return (p) => m(p);
}

/** Compiled rules of one index or adapter. */
export class FileRules {
  private readonly isSecretName: (p: string) => boolean;
  private readonly isSecretPath: (p: string) => boolean;
  private readonly isExcluded: (p: string) => boolean;
  private readonly isIncluded: ((p: string) => boolean) | undefined;

  constructor(options: { exclude?: ExcludeSetting; include?: readonly string[]; secretPatterns?: readonly string[] } = {}) {
    const secrets = options.secretPatterns ?? DEFAULT_SECRET_PATTERNS;
    this.isSecretName = globMatcher(secrets.filter((g) => !g.includes('/')), { basename: true });
    this.isSecretPath = globMatcher(secrets.filter((g) => g.includes('/')).flatMap((g) => [g, `**/${g}`]), { nocase: true });
    const ex = excludeGlobs(options.exclude);
    // `files.exclude` globs name a folder or a file; anything below an excluded folder is excluded too.
    this.isExcluded = globMatcher(ex.flatMap((g) => [g, `${g.replace(/\/+$/, '')}/**`]));
    this.isIncluded = options.include && options.include.length > 0 ? globMatcher(options.include) : undefined;
  }

  /** Whether a relative path names a secret file (by name, or by a folder such as `.ssh`), however it is spelled. */
  isSecret(relPath: string): boolean {
    const canonical = canonicalPath(relPath);
    const name = canonical.slice(canonical.lastIndexOf('/') + 1);
    return this.isSecretName(name) || this.isSecretPath(canonical);
  }

  /** Why a folder (relative path) is not entered, or `undefined` when it is. */
  directorySkipReason(relDir: string): SkipReason | undefined {
    const name = canonicalSegment(relDir.slice(relDir.lastIndexOf('/') + 1));
    if (ALWAYS_SKIPPED_DIRS.has(name)) return 'tool-folder';
    if (this.isSecretPath(`${canonicalPath(relDir)}/x`)) return 'secret';
    return this.isExcluded(relDir) ? 'excluded' : undefined;
  }

  /** Whether a folder (relative path) should not be entered. */
  skipsDirectory(relDir: string): boolean {
    return this.directorySkipReason(relDir) !== undefined;
  }

  /** Whether a file may never be read at all: a secret, or inside `.git`/`node_modules`. */
  forbids(relPath: string): boolean {
    const parts = relPath.split('/');
    for (let i = 0; i < parts.length - 1; i++) if (ALWAYS_SKIPPED_DIRS.has(canonicalSegment(parts[i]))) return true;
    return this.isSecret(relPath);
  }

  /** Why a file (relative path) is left out by the tool folders, secret rules, excludes or includes; `undefined` when it is not. */
  fileSkipReason(relPath: string): SkipReason | undefined {
    const parts = relPath.split('/');
    for (let i = 0; i < parts.length - 1; i++) if (ALWAYS_SKIPPED_DIRS.has(canonicalSegment(parts[i]))) return 'tool-folder';
    if (this.isSecret(relPath)) return 'secret';
    if (this.isExcluded(relPath)) return 'excluded';
    return this.isIncluded !== undefined && !this.isIncluded(relPath) ? 'not-included' : undefined;
  }

  /** Whether a file (relative path) is left out by the tool folders, excludes, includes or secret rules. */
  skipsFile(relPath: string): boolean {
    return this.fileSkipReason(relPath) !== undefined;
  }
}

const LANGUAGES: Record<string, string> = {
  ts: 'typescript', tsx: 'typescriptreact', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascriptreact',
  mjs: 'javascript', cjs: 'javascript', py: 'python', rb: 'ruby', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin',
  kts: 'kotlin', scala: 'scala', swift: 'swift', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp',
  cs: 'csharp', php: 'php', lua: 'lua', sh: 'shellscript', bash: 'shellscript', zsh: 'shellscript', ps1: 'powershell',
  md: 'markdown', markdown: 'markdown', mdx: 'mdx', json: 'json', jsonc: 'jsonc', yaml: 'yaml', yml: 'yaml',
  toml: 'toml', xml: 'xml', html: 'html', htm: 'html', css: 'css', scss: 'scss', less: 'less', sql: 'sql',
  vue: 'vue', svelte: 'svelte', dart: 'dart', ex: 'elixir', exs: 'elixir', erl: 'erlang', hs: 'haskell',
  ml: 'ocaml', r: 'r', jl: 'julia', zig: 'zig', txt: 'plaintext', hbs: 'handlebars', graphql: 'graphql', proto: 'proto3',
};

/** VS Code language id guessed from a file name (`plaintext` when unknown). */
export function languageOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (name === 'dockerfile') return 'dockerfile';
  if (name === 'makefile') return 'makefile';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? LANGUAGES[name.slice(dot + 1)] ?? 'plaintext' : 'plaintext';
}

/** True when the first 8 KB hold a NUL byte: the file is binary and not worth indexing. */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}
