/**
 * Opens the conversation store the settings choose: this workspace's sql.js file, polled for other
 * windows' writes, or the team store on PostgreSQL, whose change feed reports other machines' writes
 * through `onDidChange` (no polling).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SqlJsConversationStorage } from '../../core/index';
import type { ConversationStorage, Logger } from '../../core/index';
import { toDisposable } from '../base/lifecycle';
import { openTeamStore } from './teamStore';
import { describeTeamStore, teamStoreUrlProblem, type TeamStoreSettings } from '../settings/teamStoreSettings';

/** How often the local store is checked for other windows' changes. */
const STORE_POLL_MS = 2000;

/** The conversation store's file name inside the extension's storage folder. */
export const STORE_FILE = 'arbor.sqlite';

/** A store as opened, with what keeps it up to date with other windows. */
export interface OpenedStore {
  storage: ConversationStorage;
  /** Set for the local store only: reads other windows' writes. */
  poll?: () => Promise<void>;
  /** Stops what watches the store (the file watcher and timers of the local one). */
  unwatch: vscode.Disposable;
}

/** Opens this workspace's sql.js file in `dir`, watched and polled (through `poll`, which calls the store's) for other windows' writes. */
export async function openLocalStorage(options: { dir: string; wasmPath: string; logger: Logger; poll: () => Promise<void> }): Promise<OpenedStore> {
  const started = Date.now();
  await fs.mkdir(options.dir, { recursive: true });
  const file = path.join(options.dir, STORE_FILE);
  const storage = await SqlJsConversationStorage.open(file, {
    wasmPath: options.wasmPath,
    logger: options.logger,
    notify: (message) => void vscode.window.showWarningMessage(`Arbor: ${message}`),
  });
  options.logger.info(`Opened the conversation store ${file} in ${Date.now() - started} ms${storage.readOnly ? ' (read-only)' : ''}`);
  if (storage.readOnly) {
    void vscode.window.showWarningMessage(`Arbor: the conversation store ${file} is read-only. Conversations show, but new messages cannot be saved until its folder is writable.`);
  }
  return { storage, poll: async () => void (await storage.poll()), unwatch: watchStore(options.dir, options.poll, options.logger) };
}

/** Opens the team store of `settings` as the user's role, with `password` from secret storage. */
export async function openTeamStorage(settings: TeamStoreSettings, password: string | undefined, logger: Logger): Promise<OpenedStore> {
  const started = Date.now();
  const storage = await openTeamStore(settings, password);
  logger.info(`Opened the team store ${describeTeamStore(settings.url)} in ${Date.now() - started} ms`);
  return { storage, unwatch: new vscode.Disposable(() => undefined) };
}

/**
 * Opens, for a Move or Copy, the store the settings do not use now: the team store (its address must
 * be set) when the local one is in use, else this workspace's local file. The caller closes it.
 */
export async function openOtherStore(options: { settings: TeamStoreSettings; password: string | undefined; dir: string; wasmPath: string; logger: Logger }): Promise<ConversationStorage> {
  if (options.settings.kind === 'postgres') {
    await fs.mkdir(options.dir, { recursive: true });
    return SqlJsConversationStorage.open(path.join(options.dir, STORE_FILE), { wasmPath: options.wasmPath, logger: options.logger });
  }
  const url = options.settings.url;
  const problem = url ? teamStoreUrlProblem(url) : 'Set arbor.storage.postgres.url to the team store\'s address (e.g. postgres://alice@db.example.com:5432/arbor) first.';
  return openTeamStore({ ...options.settings, kind: 'postgres', ...(problem ? { problem } : {}) }, options.password);
}

/**
 * Other windows write the same file: poll it when its files change, when this window gets focus,
 * and every few seconds (file events outside the workspace are not delivered everywhere; a poll
 * with nothing new costs two `stat` calls).
 */
function watchStore(dir: string, pollStore: () => Promise<void>, logger: Logger): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      pollStore().catch((err) => logger.warn('Could not read changes from other windows', err));
    }, 100);
  };
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), 'arbor.sqlite*'));
  const interval = setInterval(poll, STORE_POLL_MS);
  return vscode.Disposable.from(
    watcher,
    watcher.onDidChange(poll),
    watcher.onDidCreate(poll),
    vscode.window.onDidChangeWindowState((e) => {
      if (e.focused) poll();
    }),
    toDisposable(() => timer && clearTimeout(timer)),
    toDisposable(() => clearInterval(interval)),
  );
}
