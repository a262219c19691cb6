/**
 * Finds where a workspace tries to set one of the settings only the user may set (`GRANTING_SETTINGS`):
 * in a folder's `.vscode/settings.json` or a `.code-workspace` file's `settings`. VS Code leaves an
 * `application`-scoped value out of the workspace's configuration, so `inspect()` never reports it; the
 * files are read here instead, and every spelling VS Code would merge counts: the flat key
 * (`"arbor.tools.approval"`), nested objects (`{"arbor": {"tools.approval": …}}`, which VS Code's scope
 * filter does not catch) and language sections (`"[python]": {…}`). Pure: the host hands in the texts.
 */
import { createHash } from 'node:crypto';
import { getNodeValue, parseTree, type Node } from 'jsonc-parser';
import { GRANTING_SETTINGS } from './settingLevels';

/** A workspace file that can hold settings, as read from disk. */
export interface WorkspaceSettingsText {
  /** Absolute path, for the fingerprint. */
  path: string;
  /** What the user reads: `.vscode/settings.json`, `api/.vscode/settings.json`, `team.code-workspace`. */
  shown: string;
  /** `settings`: the whole file is settings; `workspace`: a `.code-workspace` file, whose `settings` property is. */
  kind: 'settings' | 'workspace';
  text: string;
}

/** A granting setting a workspace file sets, which Arbor ignores. */
export interface WorkspaceGrantAttempt {
  /** The full key, `arbor.tools.approval`. */
  setting: string;
  /** The file's `shown` name. */
  file: string;
  path: string;
  value: unknown;
}

const FULL_KEYS = GRANTING_SETTINGS.map((k) => `arbor.${k}`);

/** Whether a value of `setting` would let something run without asking (a workspace's `{"x": "off"}` only restricts). */
export function grantsSomething(setting: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (setting === 'arbor.tools.approval') return typeof value === 'object' && Object.values(value as object).some((policy) => policy === 'auto');
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

function walk(node: Node | undefined, prefix: string, found: (setting: string, value: unknown) => void): void {
  if (node?.type !== 'object') return;
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (typeof keyNode?.value !== 'string' || !valueNode) continue;
    const name = keyNode.value;
    // A language section ("[python]") holds settings of its own, at the top level only.
    if (prefix === '' && /^\[.*\]$/.test(name)) {
      walk(valueNode, '', found);
      continue;
    }
    const key = prefix ? `${prefix}.${name}` : name;
    if (FULL_KEYS.includes(key)) found(key, getNodeValue(valueNode));
    else if (FULL_KEYS.some((full) => full.startsWith(`${key}.`))) walk(valueNode, key, found);
  }
}

/** The granting settings `file` sets to a value that grants something, in the order they appear. */
export function findWorkspaceGrants(file: WorkspaceSettingsText): WorkspaceGrantAttempt[] {
  const root = parseTree(file.text, [], { allowTrailingComma: true, disallowComments: false });
  const settings = file.kind === 'workspace' ? root?.children?.find((p) => p.children?.[0]?.value === 'settings')?.children?.[1] : root;
  const out: WorkspaceGrantAttempt[] = [];
  walk(settings, '', (setting, value) => {
    if (grantsSomething(setting, value)) out.push({ setting, file: file.shown, path: file.path, value });
  });
  return out;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** What the notice is remembered by: the file, the setting and its value, so a changed value is told again. */
export function grantAttemptFingerprint(attempt: WorkspaceGrantAttempt): string {
  return createHash('sha256').update(`${attempt.path}\n${attempt.setting}\n${canonical(attempt.value)}`).digest('hex').slice(0, 32);
}

/** The notice for the attempts of one file: which settings, which file, and that only User settings grant. */
export function grantNoticeText(attempts: readonly WorkspaceGrantAttempt[]): string {
  const settings = [...new Set(attempts.map((a) => a.setting))];
  const named = settings.length === 1 ? settings[0] : `${settings.slice(0, -1).join(', ')} and ${settings[settings.length - 1]}`;
  return (
    `Arbor ignores ${named} in ${attempts[0].file}: only your User settings can let tools or commands run without asking, ` +
    'so a repository cannot grant itself that. If you want it, set it in your User settings.'
  );
}
