/**
 * What the MCP host reads from VS Code: each workspace folder's `.vscode/mcp.json`, the
 * `arbor.mcp.servers` setting at each level, the person's answers to `${input:…}` prompts, and secret
 * storage in the shape the MCP client expects.
 */
import * as vscode from 'vscode';
import { McpConfigError, type McpSettingValue, type McpTrustPrompt } from '../../core/index';
import type { McpInputDefinition, McpInputPrompter, SecretStore } from '../../core/mcp/index';
import { Settings } from '../base/constants';
import type { McpFolder, McpHostSources } from './mcpPlan';

/** Where a folder's MCP configuration lives, relative to the folder (as in VS Code). */
export const MCP_JSON = '.vscode/mcp.json';

/** The workspace folders a server can run in (on this machine's disk). */
export function mcpFolders(): vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
}

/** Reads every folder's `.vscode/mcp.json` (a missing file is no error) and the setting's values. */
export async function readMcpSources(): Promise<McpHostSources> {
  const folders = mcpFolders();
  const readErrors: McpConfigError[] = [];
  const read = await Promise.all(
    folders.map(async (folder): Promise<McpFolder> => {
      const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
      try {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        return { path: folder.uri.fsPath, mcpJson: { path: uri.fsPath, text } };
      } catch (error) {
        if (!(error instanceof vscode.FileSystemError && error.code === 'FileNotFound')) {
          readErrors.push(new McpConfigError(`the file could not be read (${error instanceof Error ? error.message : String(error)}).`, uri.fsPath));
        }
        return { path: folder.uri.fsPath };
      }
    }),
  );
  return { folders: read, settings: settingValues(folders), readErrors };
}

/**
 * The `arbor.mcp.servers` setting at the levels it is set: the person's (user), the workspace's, and in a
 * multi-root workspace each folder's. The workspace levels count as the workspace's configuration.
 */
function settingValues(folders: readonly vscode.WorkspaceFolder[]): McpSettingValue[] {
  const key = `${Settings.section}.${Settings.mcpServers}`;
  const out: McpSettingValue[] = [];
  const inspected = vscode.workspace.getConfiguration(Settings.section).inspect<unknown>(Settings.mcpServers);
  if (inspected?.globalValue !== undefined) out.push({ value: inspected.globalValue, source: 'user', origin: `user setting ${key}` });
  if (inspected?.workspaceValue !== undefined) out.push({ value: inspected.workspaceValue, source: 'workspace', origin: `workspace setting ${key} in ${workspaceSettingsFile()}` });
  // In a single-folder window the folder's settings are the workspace's; only a multi-root one has folder levels.
  if (vscode.workspace.workspaceFile !== undefined) {
    for (const folder of folders) {
      const value = vscode.workspace.getConfiguration(Settings.section, folder.uri).inspect<unknown>(Settings.mcpServers)?.workspaceFolderValue;
      if (value !== undefined) out.push({ value, source: 'workspace', origin: `folder setting ${key} in ${vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath}` });
    }
  }
  return out;
}

/** The file that holds the workspace's settings: the `.code-workspace` file, or the folder's `.vscode/settings.json`. */
function workspaceSettingsFile(): string {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return file.fsPath;
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json').fsPath : 'the workspace settings';
}

/**
 * What MCP server trust is kept under for this window: the `.code-workspace` file when there is one,
 * else the folders' URIs. Another clone of the same repository is another workspace, and is asked anew.
 */
export function mcpWorkspaceKey(): string {
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') return file.toString();
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()).sort().join('\n');
}

/**
 * Asks whether to start a server the workspace configures, in a modal dialog (nothing else happens in
 * the window until it is answered). `true` only for "Trust and Start"; Escape is "Don't Start".
 */
export async function askMcpTrust(prompt: McpTrustPrompt): Promise<boolean> {
  const start: vscode.MessageItem = { title: 'Trust and Start' };
  const dont: vscode.MessageItem = { title: "Don't Start", isCloseAffordance: true };
  const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, start, dont);
  return choice === start;
}

/**
 * Asks for an `${input:…}` value: a pick list for `pickString`, else an input box (typed hidden for a
 * password). The prompt stays open when focus moves (the chat panel may take it). `undefined` when dismissed.
 */
export const promptMcpInput: McpInputPrompter = async (input: McpInputDefinition, serverName: string) => {
  const title = `MCP server "${serverName}"`;
  if (input.type === 'pickString') {
    const options = input.options ?? [];
    const ordered = input.default !== undefined && options.includes(input.default) ? [input.default, ...options.filter((o) => o !== input.default)] : options;
    return vscode.window.showQuickPick(ordered, { title, placeHolder: input.description, ignoreFocusOut: true });
  }
  return vscode.window.showInputBox({
    title,
    prompt: input.password ? `${input.description} (kept in VS Code's secret storage)` : input.description,
    password: input.password,
    value: input.password ? undefined : input.default,
    ignoreFocusOut: true,
  });
};

/** VS Code's secret storage as the MCP client's `SecretStore`. */
export function mcpSecretStore(secrets: vscode.SecretStorage): SecretStore {
  return {
    get: async (key) => secrets.get(key),
    store: async (key, value) => secrets.store(key, value),
    delete: async (key) => secrets.delete(key),
  };
}
