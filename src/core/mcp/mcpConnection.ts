/**
 * One MCP server, on the official SDK: started over stdio or Streamable HTTP (falling back to SSE),
 * with a state the UI can show (starting, running, failed with the tail of its stderr, stopped), a
 * restart, its tools kept current through `notifications/tools/list_changed`, and tool calls that an
 * `AbortSignal` cancels on the server too (`notifications/cancelled`). A start says what it waits for
 * (the person's inputs, the server's answer to `initialize`, its tool list) and since when, and gives up
 * after `MCP_INITIALIZE_TIMEOUT_MS`, so a server that never answers ends as failed with a clear message.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type ArborEvent } from '../emitter';
import type { Logger } from '../files';
import type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from './mcpConfig';
import { McpServerError } from './mcpErrors';
import { MCP_INITIALIZE_TIMEOUT_MS } from './mcpTimes';
import { parseEnvFile } from './mcpVariables';

/** How a running server is reached. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

/**
 * What a starting server waits for: the person's answers to its inputs (`${input:…}`), its answer to
 * `initialize` (for a stdio server this includes the program's own start), or its tool list.
 */
export type McpStartStep = 'inputs' | 'initialize' | 'tools';

/** A server's state, for the UI and the log. */
export type McpServerState =
  | { kind: 'stopped' }
  /**
   * `since` is when the connection began (after the inputs; `Date.now()` ms), `stepSince` when the
   * current step began: "no answer to initialize after 12 s" reads both.
   */
  | { kind: 'starting'; step: McpStartStep; since: number; stepSince: number }
  | { kind: 'running'; transport: McpTransportKind; serverName?: string; serverVersion?: string }
  /** `stderr` is the end of what the server wrote to stderr (stdio servers), often the real reason. */
  | { kind: 'failed'; message: string; stderr: string };

/** A tool as the server lists it (name, description, JSON schema, annotations). */
export type McpToolInfo = Tool;

/** Options of a connection; all optional. */
export interface McpConnectionOptions {
  logger?: Logger;
  /** Replaces variables (`${input:…}`…) before each start; see `McpVariableResolver`. */
  resolve?: (config: McpServerConfig) => Promise<McpServerConfig>;
  clientInfo?: { name: string; version: string };
  /** Characters of stderr kept for a failed state (default 4000). */
  stderrTailChars?: number;
  /** Longest a tool call may take before it is cancelled, in ms (default 10 minutes; progress resets it). */
  callTimeoutMs?: number;
  /** Longest the server may take to answer `initialize`, and then to list its tools, in ms (default `MCP_INITIALIZE_TIMEOUT_MS`). */
  initializeTimeoutMs?: number;
}

const DEFAULT_CLIENT = { name: 'arbor', version: '0.1.0' };

/** One configured MCP server and its connection. Create it stopped; `start()` connects. */
export class McpServerConnection {
  private readonly _onDidChangeState = new Emitter<McpServerState>();
  /** Fires on every state change. */
  readonly onDidChangeState: ArborEvent<McpServerState> = this._onDidChangeState.event;
  private readonly _onDidChangeTools = new Emitter<readonly McpToolInfo[]>();
  /** Fires with the new list when the server's tools change (a list_changed notification, or a start). */
  readonly onDidChangeTools: ArborEvent<readonly McpToolInfo[]> = this._onDidChangeTools.event;

  private _state: McpServerState = { kind: 'stopped' };
  private client: Client | undefined;
  /** The client of a start in progress, until it connected: `stop()` closes it, so a silent server's process ends at once. */
  private pending: Client | undefined;
  private tools: McpToolInfo[] | undefined;
  private stderrTail = '';
  private generation = 0;
  private starting: Promise<McpServerState> | undefined;
  /** Settles when a stdio server's stderr ends, so a failure can report all of it. */
  private stderrEnded: Promise<void> = Promise.resolve();

  constructor(readonly config: McpServerConfig, private readonly options: McpConnectionOptions = {}) {}

  /** The server's name in the configuration. */
  get name(): string {
    return this.config.name;
  }

  get state(): McpServerState {
    return this._state;
  }

  /** Connects, unless already running or starting; resolves with the resulting state (never rejects). */
  start(): Promise<McpServerState> {
    if (this._state.kind === 'running') return Promise.resolve(this._state);
    if (!this.starting) {
      const starting = this.connect(++this.generation).finally(() => {
        if (this.starting === starting) this.starting = undefined;
      });
      this.starting = starting;
    }
    return this.starting;
  }

  /** Disconnects (a stdio server's process is ended) and sets the state to stopped. */
  async stop(): Promise<void> {
    this.generation++;
    this.starting = undefined;
    const clients = [this.client, this.pending];
    this.client = undefined;
    this.pending = undefined;
    this.tools = undefined;
    await Promise.all(clients.map((client) => client?.close().catch((error: unknown) => this.log('warn', `closing failed: ${String(error)}`))));
    this.setState({ kind: 'stopped' });
  }

  /** Stops and starts again, e.g. after the server failed or its files changed. */
  async restart(): Promise<McpServerState> {
    await this.stop();
    return this.start();
  }

  /** The tools of the running server as last listed (no request); empty when it is not running. */
  get readyTools(): readonly McpToolInfo[] {
    return this._state.kind === 'running' ? (this.tools ?? []) : [];
  }

  /** The server's tools (cached; kept current by list_changed). Rejects when the server is not running. */
  async listTools(): Promise<readonly McpToolInfo[]> {
    const client = this.runningClient();
    this.tools ??= await this.fetchTools(client);
    return this.tools;
  }

  /**
   * Calls a tool. Aborting `signal` rejects at once with the signal's reason and tells the server to stop
   * (`notifications/cancelled`). A tool that fails returns a result with `isError: true`, as MCP says.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = this.runningClient();
    signal?.throwIfAborted();
    const timeout = this.options.callTimeoutMs ?? 600_000;
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal, timeout, resetTimeoutOnProgress: true });
      return result as CallToolResult;
    } catch (error) {
      // The SDK wraps the abort in an McpError; callers expect the signal's own reason (an AbortError).
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }

  /** Stops the server and drops every listener. */
  async dispose(): Promise<void> {
    await this.stop();
    this._onDidChangeState.dispose();
    this._onDidChangeTools.dispose();
  }

  private runningClient(): Client {
    if (this._state.kind !== 'running' || !this.client) {
      const why = this._state.kind === 'failed' ? ` It failed: ${this._state.message}` : ` It is ${this._state.kind}.`;
      throw new McpServerError(`MCP server "${this.name}" is not running.${why} Restart it to try again.`, this.name);
    }
    return this.client;
  }

  private async connect(generation: number): Promise<McpServerState> {
    this.stderrTail = '';
    const began = Date.now();
    this.setState({ kind: 'starting', step: this.options.resolve ? 'inputs' : 'initialize', since: began, stepSince: began });
    this.log('info', `starting (${this.config.type === 'stdio' ? `${this.config.command} ${this.config.args.join(' ')}`.trim() : this.config.url})`);
    let client: Client | undefined;
    const timeout = this.options.initializeTimeoutMs ?? MCP_INITIALIZE_TIMEOUT_MS;
    try {
      const config = this.options.resolve ? await this.options.resolve(this.config) : this.config;
      if (generation !== this.generation) return this._state;
      const since = this.options.resolve ? Date.now() : began;
      if (this.options.resolve) this.setState({ kind: 'starting', step: 'initialize', since, stepSince: since });
      const connected = config.type === 'stdio' ? await this.connectStdio(config, timeout) : await this.connectHttp(config, timeout);
      client = connected.client;
      if (generation !== this.generation) {
        if (this.pending === client) this.pending = undefined;
        await client.close();
        return this._state;
      }
      this.pending = undefined;
      this.client = client;
      this.watch(client, generation);
      const info = client.getServerVersion();
      this.setState({ kind: 'starting', step: 'tools', since, stepSince: Date.now() });
      this.tools = await this.fetchTools(client, timeout);
      if (generation !== this.generation) return this._state;
      this.setState({ kind: 'running', transport: connected.transport, serverName: info?.name, serverVersion: info?.version });
      this.log('info', `running over ${connected.transport}${info ? ` (${info.name} ${info.version})` : ''}, ${this.tools.length} tools`);
      this._onDidChangeTools.fire(this.tools);
    } catch (error) {
      if (generation !== this.generation) return this._state;
      const step = this._state.kind === 'starting' ? this._state.step : 'initialize';
      this.client = undefined;
      this.pending = undefined;
      await client?.close().catch(() => undefined);
      await this.stderrSettled();
      if (generation !== this.generation) return this._state;
      this.fail(`could not start: ${describeStartError(error, step, timeout)}`);
    }
    return this._state;
  }

  private async connectStdio(config: McpStdioServerConfig, timeout: number): Promise<{ client: Client; transport: McpTransportKind }> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    if (config.envFile) {
      const file = path.resolve(config.cwd ?? process.cwd(), config.envFile);
      Object.assign(env, parseEnvFile(await fs.readFile(file, 'utf8')));
    }
    for (const [key, value] of Object.entries(config.env)) {
      if (value === null) delete env[key];
      else env[key] = value;
    }
    const transport = new StdioClientTransport({ command: config.command, args: config.args, env, cwd: config.cwd, stderr: 'pipe' });
    const stderr = transport.stderr;
    stderr?.on('data', (chunk: Buffer) => this.onStderr(chunk.toString('utf8')));
    this.stderrEnded = new Promise((resolve) => stderr?.once('end', resolve));
    const client = this.newClient();
    await client.connect(transport, { timeout });
    return { client, transport: 'stdio' };
  }

  private async connectHttp(config: McpHttpServerConfig, timeout: number): Promise<{ client: Client; transport: McpTransportKind }> {
    const url = new URL(config.url);
    const requestInit: RequestInit = { headers: config.headers };
    let streamableError: unknown;
    if (config.type === 'http') {
      const client = this.newClient();
      try {
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit }), { timeout });
        return { client, transport: 'streamable-http' };
      } catch (error) {
        streamableError = error;
        await client.close().catch(() => undefined);
        this.log('info', `Streamable HTTP failed (${describe(error)}); trying SSE`);
      }
    }
    const client = this.newClient();
    try {
      await client.connect(new SSEClientTransport(url, { requestInit }), { timeout });
    } catch (error) {
      await client.close().catch(() => undefined);
      if (streamableError === undefined) throw error;
      throw new Error(`Streamable HTTP: ${describe(streamableError)}; SSE: ${describe(error)}`, { cause: error });
    }
    return { client, transport: 'sse' };
  }

  private newClient(): Client {
    const client = new Client(this.options.clientInfo ?? DEFAULT_CLIENT, { capabilities: {} });
    this.pending = client;
    return client;
  }

  private watch(client: Client, generation: number): void {
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.log('debug', 'tools changed; listing them again');
      try {
        const tools = await this.fetchTools(client);
        if (generation !== this.generation) return;
        this.tools = tools;
        this._onDidChangeTools.fire(tools);
      } catch (error) {
        this.log('warn', `could not list the changed tools: ${describe(error)}`);
      }
    });
    client.onerror = (error) => this.log('warn', describe(error));
    client.onclose = () => {
      if (generation !== this.generation || this.client !== client) return;
      this.client = undefined;
      this.tools = undefined;
      void this.stderrSettled().then(() => {
        if (generation === this.generation) this.fail('the connection closed (the server exited or dropped it)');
      });
    };
  }

  private async fetchTools(client: Client, timeout?: number): Promise<McpToolInfo[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, timeout === undefined ? undefined : { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Waits for the rest of stderr, at most a second (a program that never started has none). */
  private async stderrSettled(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.stderrEnded, new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
  }

  private onStderr(text: string): void {
    const max = this.options.stderrTailChars ?? 4000;
    this.stderrTail = (this.stderrTail + text).slice(-max);
    for (const line of text.split(/\r?\n/)) if (line.trim()) this.log('debug', `stderr: ${line}`);
  }

  private fail(message: string): void {
    this.log('error', `${message}${this.stderrTail ? `\n${this.stderrTail.trimEnd()}` : ''}`);
    this.setState({ kind: 'failed', message, stderr: this.stderrTail });
  }

  private setState(state: McpServerState): void {
    this._state = state;
    this._onDidChangeState.fire(state);
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', message: string): void {
    this.options.logger?.[level](`[MCP ${this.name}] ${message}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a start failed; the SDK's timeout ("Request timed out") becomes which request went unanswered, and for how long. */
function describeStartError(error: unknown, step: McpStartStep, timeoutMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout && step !== 'inputs') {
    const request = step === 'tools' ? 'tools/list' : 'initialize';
    const within = timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
    return `no answer to ${request} within ${within} (${error.message})`;
  }
  return describe(error);
}
