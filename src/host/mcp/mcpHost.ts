/**
 * The MCP servers of a window, for the chat and the MCP Servers view. It reads the configuration
 * (`.vscode/mcp.json` of each folder, the `arbor.mcp.servers` setting) when first asked and again when
 * it changes, and starts servers only when a chat first asks for tools, and a server the workspace
 * configures only once the person trusted it as configured (`McpServerTrust`). The MCP client (and its SDK)
 * loads then too, with `import()`: activation and a window that never uses tools never load it. A server
 * slow to start never holds a chat: a request waits for it a short grace, then goes with the tools ready.
 */
import * as vscode from 'vscode';
import type { McpServerConfig, McpServerTrust } from '../../core/index';
import type { McpClientsChange } from '../../core/mcp/index';
import { Settings } from '../base/constants';
import { Disposable, toDisposable } from '../base/lifecycle';
import type { OutputChannelLogger } from '../base/logger';
import type { OfferedTool } from '../tools/offeredTool';
import { planMcpServers, startableServers, type McpPlan } from './mcpPlan';
import { mcpServerRows, type McpTreeRow } from './mcpRows';
import type { McpRuntime } from './mcpRuntime';
import { MCP_JSON, mcpFolders, mcpSecretStore, promptMcpInput, readMcpSources } from './mcpWorkspace';

/** What the MCP host needs from the extension. */
export interface McpHostDeps {
  logger: OutputChannelLogger;
  secrets: vscode.SecretStorage;
  /** Whether the workspace is trusted (workspace-configured servers start only then). */
  trusted: () => boolean;
  /** Fires when the workspace becomes trusted. */
  onDidChangeTrust: vscode.Event<unknown>;
  /** Arbor's version, which it gives servers when it connects. */
  version: string;
  /** The person's OK for each server the workspace configures (kept in global state). */
  serverTrust: McpServerTrust;
}

/** Why a server cannot be restarted: not configured, or held back by workspace trust. */
export class McpRestartError extends Error {
  constructor(message: string, readonly reason: 'unknown' | 'untrusted') {
    super(message);
    this.name = 'McpRestartError';
  }
}

/** Time to gather the events of one save (a file watcher reports a create and a change) into one reload. */
const RELOAD_DELAY_MS = 150;

/** The MCP servers of the window: configuration, lazy starts, tools, states and restarts. */
export class McpHost extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  /** Fires when the configured servers, a server's state or a server's tools changed (the view redraws). */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidChangeTools = this._register(new vscode.EventEmitter<void>());
  /** Fires when the tools `tools()` would return may have changed (a server started, stopped or changed its tools). */
  readonly onDidChangeTools = this._onDidChangeTools.event;

  private planPromise?: Promise<McpPlan>;
  private runtimePromise?: Promise<McpRuntime>;
  private runtime?: McpRuntime;
  /** Set by the first `tools()`: from then on, configured servers start as soon as they are configured. */
  private active = false;
  private watchers: vscode.Disposable[] = [];
  private reloadTimer?: ReturnType<typeof setTimeout>;
  private shutdownPromise?: Promise<void>;

  constructor(private readonly deps: McpHostDeps) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${Settings.section}.${Settings.mcpServers}`)) this.scheduleReload();
      }),
    );
    this._register(deps.onDidChangeTrust(() => this.scheduleReload()));
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        if (this.planPromise) this.watchFolders();
        this.scheduleReload();
      }),
    );
    this._register(
      toDisposable(() => {
        if (this.reloadTimer) clearTimeout(this.reloadTimer);
        for (const watcher of this.watchers) watcher.dispose();
      }),
    );
  }

  /**
   * The tools for a request, as offered tools (`source: 'mcp'`): asks the person about servers the
   * workspace configures that wait for their OK, starts the configured servers not started yet, waits
   * for those starting at most `MCP_START_GRACE_MS` from when each began (or `graceMs`), and
   * answers with the tools of the servers running then. A server still starting goes on starting and
   * joins the next request (`onDidChangeTools` fires when its tools arrive); a failed one offers none (the
   * view shows why). Nothing configured costs nothing (the MCP client is not even loaded). Never rejects.
   */
  async tools(options: { graceMs?: number } = {}): Promise<OfferedTool[]> {
    if (this.isDisposed) return [];
    this.active = true;
    try {
      await this.askTrust(await this.plan());
      const runtime = await this.configuredRuntime();
      return runtime ? await runtime.tools(options) : [];
    } catch (error) {
      this.deps.logger.error('[MCP] Could not list the MCP servers’ tools', error);
      return [];
    }
  }

  /**
   * The tools of the servers running now, without starting, asking or waiting for anything: for the
   * context meter and the tools picker, which read it often. Empty until a request or `warmUp()` started
   * the servers; `onDidChangeTools` fires when it may have changed.
   */
  readyTools(): OfferedTool[] {
    return this.isDisposed ? [] : (this.runtime?.readyTools() ?? []);
  }

  /**
   * Starts the configured servers that may start without asking (the person's OK given before), and does
   * not wait for them: call it when a chat with tools opens, so their tools are ready by the first
   * request. Servers that wait for the person's OK wait for the first request, which asks. Never rejects.
   */
  async warmUp(): Promise<void> {
    if (this.isDisposed) return;
    this.active = true;
    try {
      await (await this.configuredRuntime())?.warmUp();
    } catch (error) {
      this.deps.logger.error('[MCP] Could not start the MCP servers', error);
    }
  }

  /** Whether a server is starting now (the view redraws while one is, as its row says for how long). */
  anyStarting(): boolean {
    return this.runtime?.anyStarting() ?? false;
  }

  /** The rows of the MCP Servers view: each configured server and its state, and configuration errors. */
  async rows(): Promise<McpTreeRow[]> {
    const plan = await this.plan();
    const statuses = this.runtime ? await this.runtime.statuses() : new Map();
    return mcpServerRows(plan, statuses, (config) => this.deps.serverTrust.state(config));
  }

  /** The names of the configured servers (for a pick list). */
  async serverNames(): Promise<string[]> {
    return (await this.plan()).servers.map((server) => server.config.name);
  }

  /**
   * Stops and starts server `name` (starts it, if it never started), e.g. after fixing what made it fail.
   * A server the workspace configures and the person has not trusted as configured is asked about first
   * (also when they declined it before: this is the Trust… action); resolves to `false` when they say no.
   * Throws `McpRestartError` when no server has that name or the workspace that configured it is not trusted.
   */
  async restart(name: string): Promise<boolean> {
    const plan = await this.plan();
    const server = plan.servers.find((s) => s.config.name === name);
    if (!server) throw new McpRestartError(`No MCP server is configured with the name "${name}". Check ${MCP_JSON} and the ${Settings.section}.${Settings.mcpServers} setting.`, 'unknown');
    if (server.blocked) {
      throw new McpRestartError(`MCP server "${name}" is configured by this workspace (${server.config.origin}), which is not trusted. Trust the workspace to start it.`, 'untrusted');
    }
    if (!(await this.deps.serverTrust.confirm(server.config, { again: true }))) {
      this._onDidChange.fire();
      return false;
    }
    // Read again: only the configuration as it is now, and trusted, starts.
    const current = this.startable(await this.plan());
    if (!current.some((s) => s.config.name === name)) return false;
    const runtime = await this.loadRuntime();
    // Not `start: this.active`: a server new to the runtime would start here and again in `restart`.
    await runtime.setServers(current, { start: false });
    await runtime.restart(name);
    this._onDidChange.fire();
    return true;
  }

  /** Forgets every MCP server trust (of every workspace) and stops the servers that needed one; returns how many there were. */
  async resetTrust(): Promise<number> {
    const count = await this.deps.serverTrust.forgetAll();
    await this.reload();
    return count;
  }

  /** Stops every server and waits until they have stopped (stdio servers' processes have ended). */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= (async () => {
      const runtime = await this.runtimePromise?.catch(() => undefined);
      await runtime?.dispose();
    })();
    return this.shutdownPromise;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    void this.shutdown().catch((error) => this.deps.logger.warn('[MCP] Stopping the MCP servers failed', error));
    super.dispose();
  }

  /** The plan of the current configuration, read on first use and after each change. */
  private plan(): Promise<McpPlan> {
    if (!this.planPromise) {
      if (this.watchers.length === 0) this.watchFolders();
      const reading = readMcpSources().then((sources) => {
        const plan = planMcpServers(sources, { workspaceTrusted: this.deps.trusted() });
        for (const error of plan.errors) this.deps.logger.warn(`[MCP] ${error.message}`);
        return plan;
      });
      this.planPromise = reading;
      reading.catch(() => {
        if (this.planPromise === reading) this.planPromise = undefined;
      });
    }
    return this.planPromise;
  }

  private watchFolders(): void {
    for (const watcher of this.watchers) watcher.dispose();
    this.watchers = mcpFolders().flatMap((folder) => {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, MCP_JSON));
      const reload = () => this.scheduleReload();
      return [watcher, watcher.onDidCreate(reload), watcher.onDidChange(reload), watcher.onDidDelete(reload)];
    });
  }

  private scheduleReload(): void {
    if (this.isDisposed) return;
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      this.reloadTimer = undefined;
      void this.reload();
    }, RELOAD_DELAY_MS);
  }

  /** Reads the configuration again and applies it: removed servers stop, changed ones restart, new ones start once tools were asked for. */
  private async reload(): Promise<void> {
    this.planPromise = undefined;
    this._onDidChange.fire();
    try {
      const plan = await this.plan();
      if (this.runtime && !this.isDisposed) {
        this.deps.logger.info(`[MCP] Configuration changed: ${plan.servers.length} server(s) configured`);
        await this.runtime.setServers(this.startable(plan), { start: this.active });
      }
    } catch (error) {
      this.deps.logger.error('[MCP] Could not apply the changed MCP configuration', error);
    }
    this._onDidChange.fire();
    this._onDidChangeTools.fire();
  }

  /**
   * The runtime, set to the servers that may start now (read again: the configuration may have changed
   * while a trust prompt was open); `undefined` when nothing may start and the MCP client is not loaded yet.
   */
  private async configuredRuntime(): Promise<McpRuntime | undefined> {
    const startable = this.startable(await this.plan());
    if (!this.runtime && startable.length === 0) return undefined;
    const runtime = await this.loadRuntime();
    await runtime.setServers(startable, { start: false });
    return runtime;
  }

  /** The servers of `plan` that may start now: not held back by workspace trust, and trusted as configured. */
  private startable(plan: McpPlan) {
    return startableServers(plan, (config) => this.deps.serverTrust.state(config) === 'trusted');
  }

  /**
   * Asks the person, one server at a time, about each server the workspace configures that waits for
   * their OK (not those declined in this window). Nothing of the plan starts before this settles.
   */
  private async askTrust(plan: McpPlan): Promise<void> {
    const waiting: McpServerConfig[] = plan.servers.filter((s) => !s.blocked && this.deps.serverTrust.state(s.config) === 'waiting').map((s) => s.config);
    for (const config of waiting) {
      if (this.isDisposed) return;
      const yes = await this.deps.serverTrust.confirm(config);
      this.deps.logger.info(`[MCP] Server "${config.name}" (${config.origin}): ${yes ? 'trusted' : 'not started: the person chose Don\'t Start'}`);
      this._onDidChange.fire();
    }
  }

  private loadRuntime(): Promise<McpRuntime> {
    if (!this.runtimePromise) {
      const loading = (async () => {
        // The build turns this import into dist/mcp.js, loaded here the first time.
        const { McpRuntime } = await import('./mcpRuntime').catch((error: unknown) => {
          throw new Error(`Arbor could not load its MCP client (dist/mcp.js): ${error instanceof Error ? error.message : String(error)}. Reinstall or rebuild the extension.`);
        });
        const runtime = new McpRuntime({
          logger: this.deps.logger,
          secrets: mcpSecretStore(this.deps.secrets),
          prompt: promptMcpInput,
          clientInfo: { name: 'arbor', version: this.deps.version },
        });
        runtime.onDidChange((change) => this.onRuntimeChange(change));
        this.runtime = runtime;
        // Shut down while loading: stop at once whatever starts later.
        if (this.shutdownPromise) await runtime.dispose();
        return runtime;
      })();
      this.runtimePromise = loading;
      loading.catch(() => {
        if (this.runtimePromise === loading) this.runtimePromise = undefined;
      });
    }
    return this.runtimePromise;
  }

  private onRuntimeChange(change: McpClientsChange): void {
    this._onDidChange.fire();
    if (change.kind === 'tools' || change.state.kind !== 'starting') this._onDidChangeTools.fire();
    if (change.kind === 'state' && change.state.kind === 'failed' && !this.isDisposed) {
      const { serverName } = change;
      void vscode.window.showWarningMessage(`Arbor: MCP server "${serverName}" failed: ${change.state.message}`, 'Show Output', 'Restart').then((choice) => {
        if (choice === 'Show Output') this.deps.logger.channel.show(true);
        if (choice === 'Restart') this.restart(serverName).catch((error) => void vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error)));
      });
    }
  }
}
