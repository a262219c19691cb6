/**
 * The running side of the MCP host: the connections (`McpClients`), the variable resolvers of each
 * folder, and the running servers' tools as `OfferedTool`s. No `vscode` here: the host hands in secret
 * storage, the input prompt and the logger. This module is where the MCP SDK enters the extension: the
 * host imports it with `import()` on first use, and the build makes it a bundle of its own (dist/mcp.js),
 * so activation never parses the SDK.
 */
import * as path from 'node:path';
import type { Logger } from '../../core/index';
import {
  mcpDisplayName,
  McpClients,
  McpServerError,
  McpVariableResolver,
  type McpClientsChange,
  type McpInputPrompter,
  type McpServerConfig,
  type McpServerState,
  type SecretStore,
} from '../../core/mcp/index';
import type { OfferedTool } from '../tools/offeredTool';
import type { PlannedMcpServer } from './mcpPlan';

/** A tool of a running server, as the view lists it. */
export interface McpToolSummary {
  name: string;
  /** `server › tool`. */
  displayName: string;
  description: string;
}

/** What the runtime knows of a configured server. */
export interface McpServerStatus {
  state: McpServerState;
  /** Its tools while it runs; empty otherwise. */
  tools: McpToolSummary[];
}

/** What the runtime needs from the host. */
export interface McpRuntimeOptions {
  logger: Logger;
  /** Where `password: true` inputs are kept (VS Code's SecretStorage). */
  secrets: SecretStore;
  /** Asks the person for an input's value. */
  prompt: McpInputPrompter;
  /** How Arbor introduces itself to servers. */
  clientInfo?: { name: string; version: string };
  /** The environment `${env:NAME}` reads (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The MCP connections of a window. `setServers` makes them match the plan, starting servers only when
 * asked (`start: true`, `tools()` or `warmUp()`), so nothing runs until a chat wants tools. Operations
 * that change the set run one at a time, in order; starts run beside them, so a server slow to start
 * holds neither a restart nor a change of configuration.
 */
export class McpRuntime {
  private readonly clients: McpClients;
  /** Fires when a server's state or its tools changed. */
  readonly onDidChange: (listener: (change: McpClientsChange) => void) => { dispose(): void };
  private planned = new Map<string, PlannedMcpServer>();
  /** One resolver per folder and set of inputs, kept while the plan uses it, so an input is asked for once. */
  private resolvers = new Map<string, McpVariableResolver>();
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(private readonly options: McpRuntimeOptions) {
    this.clients = new McpClients({ logger: options.logger, clientInfo: options.clientInfo, resolve: (config) => this.resolve(config) });
    this.onDidChange = this.clients.onDidChange;
  }

  /**
   * Makes the connections match `servers` (those not `blocked`; blocked ones are ignored): removed servers
   * stop, changed ones are set up anew. With `start`, every server not running yet starts (a failed one
   * stays failed); without, new and changed ones wait for `tools()` or `restart`. Resolves when the
   * starts have settled (they run outside the queue: a later operation does not wait for them).
   */
  async setServers(servers: readonly PlannedMcpServer[], options: { start: boolean }): Promise<void> {
    let started: Promise<void> = Promise.resolve();
    await this.serial(async () => {
      const startable = servers.filter((server) => !server.blocked);
      this.planned = new Map(startable.map((server) => [server.config.name, server]));
      const keys = new Set(startable.map(resolverKey));
      for (const key of this.resolvers.keys()) if (!keys.has(key)) this.resolvers.delete(key);
      await this.clients.setServers(
        startable.map((server) => server.config),
        { start: false },
      );
      if (options.start) started = this.clients.startStopped();
      // Disposed meanwhile: stop what this call added after dispose() had stopped the rest.
      if (this.disposed) await this.clients.dispose();
    });
    await started;
  }

  /**
   * The tools of the servers ready for a request: starts the servers not started yet (a failed server
   * stays failed and offers none), waits for those starting at most `graceMs` from when each began
   * (`McpClients.startedWithin`), then answers with the running servers' tools. A server still starting
   * goes on in the background; its tools come with a change event and join the next request. Wire names
   * are unique across servers and stable from one call to the next.
   */
  async tools(options: { graceMs?: number } = {}): Promise<OfferedTool[]> {
    if (this.disposed) return [];
    await this.warmUp();
    await this.clients.startedWithin(options.graceMs);
    return this.readyTools();
  }

  /** Starts the servers not started yet, without waiting for them (e.g. when a chat with tools opens). */
  async warmUp(): Promise<void> {
    await this.serial(async () => void this.clients.startStopped());
  }

  /** The tools of the servers running now, as listed last: starts nothing, asks no server, waits for nothing. */
  readyTools(): OfferedTool[] {
    if (this.disposed) return [];
    return this.clients.readyTools().map((tool) => ({ tool, source: 'mcp', displayName: tool.displayName, server: tool.serverName, ownName: tool.toolName }));
  }

  /** Whether any server is starting now. */
  anyStarting(): boolean {
    return !this.disposed && this.clients.anyStarting();
  }

  /** Each configured server's state and, while it runs, its tools. */
  async statuses(): Promise<Map<string, McpServerStatus>> {
    const out = new Map<string, McpServerStatus>();
    for (const connection of this.clients.connections()) {
      const state = connection.state;
      const tools = state.kind === 'running' ? await connection.listTools().catch(() => []) : [];
      out.set(connection.name, {
        state,
        tools: tools.map((tool) => ({ name: tool.name, displayName: mcpDisplayName(connection.name, tool.name), description: tool.description ?? tool.title ?? '' })),
      });
    }
    return out;
  }

  /**
   * Stops and starts one server (starts it, if it never started); resolves with the state its start
   * ends in. The start runs outside the queue. Throws `McpServerError` for an unknown name.
   */
  async restart(name: string): Promise<McpServerState> {
    const { started } = await this.serial(async () => {
      const connection = this.clients.get(name);
      if (!connection) throw new McpServerError(`No MCP server is configured with the name "${name}".`, name);
      await connection.stop();
      return { started: connection.start() };
    });
    return started;
  }

  /**
   * Stops every server (stdio servers' processes end). It does not wait for work in progress, which may
   * wait on an input prompt; a start still in progress is stopped when it completes.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.clients.dispose();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(() => {
      if (this.disposed) throw new McpServerError('MCP servers were shut down (the window is closing or Arbor was disabled).', '');
      return work();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Replaces the variables of a server about to start; a stdio server runs in its folder unless it says otherwise. */
  private async resolve(config: McpServerConfig): Promise<McpServerConfig> {
    const planned = this.planned.get(config.name);
    if (!planned) throw new McpServerError(`MCP server "${config.name}" is no longer configured.`, config.name);
    const key = resolverKey(planned);
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      const { secrets, prompt, env } = this.options;
      resolver = new McpVariableResolver({ inputs: planned.inputs, workspaceFolder: planned.folder, secrets, prompt, env });
      this.resolvers.set(key, resolver);
    }
    const resolved = await resolver.resolve(config);
    if (resolved.type !== 'stdio' || planned.folder === undefined) return resolved;
    return { ...resolved, cwd: resolved.cwd === undefined ? planned.folder : path.resolve(planned.folder, resolved.cwd) };
  }
}

function resolverKey(server: PlannedMcpServer): string {
  return JSON.stringify([server.folder ?? null, server.inputs]);
}
