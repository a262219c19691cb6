/**
 * The rows of the MCP Servers view, from the plan (what is configured) and the runtime's statuses (what
 * runs): one row per server with its state, its tools as child rows, and a row per configuration error.
 * A server slow to start says what it waits for and since when. Pure, so the wording is unit tested
 * without VS Code.
 */
import { MCP_INITIALIZE_TIMEOUT_MS, type McpConfigError, type McpServerConfig, type McpTrustState } from '../../core/index';
import type { McpServerState } from '../../core/mcp/index';
import { McpItemContext } from '../base/constants';
import type { McpPlan, PlannedMcpServer } from './mcpPlan';
import type { McpServerStatus } from './mcpRuntime';

/** One row of the view; the view turns it into a `TreeItem` as it is. */
export interface McpTreeRow {
  /** Stable across redraws, so an expanded server stays expanded. */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** A codicon id, e.g. `error`. */
  icon: string;
  /** A theme color id for the icon, e.g. `errorForeground`. */
  iconColor?: string;
  /** The `viewItem` of menus (`McpItemContext`). */
  contextValue: string;
  /** The server a row belongs to (server and tool rows), for the Restart action. */
  server?: string;
  /** The row shows a time that grows (a server starting): the view redraws it every few seconds. */
  ticking?: boolean;
  children: McpTreeRow[];
}

/** Lines of a failed server's stderr the tooltip shows (its end, where the reason usually is). */
const STDERR_LINES = 20;
const LINE_CHARS = 300;

/** A start shorter than this shows as plain "starting…"; after it, the row says what the server has not answered, and for how long. */
const SLOW_START_MS = 2_000;

/** A server the person's OK decides: waiting for it, or declined in this window. */
const WAITING = 'waiting for your OK';

/**
 * The rows of the view: servers in configuration order, then the configuration errors. `trust` says
 * where each server stands with the person (`McpServerTrust.state`); one that is not trusted shows as
 * waiting for their OK, with the Trust… action. `now` (ms) times the starts.
 */
export function mcpServerRows(
  plan: McpPlan,
  statuses: ReadonlyMap<string, McpServerStatus>,
  trust: (config: McpServerConfig) => McpTrustState,
  now = Date.now(),
): McpTreeRow[] {
  return [...plan.servers.map((server) => serverRow(server, statuses.get(server.config.name), trust(server.config), now)), ...plan.errors.map(errorRow)];
}

function serverRow(server: PlannedMcpServer, status: McpServerStatus | undefined, trust: McpTrustState, now: number): McpTreeRow {
  const { name } = server.config;
  const base = { id: `mcp-server:${name}`, label: name, server: name, contextValue: McpItemContext.server };
  const about = describeServer(server);
  if (server.blocked) {
    return {
      ...base,
      description: 'not started: workspace not trusted',
      tooltip: `${about}\n\nThis workspace configured it, and it is not trusted. Trust the workspace to start it.`,
      icon: 'workspace-untrusted',
      contextValue: McpItemContext.blockedServer,
      children: [],
    };
  }
  if (trust !== 'trusted') {
    const declined = trust === 'declined' ? ' You chose Don\'t Start in this window, so chats do not ask again.' : ' A chat that asks for tools asks you first.';
    return {
      ...base,
      description: WAITING,
      tooltip: `${about}\n\nThis workspace configures it, so it starts only once you trust it as configured.${declined} Trust… shows what it runs and starts it.`,
      icon: 'shield',
      contextValue: McpItemContext.untrustedServer,
      children: [],
    };
  }
  const state: McpServerState = status?.state ?? { kind: 'stopped' };
  switch (state.kind) {
    case 'stopped':
      return { ...base, description: 'not started', tooltip: `${about}\n\nStarts when a chat first asks for tools, or with Restart.`, icon: 'circle-outline', children: [] };
    case 'starting': {
      const { description, tooltip } = startingText(state, now);
      return { ...base, description, tooltip: `${about}\n\n${tooltip}`, icon: 'loading~spin', ticking: true, children: [] };
    }
    case 'running': {
      const tools = status?.tools ?? [];
      const version = state.serverName ? ` (${state.serverName}${state.serverVersion ? ` ${state.serverVersion}` : ''})` : '';
      return {
        ...base,
        description: `running, ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`,
        tooltip: `${about}\n\nRunning over ${state.transport}${version}.`,
        icon: 'pass',
        iconColor: 'charts.green',
        children: tools.map((tool) => ({
          id: `mcp-tool:${name}:${tool.name}`,
          label: tool.displayName,
          tooltip: tool.description || undefined,
          icon: 'tools',
          contextValue: McpItemContext.tool,
          server: name,
          children: [],
        })),
      };
    }
    case 'failed': {
      const tail = stderrTail(state.stderr);
      return {
        ...base,
        description: `failed: ${state.message}`,
        tooltip: `${about}\n\nFailed: ${state.message}${tail ? `\n\nIts stderr ended with:\n${tail}` : ''}\n\nRestart tries again; Show Output has the full log.`,
        icon: 'error',
        iconColor: 'errorForeground',
        children: [],
      };
    }
  }
}

/** What a starting server's row says: for how long it has not answered, and what. */
function startingText(state: Extract<McpServerState, { kind: 'starting' }>, now: number): { description: string; tooltip: string } {
  if (state.step === 'inputs') {
    // Reading stored inputs takes no time; only a prompt the person has not answered yet lasts.
    const tooltip = 'It starts once you have given the values it asks for. A chat that asked for tools waits for it.';
    return { description: now - state.stepSince < SLOW_START_MS ? 'starting…' : 'starting… waiting for your input', tooltip };
  }
  const request = state.step === 'tools' ? 'tools/list' : 'initialize';
  const seconds = Math.max(0, Math.floor((now - state.stepSince) / 1000));
  const total = Math.max(0, Math.floor((now - state.since) / 1000));
  const giveUp = Math.round(MCP_INITIALIZE_TIMEOUT_MS / 1000);
  const tooltip =
    `Started ${total} s ago; no answer to ${request} yet. Chats go on without its tools, which join the next request once it answers. ` +
    `Arbor stops waiting after ${giveUp} s without an answer and shows the server as failed; Show Output has its log.`;
  if (now - state.stepSince < SLOW_START_MS) return { description: 'starting…', tooltip };
  // The time first: a narrow sidebar cuts the end of a description.
  return { description: `starting… ${seconds} s, no answer to ${request}`, tooltip };
}

function errorRow(error: McpConfigError, index: number): McpTreeRow {
  return {
    id: `mcp-error:${index}:${error.origin}`,
    label: 'Configuration error',
    description: error.message,
    tooltip: `${error.message}\n\nArbor reads the file or setting again when it changes.`,
    icon: 'warning',
    iconColor: 'problemsWarningIcon.foreground',
    contextValue: McpItemContext.configError,
    children: [],
  };
}

/** What a server runs or where it connects, and where it was configured. */
function describeServer(server: PlannedMcpServer): string {
  const { config } = server;
  const target = config.type === 'stdio' ? `${config.command} ${config.args.join(' ')}`.trim() : `${config.type} ${config.url}`;
  return `${config.name}: ${cut(target, LINE_CHARS)}\nConfigured in ${config.origin}`;
}

/** The last lines of a server's stderr, blank lines dropped and each line cut. */
export function stderrTail(stderr: string, lines = STDERR_LINES): string {
  return stderr
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .slice(-lines)
    .map((line) => cut(line, LINE_CHARS))
    .join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
