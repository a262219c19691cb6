/**
 * Every configured MCP server of a window: starts what the configuration lists, stops what it no longer
 * lists, restarts what changed, and offers the running servers' tools as Arbor tools. A server slow to
 * start holds nobody for long: `startedWithin` waits for starts at most a grace from when they began.
 */
import { Emitter, type ArborEvent } from '../emitter';
import type { Disposable } from '../files';
import type { McpServerConfig } from './mcpConfig';
import { McpServerConnection, type McpConnectionOptions, type McpServerState } from './mcpConnection';
import { McpServerError } from './mcpErrors';
import { MCP_START_GRACE_MS } from './mcpTimes';
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

  /**
   * Waits until every server that is starting is running or failed, or has been connecting for
   * `graceMs` (from when its connection began, so a server that has been starting for longer is not
   * waited for at all). A server waiting for the person's answers to its inputs is waited for until they
   * answer, as they may be typing its API key for this very request. Starts nothing; never rejects.
   */
  async startedWithin(graceMs = MCP_START_GRACE_MS): Promise<void> {
    await Promise.all(this.connections().map((connection) => startedWithin(connection, graceMs)));
  }

  /** Whether any server is starting (e.g. to redraw a view that shows for how long). */
  anyStarting(): boolean {
    return this.connections().some((connection) => connection.state.kind === 'starting');
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

  /**
   * The tools of the servers running now as Arbor tools, with unique wire names, from what each listed
   * last: no request, nothing started, so a meter or a picker can read it on every keystroke.
   */
  readyTools(): McpArborTool[] {
    const running = this.connections().filter((connection) => connection.state.kind === 'running');
    return toArborTools(running.map((connection) => ({ connection, tools: connection.readyTools })));
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

/** Resolves once `connection` is not starting, or has been connecting for `graceMs`; see `McpClients.startedWithin`. */
function startedWithin(connection: McpServerConnection, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const check = () => {
      clearTimeout(timer);
      const state = connection.state;
      if (state.kind !== 'starting') return done();
      if (state.step === 'inputs') return; // the next state change checks again
      const left = state.since + graceMs - Date.now();
      if (left <= 0) return done();
      timer = setTimeout(check, left);
    };
    const subscription: Disposable = connection.onDidChangeState(check);
    check();
  });
}

/** What decides whether a server must restart: everything but where it was configured. */
function configKey(config: McpServerConfig): string {
  const { origin: _origin, ...rest } = config;
  return JSON.stringify(rest);
}
