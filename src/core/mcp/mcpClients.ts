/**
 * Every configured MCP server of a window: starts what the configuration lists, stops what it no longer
 * lists, restarts what changed, and offers the running servers' tools as Arbor tools.
 */
import { Emitter, type ArborEvent } from '../emitter';
import type { Disposable } from '../files';
import type { McpServerConfig } from './mcpConfig';
import { McpServerConnection, type McpConnectionOptions, type McpServerState } from './mcpConnection';
import { McpServerError } from './mcpErrors';
import { toArborTools, type McpArborTool } from './mcpTools';

/** What changed: a server's state, or the tools of a server. */
export type McpClientsChange = { serverName: string; kind: 'state'; state: McpServerState } | { serverName: string; kind: 'tools' };

/** The MCP servers of a window and their connections. */
export class McpClients {
  private readonly _onDidChange = new Emitter<McpClientsChange>();
  /** Fires when any server's state or tools change (for a status view and the tool list). */
  readonly onDidChange: ArborEvent<McpClientsChange> = this._onDidChange.event;
  private readonly entries = new Map<string, { connection: McpServerConnection; key: string; subscriptions: Disposable[] }>();

  constructor(private readonly options: McpConnectionOptions = {}) {}

  /**
   * Makes the running set match `configs`: new servers start, removed ones stop, changed ones restart,
   * unchanged ones are left alone. Resolves when every start has settled (a failed start is a state).
   * With `start: false`, new and changed servers are only configured (state `stopped`), for a host that
   * starts servers when tools are first asked for (`startStopped`) rather than when they are configured.
   */
  async setServers(configs: readonly McpServerConfig[], options: { start?: boolean } = {}): Promise<void> {
    const wanted = new Map(configs.map((config) => [config.name, config]));
    const work: Promise<unknown>[] = [];
    for (const [name, entry] of this.entries) {
      const config = wanted.get(name);
      if (!config || configKey(config) !== entry.key) work.push(this.remove(name));
    }
    await Promise.all(work);
    const starts: Promise<unknown>[] = [];
    for (const config of configs) {
      if (this.entries.has(config.name)) continue;
      const connection = new McpServerConnection(config, this.options);
      const subscriptions = [
        connection.onDidChangeState((state) => this._onDidChange.fire({ serverName: config.name, kind: 'state', state })),
        connection.onDidChangeTools(() => this._onDidChange.fire({ serverName: config.name, kind: 'tools' })),
      ];
      this.entries.set(config.name, { connection, key: configKey(config), subscriptions });
      if (options.start !== false) starts.push(connection.start());
    }
    await Promise.all(starts);
  }

  /**
   * Starts every configured server that is stopped (configured with `start: false` and not started
   * since), and waits for those already starting. A failed server stays failed: only `restart` tries it
   * again, so a broken server is not started anew, and its inputs asked for again, each time tools are
   * listed. Resolves when the starts have settled.
   */
  async startStopped(): Promise<void> {
    const pending = this.connections().filter((connection) => connection.state.kind === 'stopped' || connection.state.kind === 'starting');
    await Promise.all(pending.map((connection) => connection.start()));
  }

  /** The connection of `name`, if configured. */
  get(name: string): McpServerConnection | undefined {
    return this.entries.get(name)?.connection;
  }

  /** Every configured server's connection, in configuration order. */
  connections(): McpServerConnection[] {
    return [...this.entries.values()].map((entry) => entry.connection);
  }

  /** Restarts one server (the Restart action of the UI). */
  async restart(name: string): Promise<McpServerState> {
    const connection = this.get(name);
    if (!connection) throw new McpServerError(`No MCP server is configured with the name "${name}".`, name);
    return connection.restart();
  }

  /** The tools of every running server as Arbor tools, with unique wire names. */
  async tools(): Promise<McpArborTool[]> {
    const running = this.connections().filter((connection) => connection.state.kind === 'running');
    const listed = await Promise.all(
      running.map(async (connection) => ({ connection, tools: await connection.listTools().catch(() => []) })),
    );
    return toArborTools(listed);
  }

  /** Stops every server. */
  async dispose(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((name) => this.remove(name)));
    this._onDidChange.dispose();
  }

  private async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    await entry.connection.stop();
    for (const subscription of entry.subscriptions) subscription.dispose();
  }
}

/** What decides whether a server must restart: everything but where it was configured. */
function configKey(config: McpServerConfig): string {
  const { origin: _origin, ...rest } = config;
  return JSON.stringify(rest);
}
