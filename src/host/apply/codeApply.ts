/**
 * Apply on a code block: finds the file the block is for, makes the proposed new content (asking the
 * model to merge a fragment), shows it in VS Code's diff editor, and on Accept writes it as one
 * `WorkspaceEdit` (so the editor's Undo takes it back) and saves; Choose Parts… takes some hunks only;
 * Reject leaves the file as it is. The decision is asked in a notification and from the diff editor's
 * title, whichever the user reaches first.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InvalidOperationError, nodeMetadata, ROOT_NODE_ID, WorkspaceAccessError, type ConversationManager } from '../../core/index';
import { Commands, PROPOSED_SCHEME } from '../base/constants';
import { conversationModel } from '../conversations/conversationModel';
import type { ApplyServices } from './applyServices';
import { guardEnv, recordChanges } from '../checkpoints/fileCheckpoints';
import { applyHunks, changeHunks, fenceInfoOf, isFragment, mergeRequest, namedPaths, unfence, withoutPathComment } from './applyPlan';
import { checkApplyTarget, namedTarget } from './applyTarget';


/** What the webview sends for Apply. */
export interface ApplyRequest {
  conversationId: string;
  /** The answer holding the block (absent for a block still streaming). */
  nodeId?: string;
  code: string;
}

type Decision = 'accept' | 'choose' | 'reject';

interface Pending {
  target: vscode.Uri;
  rel: string;
  before: string;
  proposed: string;
  decide(decision: Decision): void;
}

/** Apply, its diff documents and its commands; see the file's header. */
export class CodeApply implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();
  private counter = 0;

  constructor(private readonly services: ApplyServices) {}

  /** Registers the proposed documents' provider and the Accept, Choose Parts and Reject commands. */
  register(context: vscode.ExtensionContext): void {
    context.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this),
      vscode.commands.registerCommand(Commands.applyAccept, (uri?: vscode.Uri) => this.decideActive('accept', uri)),
      vscode.commands.registerCommand(Commands.applyChooseParts, (uri?: vscode.Uri) => this.decideActive('choose', uri)),
      vscode.commands.registerCommand(Commands.applyReject, (uri?: vscode.Uri) => this.decideActive('reject', uri)),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Serves `text` under `uri` (a proposed side of a diff elsewhere, e.g. Restore Files to Here); `undefined` forgets it. */
  setContent(uri: vscode.Uri, text: string | undefined): void {
    if (text === undefined) this.contents.delete(uri.toString());
    else this.contents.set(uri.toString(), text);
  }

  /** Apply on a block: see the file's header. */
  async apply(request: ApplyRequest): Promise<void> {
    const manager = await this.services.manager(request.conversationId);
    const target = await this.target(manager, request);
    if (!target) {
      void vscode.window.showInformationMessage(
        'Arbor cannot tell which file this code is for. Open the file in an editor and press Apply again, or name the file in the code block\'s fence (```ts src/file.ts).',
      );
      return;
    }
    // The block's path is the model's word: judged as edit_file judges it, before anything is shown.
    const check = await checkApplyTarget(guardEnv(this.services), target.fsPath);
    if ('refusal' in check) {
      void vscode.window.showErrorMessage(check.refusal);
      return;
    }
    const rel = vscode.workspace.asRelativePath(target);
    const exists = await this.services.files.stat(target.fsPath);
    const before = exists ? (await vscode.workspace.openTextDocument(target)).getText() : '';
    let proposed = withoutPathComment(request.code, target.fsPath);
    if (isFragment(proposed, before)) proposed = await this.merge(manager, rel, before, proposed);
    if (before.endsWith('\n') && !proposed.endsWith('\n')) proposed += '\n';
    if (proposed === before) {
      void vscode.window.showInformationMessage(`${rel} already reads as this code block: nothing to apply.`);
      return;
    }
    const written = await this.review({ target, rel, before, proposed, exists: !!exists, asks: check.asks });
    // The answer that held the block changed the file: its checkpoint, for Restore Files to Here.
    if (written !== undefined && request.nodeId !== undefined) {
      await recordChanges(this.services, manager, request.nodeId, [{ abs: target.fsPath, before: exists ? before : null, after: written }]);
    }
  }

  /** The file a block is for: one its fence or first line names, the file the question was about, else the active editor's. */
  private async target(manager: ConversationManager, request: ApplyRequest): Promise<vscode.Uri | undefined> {
    const node = request.nodeId !== undefined ? manager.getNode(request.nodeId) : undefined;
    const folders = this.services.folderPaths();
    const named = namedTarget(folders, namedPaths(node ? fenceInfoOf(node.message.content, request.code) : '', request.code));
    if (named) return vscode.Uri.file(named);
    const question = node?.parentId && node.parentId !== ROOT_NODE_ID ? manager.getNode(node.parentId) : undefined;
    const attached = question ? (nodeMetadata(question.metadata).attachments ?? []).find((a) => a.path) : undefined;
    if (attached?.path) return vscode.Uri.file(path.isAbsolute(attached.path) ? attached.path : path.join(folders[0] ?? '', attached.path));
    const editor = this.services.lastTextEditor;
    return editor?.document.uri.scheme === 'file' ? editor.document.uri : undefined;
  }

  /** Asks the chat's model for the whole file with a fragment merged in. */
  private async merge(manager: ConversationManager, rel: string, before: string, fragment: string): Promise<string> {
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, this.services.settings);
    const llm = await this.services.provider();
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Arbor is asking ${model} to merge the change into ${rel}…`, cancellable: true },
      async (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        const answer = await llm.complete(mergeRequest(rel, before, fragment), { model, signal: abort.signal });
        return unfence(answer.content);
      },
    );
  }

  /** Shows the diff and waits for Accept, Choose Parts… or Reject; returns what was written, if anything. */
  private async review(change: { target: vscode.Uri; rel: string; before: string; proposed: string; exists: boolean; asks: string[] }): Promise<string | undefined> {
    const proposedUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${change.rel}`, query: `n=${++this.counter}` });
    this.contents.set(proposedUri.toString(), change.proposed);
    const left = change.exists ? change.target : vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${change.rel}`, query: `empty=${this.counter}` });
    const { hunks } = changeHunks(change.before, change.proposed);
    const added = hunks.reduce((n, h) => n + h.added, 0);
    const removed = hunks.reduce((n, h) => n + h.removed, 0);
    const decision = new Promise<Decision>((resolve) => {
      this.pending.set(proposedUri.toString(), { ...change, decide: resolve });
    });
    // Beside the chat, which stays in view: in the other editor group when there is one.
    const column = sideColumn();
    await vscode.commands.executeCommand('vscode.diff', left, proposedUri, `${change.rel} ↔ Arbor's change (+${added} −${removed})`, { preview: false, viewColumn: column });
    const choices: Decision[] = ['accept', 'choose', 'reject'];
    const labels = ['Accept', 'Choose Parts…', 'Reject'];
    void vscode.window
      .showInformationMessage(`Apply Arbor's change to ${change.rel}? +${added} −${removed} in ${hunks.length} ${hunks.length === 1 ? 'part' : 'parts'}.${change.asks.map((a) => ` ${a}`).join('')}`, ...labels)
      .then((label) => label && this.pending.get(proposedUri.toString())?.decide(choices[labels.indexOf(label)]));
    const chosen = await decision;
    this.pending.delete(proposedUri.toString());
    let content: string | undefined;
    try {
      content = chosen === 'accept' ? change.proposed : undefined;
      if (chosen === 'choose') content = await this.chooseParts(change.before, change.proposed);
      if (content !== undefined) await this.write(change, content, column);
    } finally {
      await this.closeDiff(proposedUri);
      this.contents.delete(proposedUri.toString());
    }
    if (chosen === 'reject') void vscode.window.showInformationMessage(`Arbor's change to ${change.rel} was rejected; the file is as it was.`);
    return content;
  }

  /** The hunks to take, picked in a list (all at first); undefined when the pick is dismissed. */
  private async chooseParts(before: string, proposed: string): Promise<string | undefined> {
    const { hunks } = changeHunks(before, proposed);
    const items = hunks.map((h) => ({ label: `${h.header}  +${h.added} −${h.removed}`, description: h.preview, picked: true, index: h.index }));
    const picked = await vscode.window.showQuickPick(items, { canPickMany: true, title: 'Apply which parts of the change?', placeHolder: 'Untick the parts to leave out' });
    return picked ? applyHunks(before, proposed, new Set(picked.map((p) => p.index))) : undefined;
  }

  /**
   * Writes `content` as one undoable edit and saves the file, after judging the target again and
   * checking that it still holds what the diff was made from (the decision can come long after).
   */
  private async write(change: { target: vscode.Uri; rel: string; before: string; exists: boolean }, content: string, column: vscode.ViewColumn): Promise<void> {
    const { target, exists } = change;
    const check = await checkApplyTarget(guardEnv(this.services), target.fsPath);
    if ('refusal' in check) throw new WorkspaceAccessError(check.refusal, target.fsPath);
    const edit = new vscode.WorkspaceEdit();
    if (exists) {
      const doc = await vscode.workspace.openTextDocument(target);
      if (doc.getText() !== change.before) throw new InvalidOperationError(`${change.rel} changed while Arbor's change was shown; nothing was applied. Press Apply again to see the change against its new text.`);
      edit.replace(target, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), content);
    } else {
      edit.createFile(target, { contents: new TextEncoder().encode(content), ignoreIfExists: false });
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code refused the edit of ${vscode.workspace.asRelativePath(target)}: the file may be read-only or changed meanwhile.`);
    const doc = await vscode.workspace.openTextDocument(target);
    if (doc.isDirty) await doc.save();
    await vscode.window.showTextDocument(doc, { preview: false, viewColumn: column, preserveFocus: true });
  }

  private async closeDiff(proposedUri: vscode.Uri): Promise<void> {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposedUri.toString()) await vscode.window.tabGroups.close(tab);
      }
    }
  }

  /** A decision from the diff editor's title: for its proposed side, else the only change waiting. */
  private decideActive(decision: Decision, uri?: vscode.Uri): void {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const key = uri?.scheme === PROPOSED_SCHEME ? uri.toString() : input instanceof vscode.TabInputTextDiff ? input.modified.toString() : [...this.pending.keys()].at(-1);
    const pending = key ? this.pending.get(key) : undefined;
    if (!pending) {
      void vscode.window.showInformationMessage('No change of Arbor\'s is waiting for a decision here.');
      return;
    }
    pending.decide(decision);
  }
}

/** The editor group beside the active one (the chat's): an existing other group, else a new one to its side. */
function sideColumn(): vscode.ViewColumn {
  const active = vscode.window.tabGroups.activeTabGroup.viewColumn;
  return vscode.window.tabGroups.all.find((g) => g.viewColumn !== active)?.viewColumn ?? vscode.ViewColumn.Beside;
}
