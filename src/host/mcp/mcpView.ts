/**
 * The MCP Servers view (below Conversations) and its commands: each configured server with its state
 * and tools, Restart, Trust… (a server the workspace configures, waiting for the person's OK), Reset MCP
 * Server Trust, and Show Output. `registerMcp` is the feature's entry point from `activate()`;
 * it starts nothing (servers start when a chat first asks for tools).
 */
import * as vscode from 'vscode';
import { McpServerTrust } from '../../core/index';
import { Commands, Views } from '../base/constants';
import { Disposable, toDisposable } from '../base/lifecycle';
import { McpHost, McpRestartError } from './mcpHost';
import type { McpTreeRow } from './mcpRows';
import type { McpServices } from './mcpServices';
import { askMcpTrust, mcpWorkspaceKey } from './mcpWorkspace';

/** How often the view redraws while a server is starting, so its row's "after 12 s" counts up. */
const STARTING_REDRAW_MS = 2_000;

/**
 * The rows of `McpHost`, redrawn whenever the configuration or a server's state changes, and every
 * `STARTING_REDRAW_MS` while a row shows a time that grows (a server starting); not after.
 */
export class McpServersTreeProvider extends Disposable implements vscode.TreeDataProvider<McpTreeRow> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<McpTreeRow | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private redrawTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly host: McpHost) {
    super();
    this._register(host.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
    this._register(toDisposable(() => clearTimeout(this.redrawTimer)));
  }

  getTreeItem(row: McpTreeRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, row.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon, row.iconColor ? new vscode.ThemeColor(row.iconColor) : undefined);
    item.contextValue = row.contextValue;
    return item;
  }

  getChildren(row?: McpTreeRow): vscode.ProviderResult<McpTreeRow[]> {
    return row ? row.children : this.rootRows();
  }

  private async rootRows(): Promise<McpTreeRow[]> {
    const rows = await this.host.rows();
    if (rows.some((r) => r.ticking) && !this.redrawTimer && !this.isDisposed) {
      this.redrawTimer = setTimeout(() => {
        this.redrawTimer = undefined;
        this._onDidChangeTreeData.fire(undefined);
      }, STARTING_REDRAW_MS);
    }
    return rows;
  }
}

/** What `registerMcp` needs. */
export interface McpDeps {
  services: McpServices;
}

/**
 * Creates the window's `McpHost`, the MCP Servers view and the Restart and Show Output commands. The
 * chat gets MCP tools from the returned host's `tools()`; `shutdown()` stops the servers.
 */
export function registerMcp(context: vscode.ExtensionContext, deps: McpDeps): McpHost {
  const { services } = deps;
  const host = new McpHost({
    logger: services.logger,
    secrets: context.secrets,
    trusted: () => services.trusted,
    onDidChangeTrust: services.onDidChangeTrust,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    serverTrust: new McpServerTrust({ memento: context.globalState, workspace: mcpWorkspaceKey, ask: askMcpTrust }),
  });
  const tree = new McpServersTreeProvider(host);
  context.subscriptions.push(host, tree, vscode.window.createTreeView(Views.mcpServers, { treeDataProvider: tree }));

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.mcpRestartServer, (row?: McpTreeRow | string) => restartServer(host, row, 'Restart MCP Server')),
    // Trust… asks again (also about a server declined in this window) and starts the server on "Trust and Start".
    vscode.commands.registerCommand(Commands.mcpTrustServer, (row?: McpTreeRow | string) => restartServer(host, row, 'Trust MCP Server')),
    vscode.commands.registerCommand(Commands.mcpResetTrust, async () => {
      const count = await host.resetTrust();
      void vscode.window.showInformationMessage(
        `Arbor forgot ${count} MCP server ${count === 1 ? 'trust' : 'trusts'}: it asks again before it starts a server a workspace configures.`,
      );
    }),
    vscode.commands.registerCommand(Commands.mcpShowOutput, () => services.logger.channel.show(true)),
  );
  return host;
}

/** Restart and Trust…: the server of the row (or a picked one), asked about first when it waits for the person's OK. */
async function restartServer(host: McpHost, row: McpTreeRow | string | undefined, title: string): Promise<void> {
  const name = typeof row === 'string' ? row : (row?.server ?? (await pickServer(host, title)));
  if (!name) return;
  try {
    await host.restart(name);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof McpRestartError && error.reason === 'untrusted') {
      const choice = await vscode.window.showWarningMessage(message, 'Manage Workspace Trust');
      if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
    } else {
      void vscode.window.showErrorMessage(`Arbor: ${message}`);
    }
  }
}

async function pickServer(host: McpHost, title: string): Promise<string | undefined> {
  const names = await host.serverNames();
  if (names.length === 0) {
    void vscode.window.showInformationMessage('No MCP server is configured: add one to .vscode/mcp.json or to the arbor.mcp.servers setting.');
    return undefined;
  }
  return vscode.window.showQuickPick(names, { title, placeHolder: 'The server to start' });
}
