/**
 * The workspace's instruction files (AGENTS.md, CLAUDE.md, Copilot's, Cursor's and Continue's rules)
 * on the host: one `InstructionCatalog` over the first workspace folder, kept fresh by one file watcher,
 * and what a chat's request sends of them. Nothing is read in an untrusted workspace.
 */
import * as vscode from 'vscode';
import {
  applicableInstructions,
  filesInPlay,
  INSTRUCTION_WATCH_GLOB,
  InstructionCatalog,
  isInstructionKind,
  readConversationMetadata,
  renderInstructions,
  type ConversationManager,
  type InstructionRef,
  type Logger,
  type WorkspaceFiles,
} from '../../core/index';
import type { InstructionKind } from '../../core/index';
import { Disposable, toDisposable } from '../base/lifecycle';

/** What one request carries of the instruction files, and what its answer records. */
export interface RequestInstructions {
  /** The system section (see `renderInstructions`); absent when nothing applies. */
  text?: string;
  /** Every file that applied, sent or excluded by the chat, with its version. */
  refs: InstructionRef[];
}

/** What the workspace instructions need of the extension. */
export interface WorkspaceInstructionsDeps {
  files: WorkspaceFiles;
  logger: Logger;
  folders(): string[];
  trusted(): boolean;
  enabledKinds(): readonly InstructionKind[];
}

/** The instruction files of the open workspace, cached and watched. */
export class WorkspaceInstructions extends Disposable {
  private catalog?: { root: string; catalog: InstructionCatalog };
  private watcher?: vscode.Disposable;
  /** The files in play of each chat's path, by the node it ends at (a path never changes under a node), so typing recounts nothing. */
  private readonly pathFiles = new Map<string, { nodeId: string; paths: string[] }>();
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  /** Fires when an instruction file changed, appeared or went away (chats redraw their chips). */
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly deps: WorkspaceInstructionsDeps) {
    super();
    this._register(toDisposable(() => this.watcher?.dispose()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.reset()));
  }

  /** Forgets what was read (trust or the settings changed). */
  reset(): void {
    this.catalog?.catalog.clear();
    this.catalog = undefined;
    this.watcher?.dispose();
    this.watcher = undefined;
    this._onDidChange.fire();
  }

  /** The catalog of the first workspace folder, made (with its watcher) on first use; none when untrusted or without a folder. */
  private current(): InstructionCatalog | undefined {
    if (!this.deps.trusted()) return undefined;
    const root = this.deps.folders()[0];
    if (!root) return undefined;
    if (this.catalog?.root === root) return this.catalog.catalog;
    this.watcher?.dispose();
    const catalog = new InstructionCatalog({ files: this.deps.files, root, onProblem: (m) => this.deps.logger.warn(`Instruction files: ${m}`) });
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), INSTRUCTION_WATCH_GLOB));
    const changed = (uri: vscode.Uri) => {
      const rel = vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
      catalog.changed(rel);
      this._onDidChange.fire();
    };
    const subs = [watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed)];
    this.watcher = { dispose: () => [...subs, watcher].forEach((d) => d.dispose()) };
    this.catalog = { root, catalog };
    return catalog;
  }

  /**
   * What the next request of a chat sends: the files that apply to the files in play on its path (and
   * `draftPaths`, the attachments of a message not sent yet), less those the chat excluded.
   */
  async forRequest(manager: ConversationManager, draftPaths: readonly string[] = []): Promise<RequestInstructions> {
    const catalog = this.current();
    const kinds = this.deps.enabledKinds();
    if (!catalog || kinds.length === 0) return { refs: [] };
    try {
      const inPlay = [...new Set([...this.pathFilesOf(manager), ...filesInPlay([], draftPaths)])];
      const excluded = readConversationMetadata(manager.getMetadata() as Record<string, unknown>, 'excludedInstructions') ?? [];
      const found = applicableInstructions(await catalog.collect(inPlay, kinds), inPlay, kinds, excluded);
      const text = renderInstructions(found.applied);
      const off = new Set(found.excluded.map((a) => a.file.path));
      const refs = found.all.map(
        (a): InstructionRef => ({ path: a.file.path, kind: a.file.kind, gitBlobId: a.file.gitBlobId, ...(off.has(a.file.path) ? { excluded: true } : {}) }),
      );
      return { ...(text ? { text } : {}), refs };
    } catch (err) {
      // Instructions help; they never stop a request.
      this.deps.logger.warn(`Could not read the instruction files: ${err instanceof Error ? err.message : String(err)}`);
      return { refs: [] };
    }
  }

  private pathFilesOf(manager: ConversationManager): string[] {
    const cached = this.pathFiles.get(manager.conversationId);
    if (cached?.nodeId === manager.currentNodeId) return cached.paths;
    const paths = filesInPlay(manager.getPathIds().map((id) => manager.getNode(id)));
    if (this.pathFiles.size > 50) this.pathFiles.clear();
    this.pathFiles.set(manager.conversationId, { nodeId: manager.currentNodeId, paths });
    return paths;
  }

  /** The git blob id each of `refs`' files has now (`null`: gone), for the chips to say whether a file changed since. */
  async versions(refs: readonly InstructionRef[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const catalog = this.current();
    if (!catalog) return out;
    await Promise.all(
      refs.map(async (r) => {
        if (out.has(r.path) || !isInstructionKind(r.kind)) return;
        out.set(r.path, (await catalog.get(r.kind, r.path))?.gitBlobId ?? null);
      }),
    );
    return out;
  }
}
