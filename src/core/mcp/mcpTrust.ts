/**
 * Trust in the MCP servers a workspace configures. A workspace's `.vscode/mcp.json` or settings can name
 * any program, and a model that may edit files can write them, so such a server starts only once the
 * person has seen exactly what it runs and said yes. The yes is kept per workspace, server name and a
 * hash of everything that decides what runs: a changed command, argument, variable or URL is a new
 * server and is asked about again (a trust bound to the name alone is CVE-2025-54136, "MCPoison").
 * Plain TypeScript: the host hands in its global state and the prompt.
 */
import { createHash } from 'node:crypto';
import type { McpServerConfig } from './mcpConfig';

/** The global-state key under which trusted servers are kept. */
export const MCP_TRUST_KEY = 'arbor.mcp.trustedServers';
/** The most trusts kept; the oldest go first (each one took a click, so this is never reached in practice). */
const MAX_ENTRIES = 1000;

/** Key-value storage that outlives the window (VS Code's `ExtensionContext.globalState`). */
export interface McpTrustMemento {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** One trusted server: in which workspace, by which name, with which configuration. */
export interface McpTrustEntry {
  workspace: string;
  server: string;
  /** `mcpConfigHash` of the configuration the person saw. */
  hash: string;
}

/** What the trust prompt says: a one-line question and the details of what would run. */
export interface McpTrustPrompt {
  message: string;
  detail: string;
}

/** Servers configured by the workspace (its files or settings) need the person's OK; their own do not. */
export function needsMcpTrust(config: McpServerConfig): boolean {
  return config.source !== 'user';
}

/**
 * The sha256 of a canonical JSON (keys sorted) of what decides what a server runs or where it connects:
 * type, command, args, env (keys and values), envFile, cwd, url and headers. The name and where it was
 * configured are not part of it (the name is part of the trust's key).
 */
export function mcpConfigHash(config: McpServerConfig): string {
  const decisive =
    config.type === 'stdio'
      ? { type: config.type, command: config.command, args: config.args, env: config.env, envFile: config.envFile ?? null, cwd: config.cwd ?? null }
      : { type: config.type, url: config.url, headers: config.headers };
  return createHash('sha256').update(canonicalJson(decisive)).digest('hex');
}

/** JSON with object keys sorted at every level, so equal configurations give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The trusts kept in global state. A stored value that is not what this release writes (absent, from a
 * hand edit, or damaged) counts as no trust: the worst it can do is ask again.
 */
export class McpTrustStore {
  constructor(private readonly memento: McpTrustMemento) {}

  /** Whether the person trusted server `config` as it is configured now, in `workspace`. */
  isTrusted(workspace: string, config: McpServerConfig): boolean {
    const hash = mcpConfigHash(config);
    return this.entries().some((entry) => entry.workspace === workspace && entry.server === config.name && entry.hash === hash);
  }

  /** Keeps the person's OK for `config` in `workspace`, replacing an earlier one for the same name. */
  async trust(workspace: string, config: McpServerConfig): Promise<void> {
    const others = this.entries().filter((entry) => !(entry.workspace === workspace && entry.server === config.name));
    const entries = [...others, { workspace, server: config.name, hash: mcpConfigHash(config) }].slice(-MAX_ENTRIES);
    await this.memento.update(MCP_TRUST_KEY, { version: 1, entries });
  }

  /** Forgets every trust (of every workspace); returns how many there were. */
  async forgetAll(): Promise<number> {
    const count = this.entries().length;
    await this.memento.update(MCP_TRUST_KEY, undefined);
    return count;
  }

  /** The well-formed entries of the stored value. */
  entries(): McpTrustEntry[] {
    const stored = this.memento.get(MCP_TRUST_KEY);
    if (typeof stored !== 'object' || stored === null || !Array.isArray((stored as { entries?: unknown }).entries)) return [];
    return ((stored as { entries: unknown[] }).entries).filter(
      (entry): entry is McpTrustEntry =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as McpTrustEntry).workspace === 'string' &&
        typeof (entry as McpTrustEntry).server === 'string' &&
        typeof (entry as McpTrustEntry).hash === 'string',
    );
  }
}

/**
 * Environment variables that decide which code a program loads: their values are shown, since hiding
 * them would hide what runs. Other values are only said to be set (they are often secrets).
 */
const CODE_LOADING_ENV = /^(NODE_OPTIONS|NODE_PATH|LD_PRELOAD|LD_LIBRARY_PATH|DYLD_\w+|PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5OPT|PERL5LIB|RUBYOPT|RUBYLIB|BASH_ENV|ENV|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|GIT_\w+)$/i;
/** Characters of a value shown before it is cut (the file has the rest). */
const MAX_SHOWN = 2000;

/**
 * What the trust prompt says about server `config`: its name, its command line (command and arguments;
 * the names of its variables, and whether each is set or removed) or its URL, and the file it came
 * from. Control and bidirectional characters are shown escaped, so a name or argument cannot add lines
 * of its own or reorder the text.
 */
export function mcpTrustPrompt(config: McpServerConfig): McpTrustPrompt {
  const name = shown(config.name, 200);
  const lines: string[] = [];
  if (config.type === 'stdio') {
    lines.push(`Runs: ${shown([config.command, ...config.args].map(shellWord).join(' '), MAX_SHOWN)}`);
    if (config.cwd !== undefined) lines.push(`In the folder: ${shown(config.cwd, 500)}`);
    const env = Object.entries(config.env);
    if (env.length > 0) {
      const described = env.map(([key, value]) =>
        value === null ? `${shown(key, 200)} (removed)` : CODE_LOADING_ENV.test(key) ? `${shown(key, 200)}=${shellWord(shown(value, 500))}` : `${shown(key, 200)} (value set)`,
      );
      lines.push(`Environment: ${described.join(', ')}`);
    }
    if (config.envFile !== undefined) lines.push(`Environment file: ${shown(config.envFile, 500)} (its variables are read when it starts)`);
  } else {
    lines.push(`Connects to: ${shown(config.url, MAX_SHOWN)} (${config.type === 'sse' ? 'SSE' : 'HTTP'})`);
    const headers = Object.keys(config.headers);
    if (headers.length > 0) lines.push(`Headers: ${headers.map((key) => `${shown(key, 200)} (value set)`).join(', ')}`);
  }
  lines.push(`Configured in: ${shown(config.origin, 500)}`);
  const what =
    config.type === 'stdio'
      ? 'It is a program that runs on this computer with your permissions, and its tools are offered to models.'
      : 'Arbor connects to it and offers its tools to models.';
  return {
    message: `Start the MCP server "${name}" that this workspace configures?`,
    detail: `${lines.join('\n')}\n\n${what} Start it only if you know what it does. Arbor asks again if this configuration changes.`,
  };
}

/** A word as a shell would need it: plain when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `text` with control and bidirectional characters escaped, cut to `max` characters with a note. */
function shown(text: string, max: number): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return escaped.length > max ? `${escaped.slice(0, max)}… (${escaped.length - max} more characters: see the file)` : escaped;
}

/** Where a workspace-configured server stands: trusted as configured, waiting for the OK, or declined in this session. */
export type McpTrustState = 'trusted' | 'waiting' | 'declined';

/** Asks the person about one server; `true` only for an explicit "Trust and Start". */
export type McpTrustAsker = (prompt: McpTrustPrompt, config: McpServerConfig) => Promise<boolean>;

/**
 * The trust decisions of one window: what is trusted (kept in global state), what the person declined
 * in this session (not asked again on every chat, until the configuration changes or they choose
 * Trust…), and one prompt at a time per server even when several chats ask for tools at once.
 */
export class McpServerTrust {
  private readonly store: McpTrustStore;
  private readonly declined = new Set<string>();
  private readonly pending = new Map<string, Promise<boolean>>();

  constructor(private readonly options: { memento: McpTrustMemento; workspace: () => string; ask: McpTrustAsker }) {
    this.store = new McpTrustStore(options.memento);
  }

  /** Where `config` stands; a server the person configured in their own settings is always trusted. */
  state(config: McpServerConfig): McpTrustState {
    if (!needsMcpTrust(config)) return 'trusted';
    if (this.store.isTrusted(this.options.workspace(), config)) return 'trusted';
    return this.declined.has(this.key(config)) ? 'declined' : 'waiting';
  }

  /**
   * Asks about `config` when it is waiting (with `again`, also when it was declined in this session), and
   * keeps the answer. Resolves to whether it may start now.
   */
  async confirm(config: McpServerConfig, options: { again?: boolean } = {}): Promise<boolean> {
    const state = this.state(config);
    if (state === 'trusted') return true;
    if (state === 'declined' && !options.again) return false;
    const key = this.key(config);
    let asking = this.pending.get(key);
    if (!asking) {
      const workspace = this.options.workspace();
      asking = (async () => {
        const yes = await this.options.ask(mcpTrustPrompt(config), config).catch(() => false);
        if (yes) {
          this.declined.delete(key);
          await this.store.trust(workspace, config);
        } else {
          this.declined.add(key);
        }
        return yes;
      })().finally(() => this.pending.delete(key));
      this.pending.set(key, asking);
    }
    return asking;
  }

  /** Forgets every trust kept and every decline of this session; returns how many trusts there were. */
  async forgetAll(): Promise<number> {
    this.declined.clear();
    return this.store.forgetAll();
  }

  private key(config: McpServerConfig): string {
    return JSON.stringify([this.options.workspace(), config.name, mcpConfigHash(config)]);
  }
}
