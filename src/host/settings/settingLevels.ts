/**
 * Which level of VS Code's settings each of Arbor's settings may come from. A setting that lets
 * something run without asking (a tool policy of `auto`, an allow-listed command) is the user's alone:
 * it is `application`-scoped in package.json, and read from the User settings only, since a cloned
 * repository's `.vscode/settings.json` is as hostile as any file in it. A list that only restricts (the
 * command deny list) is the union of every level, so a workspace can add to the user's denies but never
 * take one away. Pure (no `vscode` import): the host hands in what `inspect()` reports.
 */

/**
 * The settings that widen what runs without asking (keys without `arbor.`): read from User settings
 * only, and a workspace value is ignored with a notice. The one list: a later setting of that kind is
 * added here, and package.json gives it `"scope": "application"` (a test pins both).
 */
export const GRANTING_SETTINGS: readonly string[] = ['tools.approval', 'tools.commandAllowList', 'tools.protectedFiles'];

/** Lists that only restrict (keys without `arbor.`): the workspace's and each folder's entries add to the user's. */
export const ADDITIVE_SETTINGS: readonly string[] = ['tools.commandDenyList'];

/** One setting as `WorkspaceConfiguration.inspect()` reports it, with each folder's value in a multi-root window. */
export interface SettingLevels {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValues?: readonly unknown[];
}

/** The value of a setting at the levels that count: see the file's header. `undefined` means "not set". */
export interface LevelledValue {
  value: unknown;
  /** Levels whose value is not a list of strings (an additive setting), left out: one line each. */
  warnings: string[];
}

/** Whether `key` (without `arbor.`) is a setting only the user may set. */
export function isGrantingSetting(key: string): boolean {
  return GRANTING_SETTINGS.includes(key);
}

/** Whether `key` (without `arbor.`) is read level by level (`valueFromLevels`) rather than the usual way. */
export function isLevelledSetting(key: string): boolean {
  return isGrantingSetting(key) || ADDITIVE_SETTINGS.includes(key);
}

/**
 * The value Arbor uses for `key` when VS Code reports `levels` for it: the User value of a granting
 * setting (a workspace value is ignored, however it is spelled), the union of every level of an additive
 * list, and `undefined` for any other key (the caller reads it the usual way).
 */
export function valueFromLevels(key: string, levels: SettingLevels | undefined): LevelledValue | undefined {
  if (isGrantingSetting(key)) return { value: levels?.globalValue, warnings: [] };
  if (!ADDITIVE_SETTINGS.includes(key)) return undefined;
  const named: Array<[string, unknown]> = [
    ['User', levels?.globalValue],
    ['Workspace', levels?.workspaceValue],
    ...(levels?.workspaceFolderValues ?? []).map((v): [string, unknown] => ['Workspace Folder', v]),
  ];
  const warnings: string[] = [];
  const union: string[] = [];
  let set = false;
  for (const [level, value] of named) {
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      warnings.push(`arbor.${key} in the ${level} settings must be a list of strings; ignoring that level's value.`);
      continue;
    }
    set = true;
    for (const entry of value as string[]) if (!union.includes(entry)) union.push(entry);
  }
  return { value: set ? union : undefined, warnings };
}
