/**
 * One MCP server, on the official SDK: started over stdio or Streamable HTTP (falling back to SSE),
 * with a state the UI can show (starting, running, failed with the tail of its stderr, stopped), a
 * restart, its tools kept current through `notifications/tools/list_changed`, and tool calls that an
 * `AbortSignal` cancels on the server too (`notifications/cancelled`).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type ArborEvent } from '../emitter';
import type { Logger } from '../files';
import type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from './mcpConfig';
import { McpServerError } from './mcpErrors';
import { parseEnvFile } from './mcpVariables';

/** How a running server is reached. */
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

/** A server's state, for the UI and the log. */
export type McpServerState =
  | { kind: 'stopped' }
  | { kind: 'starting' }
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
    const client = this.client;
    this.client = undefined;
    this.tools = undefined;
    await client?.close().catch((error: unknown) => this.log('warn', `closing failed: ${String(error)}`));
    this.setState({ kind: 'stopped' });
  }

  /** Stops and starts again, e.g. after the server failed or its files changed. */
  async restart(): Promise<McpServerState> {
    await this.stop();
    return this.start();
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
    this.setState({ kind: 'starting' });
    this.log('info', `starting (${this.config.type === 'stdio' ? `${this.config.command} ${this.config.args.join(' ')}`.trim() : this.config.url})`);
    let client: Client | undefined;
    try {
      const config = this.options.resolve ? await this.options.resolve(this.config) : this.config;
      const connected = config.type === 'stdio' ? await this.connectStdio(config) : await this.connectHttp(config);
      client = connected.client;
      if (generation !== this.generation) {
        await client.close();
        return this._state;
      }
      this.client = client;
      this.watch(client, generation);
      const info = client.getServerVersion();
      this.tools = await this.fetchTools(client);
      if (generation !== this.generation) return this._state;
      this.setState({ kind: 'running', transport: connected.transport, serverName: info?.name, serverVersion: info?.version });
      this.log('info', `running over ${connected.transport}${info ? ` (${info.name} ${info.version})` : ''}, ${this.tools.length} tools`);
      this._onDidChangeTools.fire(this.tools);
    } catch (error) {
      if (generation !== this.generation) return this._state;
      this.client = undefined;
      await client?.close().catch(() => undefined);
      await this.stderrSettled();
      if (generation !== this.generation) return this._state;
      this.fail(`could not start: ${describe(error)}`);
    }
    return this._state;
  }

  private async connectStdio(config: McpStdioServerConfig): Promise<{ client: Client; transport: McpTransportKind }> {
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
    await client.connect(transport);
    return { client, transport: 'stdio' };
  }

  private async connectHttp(config: McpHttpServerConfig): Promise<{ client: Client; transport: McpTransportKind }> {
    const url = new URL(config.url);
    const requestInit: RequestInit = { headers: config.headers };
    let streamableError: unknown;
    if (config.type === 'http') {
      const client = this.newClient();
      try {
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
        return { client, transport: 'streamable-http' };
      } catch (error) {
        streamableError = error;
        await client.close().catch(() => undefined);
        this.log('info', `Streamable HTTP failed (${describe(error)}); trying SSE`);
      }
    }
    const client = this.newClient();
    try {
      await client.connect(new SSEClientTransport(url, { requestInit }));
    } catch (error) {
      await client.close().catch(() => undefined);
      if (streamableError === undefined) throw error;
      throw new Error(`Streamable HTTP: ${describe(streamableError)}; SSE: ${describe(error)}`, { cause: error });
    }
    return { client, transport: 'sse' };
  }

  private newClient(): Client {
    return new Client(this.options.clientInfo ?? DEFAULT_CLIENT, { capabilities: {} });
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

  private async fetchTools(client: Client): Promise<McpToolInfo[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
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
