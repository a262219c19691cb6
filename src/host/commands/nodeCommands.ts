import * as vscode from 'vscode';
import { ROOT_NODE_ID } from '../../core/index';
import { branchToMarkdown, messagesToMarkdown } from '../tree/branchMarkdown';
import { runOf, type CommandDeps } from './commandDeps';
import { COMPARE_SCHEME, Commands } from '../base/constants';
import { firstLine } from '../base/labels';
import type { CommandServices } from './commandServices';
import { conversationTitle } from '../conversations/conversationRules';
import { branchTip, type RunEntry } from '../tree/treeModel';
import { restoreFilesTo } from '../checkpoints/fileCheckpoints';

/** Serves `arbor-compare:` documents: one branch of a conversation as Markdown, for the diff editor. */
class BranchDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly services: CommandServices) {}

  static uri(conversationId: string, nodeId: string, label: string, withFiles = false): vscode.Uri {
    const name = label.replace(/[\\/:*?"<>|#?]+/g, ' ').trim().slice(0, 50) || 'branch';
    const query = new URLSearchParams({ conversation: conversationId, node: nodeId, ...(withFiles ? { files: '1' } : {}) });
    return vscode.Uri.from({ scheme: COMPARE_SCHEME, path: `/${name}.md`, query: query.toString() });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const storage = await this.services.storage();
    const conversationId = q.get('conversation') ?? '';
    const nodeId = q.get('node') ?? '';
    const state = await storage.loadConversation(conversationId);
    if (!state) return '# This conversation no longer exists.\n';
    const markdown = branchToMarkdown(conversationTitle(state.metadata), state.nodes, nodeId);
    if (q.get('files') !== '1') return markdown;
    // The files the branch changed, as they are at its end (its file checkpoints), after its messages.
    const files = await storage.filesStateAt(conversationId, nodeId);
    const decoder = new TextDecoder();
    const sections = await Promise.all(
      files.map(async (f) => `### ${f.path}\n\n${f.hash === null ? '(deleted)' : `\`\`\`\`\n${decoder.decode((await storage.fileContent(f.hash)) ?? new Uint8Array())}\n\`\`\`\``}\n`),
    );
    return `${markdown}\n## Files at the end of this branch\n\n${sections.join('\n') || '(none changed)\n'}`;
  }
}

function flatten(runs: readonly RunEntry[], out: RunEntry[] = []): RunEntry[] {
  for (const r of runs) {
    out.push(r);
    flatten(r.children, out);
  }
  return out;
}

/** The run a command on a message applies to; `undefined`, saying `rootRefusal`, for the system prompt. */
function messageRunOf(deps: CommandDeps, arg: unknown, rootRefusal: string): RunEntry | undefined {
  const run = runOf(deps, arg);
  if (run?.firstNodeId !== ROOT_NODE_ID) return run;
  void vscode.window.showInformationMessage(rootRefusal);
  return undefined;
}

async function confirm(message: string, detail: string, action: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
}

/** Commands on message items of the tree: branch, switch, rename, compare, copy, delete branch. */
export function registerNodeCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { services, panels } = deps;
  const reg = (id: string, fn: (...args: any[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(COMPARE_SCHEME, new BranchDocuments(services)));

  reg(Commands.branchFromHere, async (arg?: unknown) => {
    const run = messageRunOf(deps, arg, 'The system prompt has no siblings: branch from a message below it.');
    if (!run) return;
    await panels.open(run.conversationId, { branchFrom: run.firstNodeId });
  });

  reg(Commands.switchToHere, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (run) await panels.open(run.conversationId, { switchTo: run.lastNodeId });
  });

  reg(Commands.restoreFilesToHere, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    await restoreFilesTo(services, await services.manager(run.conversationId), run.lastNodeId);
  });

  reg(Commands.compactUpToHere, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    const chat = await panels.open(run.conversationId);
    await chat.compactUpTo(run.lastNodeId);
  });

  reg(Commands.undoCompaction, async () => {
    const id = panels.activeConversationId;
    const chat = id === undefined ? undefined : panels.get(id);
    if (!chat) {
      void vscode.window.showInformationMessage('Open the chat whose compaction to undo first.');
      return;
    }
    await chat.undoCompaction();
  });

  reg(Commands.renameBranch, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    const name = await vscode.window.showInputBox({
      prompt: 'Name of the branch that starts at this message (empty to remove the name)',
      value: run.branchName ?? '',
    });
    if (name !== undefined) await services.withManager(run.conversationId, (m) => m.renameBranch(run.firstNodeId, name.trim()));
  });

  reg(Commands.compareWith, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    const loaded = await deps.tree.provider.load(run.conversationId);
    if (!loaded) return;
    const others = flatten(loaded.runs).filter((r) => r.firstNodeId !== run.firstNodeId && r.children.length === 0);
    const leaves = others.length > 0 ? others : flatten(loaded.runs).filter((r) => r.firstNodeId !== run.firstNodeId);
    if (leaves.length === 0) {
      void vscode.window.showInformationMessage('This conversation has only one branch: there is nothing to compare it with.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      leaves.map((r) => ({ label: r.label, description: r.description, run: r })),
      { placeHolder: 'Compare with which branch?' },
    );
    if (!picked) return;
    const leftTip = branchTip(loaded.nodes, run.lastNodeId);
    const rightTip = branchTip(loaded.nodes, picked.run.lastNodeId);
    // Branches that changed files compare those too: each as it is at the branch's end.
    const manager = await services.manager(run.conversationId);
    const withFiles = Object.keys(await manager.getFileChangesByNode()).length > 0;
    const left = BranchDocuments.uri(run.conversationId, leftTip, firstLine(run.label, 40), withFiles);
    const right = BranchDocuments.uri(run.conversationId, rightTip, firstLine(picked.run.label, 40), withFiles);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${firstLine(run.label, 30)} ↔ ${firstLine(picked.run.label, 30)}`);
  });

  reg(Commands.copyNode, async (arg?: unknown) => {
    const run = runOf(deps, arg);
    if (!run) return;
    const loaded = await deps.tree.provider.load(run.conversationId);
    const nodes = (loaded?.nodes ?? []).filter((n) => run.nodeIds.includes(n.nodeId));
    const text = nodes.length === 1 ? nodes[0].message.content : messagesToMarkdown(nodes);
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`Arbor: copied ${nodes.length === 1 ? 'the message' : `${nodes.length} messages`}`, 2500);
  });

  reg(Commands.deleteBranch, async (arg?: unknown) => {
    const run = messageRunOf(deps, arg, 'The system prompt is the root of the conversation: delete the conversation instead.');
    if (!run) return;
    const manager = await services.manager(run.conversationId);
    const count = manager.getSubtreeSize(run.firstNodeId);
    const ok = await confirm(
      `Delete the branch "${firstLine(run.label, 60)}"?`,
      `This message and the ${count - 1} below it are deleted. This cannot be undone.`,
      'Delete Branch',
    );
    if (!ok) return;
    // Refused while an answer streams into the branch: say so rather than fail the command.
    await services
      .withManager(run.conversationId, (m) => m.deleteBranch(run.firstNodeId))
      .catch((err: unknown) => void vscode.window.showWarningMessage(err instanceof Error ? err.message : String(err)));
  });
}
