/**
 * Substitutes the variables VS Code's mcp.json allows in a server's command, args, env, URL and headers:
 * `${input:id}` (asked of the person once; `password: true` values kept in secret storage),
 * `${env:NAME}`, `${workspaceFolder}` and `${userHome}`.
 */
import * as os from 'node:os';
import type { McpInputDefinition, McpServerConfig } from './mcpConfig';
import { McpConfigError, McpInputCancelledError } from './mcpErrors';

/** Secret storage as the host has it (`vscode.SecretStorage`); tests use an in-memory one. */
export interface SecretStore {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Asks the person for an input's value (an input box or a pick list); `undefined` when dismissed. */
export type McpInputPrompter = (input: McpInputDefinition, serverName: string) => Promise<string | undefined>;

/** The secret-storage key of a password input's value. */
export const mcpSecretKey = (inputId: string): string => `arbor.mcp.input.${inputId}`;

/** What `McpVariableResolver` needs from the host. */
export interface McpVariableContext {
  inputs: readonly McpInputDefinition[];
  secrets: SecretStore;
  prompt: McpInputPrompter;
  workspaceFolder?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

const VARIABLE = /\$\{([^}]+)\}/g;

/**
 * Resolves variables in server configurations. Each input is asked for at most once per resolver (the
 * host keeps one for the window); a password input is asked for once ever, then read from `secrets`.
 */
export class McpVariableResolver {
  private readonly values = new Map<string, string>();

  constructor(private readonly context: McpVariableContext) {}

  /** A copy of `server` with every variable replaced; throws `McpConfigError` or `McpInputCancelledError`. */
  async resolve(server: McpServerConfig): Promise<McpServerConfig> {
    const text = (value: string) => this.substitute(value, server);
    if (server.type === 'stdio') {
      const env: Record<string, string | null> = {};
      for (const [key, value] of Object.entries(server.env)) env[key] = value === null ? null : await text(value);
      return {
        ...server,
        command: await text(server.command),
        args: await Promise.all(server.args.map(text)),
        env,
        envFile: server.envFile === undefined ? undefined : await text(server.envFile),
        cwd: server.cwd === undefined ? undefined : await text(server.cwd),
      };
    }
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(server.headers)) headers[key] = await text(value);
    return { ...server, url: await text(server.url), headers };
  }

  /** Forgets a remembered input (and its stored secret), so the next start asks again. */
  async forget(inputId: string): Promise<void> {
    this.values.delete(inputId);
    await this.context.secrets.delete(mcpSecretKey(inputId));
  }

  private async substitute(value: string, server: McpServerConfig): Promise<string> {
    let out = '';
    let last = 0;
    for (const match of value.matchAll(VARIABLE)) {
      out += value.slice(last, match.index) + (await this.variable(match[1], server));
      last = match.index + match[0].length;
    }
    return out + value.slice(last);
  }

  private async variable(name: string, server: McpServerConfig): Promise<string> {
    if (name === 'workspaceFolder') {
      if (this.context.workspaceFolder === undefined) {
        throw new McpConfigError(`server "${server.name}" uses \${workspaceFolder}, but no folder is open.`, server.origin);
      }
      return this.context.workspaceFolder;
    }
    if (name === 'userHome') return os.homedir();
    if (name.startsWith('env:')) return (this.context.env ?? process.env)[name.slice(4)] ?? '';
    if (name.startsWith('input:')) return this.input(name.slice(6), server);
    throw new McpConfigError(
      `server "${server.name}" uses the unknown variable \${${name}}; Arbor knows \${input:id}, \${env:NAME}, \${workspaceFolder} and \${userHome}.`,
      server.origin,
    );
  }

  private async input(id: string, server: McpServerConfig): Promise<string> {
    const known = this.values.get(id);
    if (known !== undefined) return known;
    const definition = this.context.inputs.find((input) => input.id === id);
    if (!definition) {
      throw new McpConfigError(`server "${server.name}" uses \${input:${id}}, but "inputs" has no entry with id "${id}".`, server.origin);
    }
    let value = definition.password ? await this.context.secrets.get(mcpSecretKey(id)) : undefined;
    if (value === undefined) {
      value = await this.context.prompt(definition, server.name);
      if (value === undefined) throw new McpInputCancelledError(id, server.name);
      if (definition.password) await this.context.secrets.store(mcpSecretKey(id), value);
    }
    this.values.set(id, value);
    return value;
  }
}

/** Reads a `KEY=value` env file (blank lines and `#` comments skipped, optional quotes removed). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])) value = value.slice(1, -1);
    out[line.slice(0, eq).trim()] = value;
  }
  return out;
}
