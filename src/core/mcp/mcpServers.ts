/**
 * Gathers the MCP servers Arbor may start from every place they are configured, and applies the
 * untrusted-workspace rule: servers the workspace's files configured are not started until the person
 * trusts the workspace.
 */
import { parseMcpJson, parseServers, type McpConfig, type McpInputDefinition, type McpServerConfig, type McpServerSource } from './mcpConfig';
import { McpConfigError } from './mcpErrors';

/** One value of the `arbor.mcp.servers` setting, at the level it was set. */
export interface McpSettingValue {
  value: unknown;
  /** `workspace` for the workspace (or folder) level of the setting, `user` for the person's own. */
  source: McpServerSource;
  origin?: string;
}

/** Everywhere servers can be configured; the host reads these and passes them in. */
export interface McpConfigSources {
  /** The text of the workspace's `.vscode/mcp.json`, when it has one. */
  workspaceFile?: { path: string; text: string };
  /** Values of the `arbor.mcp.servers` setting (a `servers` object), user level first. */
  settings?: McpSettingValue[];
}

/** What `collectMcpServers` found. */
export interface CollectedMcpServers {
  /** Servers that may start. A later source replaces an earlier server of the same name. */
  servers: McpServerConfig[];
  /** The `inputs` of the workspace file, for `${input:id}`. */
  inputs: McpInputDefinition[];
  /** Workspace servers not started because the workspace is not trusted. */
  blocked: McpServerConfig[];
  /** Sources that could not be read; the other sources still count. */
  errors: McpConfigError[];
}

/**
 * Reads every source in order (user setting, workspace setting, workspace file) and splits the servers
 * into those that may start and those `workspaceTrusted: false` blocks. A malformed source is reported in
 * `errors` and skipped as a whole, so one typo does not start half a file.
 */
export function collectMcpServers(sources: McpConfigSources, options: { workspaceTrusted: boolean }): CollectedMcpServers {
  const errors: McpConfigError[] = [];
  const byName = new Map<string, McpServerConfig>();
  let inputs: McpInputDefinition[] = [];
  const add = (config: McpConfig) => {
    for (const server of config.servers) {
      byName.delete(server.name);
      byName.set(server.name, server);
    }
  };
  const settings = [...(sources.settings ?? [])].sort((a, b) => (a.source === b.source ? 0 : a.source === 'user' ? -1 : 1));
  for (const setting of settings) {
    const origin = setting.origin ?? `setting arbor.mcp.servers (${setting.source})`;
    try {
      add({ servers: parseServers(setting.value, origin, setting.source, 'arbor.mcp.servers'), inputs: [] });
    } catch (error) {
      errors.push(asConfigError(error, origin));
    }
  }
  if (sources.workspaceFile) {
    try {
      const file = parseMcpJson(sources.workspaceFile.text, sources.workspaceFile.path, 'workspace');
      add(file);
      inputs = file.inputs;
    } catch (error) {
      errors.push(asConfigError(error, sources.workspaceFile.path));
    }
  }
  const all = [...byName.values()];
  const blocked = options.workspaceTrusted ? [] : all.filter((server) => server.source === 'workspace');
  return { servers: all.filter((server) => !blocked.includes(server)), inputs, blocked, errors };
}

function asConfigError(error: unknown, origin: string): McpConfigError {
  return error instanceof McpConfigError ? error : new McpConfigError(error instanceof Error ? error.message : String(error), origin);
}
