import * as vscode from 'vscode';
import { copilotSessionTitle, isCopilotChatSession } from '../../core/index';

/** A Copilot Chat session file found in VS Code's storage for this workspace. */
interface FoundSession {
  uri: vscode.Uri;
  title: string;
  requests: number;
  lastMessageDate?: number;
}

/**
 * The folder where VS Code keeps Copilot Chat's sessions of this window: `chatSessions` in the
 * workspace's storage folder (the parent of Arbor's own `context.storageUri`), or, with no folder open,
 * `emptyWindowChatSessions` beside Arbor's global storage.
 */
export function copilotSessionsFolder(context: vscode.ExtensionContext): vscode.Uri {
  return context.storageUri
    ? vscode.Uri.joinPath(context.storageUri, '..', 'chatSessions')
    : vscode.Uri.joinPath(context.globalStorageUri, '..', 'emptyWindowChatSessions');
}

/** Reads (never writes) the session files of `folder`; files of another shape are passed over. */
async function findSessions(folder: vscode.Uri): Promise<{ sessions: FoundSession[]; other: number }> {
  let entries: Array<[string, vscode.FileType]>;
  try {
    entries = await vscode.workspace.fs.readDirectory(folder);
  } catch {
    return { sessions: [], other: 0 };
  }
  const sessions: FoundSession[] = [];
  let other = 0;
  for (const [file, type] of entries) {
    if (type !== vscode.FileType.File) continue;
    if (!file.endsWith('.json')) {
      other++;
      continue;
    }
    const uri = vscode.Uri.joinPath(folder, file);
    try {
      const data: unknown = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
      if (!isCopilotChatSession(data)) continue;
      const d = data as { requests: unknown[]; lastMessageDate?: unknown };
      if (d.requests.length === 0) continue;
      sessions.push({ uri, title: copilotSessionTitle(data) || file, requests: d.requests.length, lastMessageDate: typeof d.lastMessageDate === 'number' ? d.lastMessageDate : undefined });
    } catch {
      other++;
    }
  }
  sessions.sort((a, b) => (b.lastMessageDate ?? 0) - (a.lastMessageDate ?? 0));
  return { sessions, other };
}

/**
 * Lists this workspace's Copilot Chat sessions for picking (newest first, titled by their first
 * question); with none there, offers to pick a session file by hand. Resolves the files to import.
 */
export async function pickCopilotSessions(context: vscode.ExtensionContext): Promise<vscode.Uri[] | undefined> {
  const folder = copilotSessionsFolder(context);
  const { sessions, other } = await findSessions(folder);
  const pickFile = 'Pick a Session File…';
  if (sessions.length === 0) {
    const why = other > 0
      ? `The Copilot Chat folder of this workspace has ${other} file${other === 1 ? '' : 's'} in a format Arbor does not read (it reads chatSessions/*.json).`
      : 'VS Code has no saved Copilot Chat sessions for this workspace.';
    const answer = await vscode.window.showInformationMessage(`${why} Pick a session file by hand?`, pickFile);
    return answer === pickFile ? pickByHand(folder) : undefined;
  }
  const items: Array<vscode.QuickPickItem & { uri?: vscode.Uri }> = sessions.map((s) => ({
    label: s.title,
    description: s.lastMessageDate ? new Date(s.lastMessageDate).toLocaleString() : undefined,
    detail: `${s.requests} question${s.requests === 1 ? '' : 's'}`,
    uri: s.uri,
  }));
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator }, { label: `$(folder-opened) ${pickFile}` });
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    // Ticking several takes a while; a chat tab that takes the focus meanwhile must not close the list.
    ignoreFocusOut: true,
    title: 'Import Copilot Chat Sessions',
    placeHolder: `${sessions.length} session${sessions.length === 1 ? '' : 's'} of this workspace: pick the ones to import (they are only read)`,
  });
  if (!picked || picked.length === 0) return undefined;
  const uris = picked.flatMap((p) => (p.uri ? [p.uri] : []));
  return picked.some((p) => !p.uri) ? [...uris, ...((await pickByHand(folder)) ?? [])] : uris;
}

function pickByHand(folder: vscode.Uri): Thenable<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog({
    canSelectMany: true,
    defaultUri: folder,
    filters: { 'Copilot Chat sessions': ['json'] },
    openLabel: 'Import',
    title: 'Import Copilot Chat Sessions',
  });
}
