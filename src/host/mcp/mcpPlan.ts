/**
 * Which MCP servers a window has: the `.vscode/mcp.json` of each workspace folder and the
 * `arbor.mcp.servers` setting, merged into one list that says, for each server, which folder
 * `${workspaceFolder}` means, which `inputs` it may use, and whether workspace trust holds it back.
 * Plain TypeScript (no `vscode`, no MCP SDK), so the view can list servers without loading the client.
 */
import { collectMcpServers, McpConfigError, type McpInputDefinition, type McpServerConfig, type McpSettingValue } from '../../core/index';

/** A workspace folder: its path on disk, and its `.vscode/mcp.json` when it has one. */
export interface McpFolder {
  path: string;
  mcpJson?: { path: string; text: string };
}

/** Everything the host read; `readErrors` are files that exist but could not be read. */
export interface McpHostSources {
  /** The workspace folders in order; the first is where a setting's servers run. */
  folders: readonly McpFolder[];
  /** Values of the `arbor.mcp.servers` setting, at each level it is set. */
  settings: readonly McpSettingValue[];
  readErrors?: readonly McpConfigError[];
}

/** One configured server with what starting it needs. */
export interface PlannedMcpServer {
  config: McpServerConfig;
  /**
   * What `${workspaceFolder}` means and where a stdio server runs: the folder of its `mcp.json`, or the
   * first folder for a server of the setting; `undefined` with no folder open.
   */
  folder?: string;
  /** The `inputs` its `${input:id}` may name: those of its file (a setting's server: the first folder's). */
  inputs: readonly McpInputDefinition[];
  /** The workspace configured it and is not trusted: it does not start until the workspace is trusted. */
  blocked: boolean;
}

/** The servers of a window, in configuration order, and the sources that could not be used. */
export interface McpPlan {
  servers: PlannedMcpServer[];
  errors: McpConfigError[];
}

/**
 * Merges the sources as `collectMcpServers` does for one folder (user setting, then workspace setting,
 * then the first folder's file, a later one replacing a server of the same name), then adds the servers
 * of the other folders' files. A name a later folder uses again is an error for that server (the first
 * one is kept), since tools and the view tell servers apart by name.
 */
export function planMcpServers(sources: McpHostSources, options: { workspaceTrusted: boolean }): McpPlan {
  const [first, ...others] = sources.folders;
  const errors = [...(sources.readErrors ?? [])];
  const servers: PlannedMcpServer[] = [];
  const add = (collected: ReturnType<typeof collectMcpServers>, folder: string | undefined) => {
    errors.push(...collected.errors);
    const entries = [...collected.servers.map((config) => ({ config, blocked: false })), ...collected.blocked.map((config) => ({ config, blocked: true }))];
    for (const { config, blocked } of entries) {
      const taken = servers.find((server) => server.config.name === config.name);
      if (taken) {
        errors.push(
          new McpConfigError(`a server named "${config.name}" is already configured in ${taken.config.origin}; give one of them another name to use both.`, config.origin, `servers.${config.name}`),
        );
        continue;
      }
      servers.push({ config, folder, inputs: collected.inputs, blocked });
    }
  };
  add(collectMcpServers({ settings: [...sources.settings], workspaceFile: first?.mcpJson }, options), first?.path);
  for (const folder of others) {
    if (folder.mcpJson) add(collectMcpServers({ workspaceFile: folder.mcpJson }, options), folder.path);
  }
  return { servers, errors };
}

/**
 * The servers of `plan` that may start: not held back by workspace trust, and `trusted` as configured
 * (a server the workspace configures waits for the person's OK, see `McpServerTrust`).
 */
export function startableServers(plan: McpPlan, trusted: (config: McpServerConfig) => boolean): PlannedMcpServer[] {
  return plan.servers.filter((server) => !server.blocked && trusted(server.config));
}
