import * as vscode from 'vscode';
import type { IndexProgress, IndexUpdateResult, WorkspaceIndex } from '../../core/index';
import { Disposable, toDisposable } from '../base/lifecycle';
import type { WorkspaceHostServices } from './workspaceHostServices';

/** Wait after activation before indexing in the background, so the first views render first. */
const BACKGROUND_DELAY_MS = 3000;
/** Quiet time after file changes before they are re-indexed. */
const CHANGE_DEBOUNCE_MS = 500;

function summary(r: IndexUpdateResult): string {
  return `${r.added} added, ${r.changed} changed, ${r.removed} removed, ${r.unchanged} unchanged, ${r.skipped} skipped`;
}

/**
 * The workspace index in the background: a first update shortly after activation with progress in
 * the status bar, file changes re-indexed as they happen, and `Reindex Workspace` with a progress
 * notification. Off in restricted mode; turned on when the workspace is trusted.
 */
export class Indexing extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('arbor.indexing', vscode.StatusBarAlignment.Left, 0));
  private running?: Promise<IndexUpdateResult | undefined>;
  private abort?: AbortController;
  private pendingPaths = new Set<string>();
  private changeTimer?: ReturnType<typeof setTimeout>;
  private startTimer?: ReturnType<typeof setTimeout>;
  private watching = false;

  constructor(private readonly services: WorkspaceHostServices) {
    super();
    this.item.name = 'Arbor Indexing';
    this._register(services.onDidChangeTrust(() => this.start(0)));
    this._register(services.onDidChangeIndexSettings(() => this.start(0)));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.start(0)));
    this._register(
      toDisposable(() => {
        this.abort?.abort();
        if (this.changeTimer) clearTimeout(this.changeTimer);
        if (this.startTimer) clearTimeout(this.startTimer);
      }),
    );
  }

  /** Schedules the background update (no-op when untrusted or no folder is open). */
  start(delayMs = BACKGROUND_DELAY_MS): void {
    if (!this.services.trusted || this.services.folderPaths().length === 0) return;
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = setTimeout(() => {
      this.startTimer = undefined;
      void this.update('statusBar');
    }, delayMs);
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const queue = (uri: vscode.Uri) => {
      if (uri.scheme !== 'file') return;
      this.pendingPaths.add(uri.fsPath);
      if (this.changeTimer) clearTimeout(this.changeTimer);
      this.changeTimer = setTimeout(() => void this.flushChanges(), CHANGE_DEBOUNCE_MS);
    };
    this._register(watcher);
    this._register(watcher.onDidChange(queue));
    this._register(watcher.onDidCreate(queue));
    this._register(watcher.onDidDelete(queue));
  }

  private async flushChanges(): Promise<void> {
    const paths = [...this.pendingPaths];
    this.pendingPaths.clear();
    if (this.running) await this.running.catch(() => undefined);
    const index = await this.services.workspaceIndex().catch(() => undefined);
    if (!index) return;
    for (const p of paths) {
      try {
        const exists = await this.services.files.stat(p);
        if (exists) await index.updateFile(p);
        else await index.removeFile(p);
      } catch (err) {
        this.services.logger.debug(`Could not re-index ${p}`, err);
      }
    }
  }

  /** Runs one update; `statusBar` shows progress in the status bar, `notification` in a cancellable notification. */
  async update(where: 'statusBar' | 'notification'): Promise<IndexUpdateResult | undefined> {
    if (!this.services.trusted) {
      void vscode.window.showWarningMessage('Arbor does not index files in Restricted Mode. Trust this workspace to turn indexing on.');
      return undefined;
    }
    if (this.running) {
      if (where === 'statusBar') return this.running;
      this.abort?.abort();
      await this.running.catch(() => undefined);
    }
    const run = (async () => {
      const index = await this.services.workspaceIndex();
      if (!index) {
        if (where === 'notification') void vscode.window.showInformationMessage('Open a folder first: Arbor indexes the files of the workspace folders.');
        return undefined;
      }
      this.watch();
      const abort = new AbortController();
      this.abort = abort;
      const started = Date.now();
      try {
        const result =
          where === 'notification'
            ? await vscode.window.withProgress(
                { location: vscode.ProgressLocation.Notification, title: 'Arbor: indexing the workspace', cancellable: true },
                async (progress, token) => {
                  token.onCancellationRequested(() => abort.abort());
                  let last = 0;
                  const sub = index.onProgress((p: IndexProgress) => {
                    const pct = p.total > 0 ? (p.done / p.total) * 100 : 0;
                    progress.report({ message: `${p.done}/${p.total} files`, increment: Math.max(0, pct - last) });
                    last = pct;
                  });
                  try {
                    return await index.update({ signal: abort.signal });
                  } finally {
                    sub.dispose();
                  }
                },
              )
            : await this.withStatusBar(index, abort.signal);
        this.services.logger.info(`Workspace index updated in ${Date.now() - started} ms: ${summary(result)}`);
        if (where === 'notification') void vscode.window.showInformationMessage(`Arbor indexed the workspace: ${summary(result)}.`);
        return result;
      } catch (err) {
        if (abort.signal.aborted) {
          this.services.logger.info('Indexing was cancelled');
          return undefined;
        }
        this.services.logger.error('Indexing failed', err);
        if (where === 'notification') void vscode.window.showErrorMessage(`Arbor could not index the workspace: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    })();
    this.running = run;
    try {
      return await run;
    } finally {
      if (this.running === run) this.running = undefined;
    }
  }

  private async withStatusBar(index: WorkspaceIndex, signal: AbortSignal): Promise<IndexUpdateResult> {
    this.item.text = '$(sync~spin) Arbor: indexing';
    this.item.tooltip = 'Arbor is indexing the workspace for retrieval';
    this.item.show();
    const sub = index.onProgress((p: IndexProgress) => {
      this.item.text = `$(sync~spin) Arbor: indexing ${p.done}/${p.total}`;
    });
    try {
      return await index.update({ signal });
    } finally {
      sub.dispose();
      this.item.hide();
    }
  }
}
