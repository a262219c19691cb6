/**
 * The host's side of "settings that grant are the user's alone" (see `settingLevels.ts` and
 * `workspaceGrants.ts`): reads Arbor's settings each from the levels it may come from, and tells the user
 * once (per workspace file, setting and value) when a workspace tries to set one of them. The notice is
 * remembered in the workspace's state, so it does not come back on every start, but a new value is told.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/index';
import { Settings } from '../base/constants';
import { isLevelledSetting, valueFromLevels } from './settingLevels';
import { parseSettings, type ArborSettings } from './settings';
import { findWorkspaceGrants, grantAttemptFingerprint, grantNoticeText, type WorkspaceGrantAttempt, type WorkspaceSettingsText } from './workspaceGrants';

/** Where the fingerprints of the notices already shown are kept (workspace state, a list of strings). */
const SHOWN_KEY = 'arbor.workspaceGrantNotices';

/**
 * Arbor's settings, validated: a granting setting from User settings only (a workspace value is
 * ignored however it is spelled), a deny list from every level at once, the rest as VS Code merges them.
 */
export function readArborSettings(logger: Pick<Logger, 'warn'>): ArborSettings {
  const config = vscode.workspace.getConfiguration(Settings.section);
  // Each folder's configuration is built once, and only for the few settings read level by level: building
  // one per setting and folder made this the slowest step of activation (about 100 ms for ~60 settings).
  let folderConfigs: vscode.WorkspaceConfiguration[] | undefined;
  const warnings: string[] = [];
  const parsed = parseSettings((key) => {
    if (!isLevelledSetting(key)) return config.get(key);
    const inspected = config.inspect(key);
    folderConfigs ??= (vscode.workspace.workspaceFolders ?? []).map((f) => vscode.workspace.getConfiguration(Settings.section, f.uri));
    const levelled = valueFromLevels(key, {
      globalValue: inspected?.globalValue,
      workspaceValue: inspected?.workspaceValue,
      workspaceFolderValues: folderConfigs.map((c) => c.inspect(key)?.workspaceFolderValue),
    });
    if (!levelled) return config.get(key);
    warnings.push(...levelled.warnings);
    return levelled.value;
  });
  for (const warning of [...new Set(warnings), ...parsed.warnings]) logger.warn(warning);
  return parsed.settings;
}

/** The workspace's files that can hold settings: each folder's `.vscode/settings.json` and the `.code-workspace` file. */
async function workspaceSettingsTexts(): Promise<WorkspaceSettingsText[]> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  const multiRoot = vscode.workspace.workspaceFile !== undefined;
  const candidates: Array<Omit<WorkspaceSettingsText, 'text'> & { uri: vscode.Uri }> = folders.map((f) => {
    const uri = vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json');
    return { uri, path: uri.fsPath, shown: multiRoot ? `${f.name}/.vscode/settings.json` : '.vscode/settings.json', kind: 'settings' };
  });
  const file = vscode.workspace.workspaceFile;
  if (file?.scheme === 'file') candidates.push({ uri: file, path: file.fsPath, shown: path.basename(file.fsPath), kind: 'workspace' });
  const texts: WorkspaceSettingsText[] = [];
  for (const { uri, ...rest } of candidates) {
    try {
      texts.push({ ...rest, text: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)) });
    } catch {
      // No such file: nothing set there.
    }
  }
  return texts;
}

/**
 * Looks for granting settings in the workspace's files at start and whenever they may have changed, and
 * shows a warning for each file with attempts not told before.
 */
export function registerWorkspaceGrantNotice(context: vscode.ExtensionContext, logger: Pick<Logger, 'warn'>): void {
  let running: Promise<void> = Promise.resolve();
  const check = () => {
    running = running.then(() => noticeNewAttempts(context.workspaceState, logger)).catch((err) => logger.warn(`Could not look for settings the workspace tries to grant with: ${String(err)}`));
  };
  check();
  const watcher = vscode.workspace.createFileSystemWatcher('**/{.vscode/settings.json,*.code-workspace}');
  context.subscriptions.push(
    watcher,
    watcher.onDidChange(check),
    watcher.onDidCreate(check),
    vscode.workspace.onDidChangeWorkspaceFolders(check),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(Settings.section)) check();
    }),
  );
}

async function noticeNewAttempts(state: vscode.Memento, logger: Pick<Logger, 'warn'>): Promise<void> {
  const attempts = (await workspaceSettingsTexts()).flatMap(findWorkspaceGrants);
  if (!attempts.length) return;
  const shown = new Set(state.get<string[]>(SHOWN_KEY, []));
  const fresh = attempts.filter((a) => !shown.has(grantAttemptFingerprint(a)));
  if (!fresh.length) return;
  for (const a of fresh) shown.add(grantAttemptFingerprint(a));
  await state.update(SHOWN_KEY, [...shown]);
  const byFile = new Map<string, WorkspaceGrantAttempt[]>();
  for (const a of fresh) byFile.set(a.path, [...(byFile.get(a.path) ?? []), a]);
  for (const group of byFile.values()) {
    const text = grantNoticeText(group);
    logger.warn(text);
    void vscode.window.showWarningMessage(text, 'Open User Settings').then((choice) => {
      if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', group[0].setting);
    });
  }
}
