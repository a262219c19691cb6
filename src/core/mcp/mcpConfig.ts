/**
 * MCP server configuration in VS Code's own `mcp.json` format (`servers` and `inputs`), read from
 * `.vscode/mcp.json` and from the `arbor.mcp.servers` setting, checked into typed values with errors
 * that name the file, the JSON path and the fix.
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { McpConfigError } from './mcpErrors';

/**
 * Where a server's configuration came from. `workspace` servers (the workspace's `.vscode/mcp.json`, or
 * the setting at workspace level) run commands the workspace chose, so an untrusted workspace must not
 * start them; `user` servers are the person's own.
 */
export type McpServerSource = 'workspace' | 'user';

/** A server started as a child process that speaks MCP on its stdin and stdout. */
export interface McpStdioServerConfig {
  type: 'stdio';
  command: string;
  args: string[];
  /** Added to the inherited environment; `null` removes a variable. */
  env: Record<string, string | null>;
  /** A `KEY=value` file whose variables are added before `env`. */
  envFile?: string;
  cwd?: string;
}

/** A server reached over HTTP: `http` tries Streamable HTTP then falls back to SSE; `sse` is SSE only. */
export interface McpHttpServerConfig {
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

/** One configured server, with its name and where it was configured. */
export type McpServerConfig = (McpStdioServerConfig | McpHttpServerConfig) & {
  name: string;
  source: McpServerSource;
  /** The file or setting it came from, for messages. */
  origin: string;
};

/** An `inputs` entry: a value asked of the person the first time a server uses `${input:id}`. */
export interface McpInputDefinition {
  id: string;
  type: 'promptString' | 'pickString';
  description: string;
  /** Kept in secret storage and typed hidden. */
  password: boolean;
  default?: string;
  /** The choices of a `pickString`. */
  options?: string[];
}

/** The servers and inputs of one file or setting. */
export interface McpConfig {
  servers: McpServerConfig[];
  inputs: McpInputDefinition[];
}

type Json = unknown;
const isObject = (value: Json): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

function stringMap(value: Json, origin: string, path: string, allowNull: boolean): Record<string, string | null> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new McpConfigError('must be an object of names to string values.', origin, path);
  const out: Record<string, string | null> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') out[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
    else if (item === null && allowNull) out[key] = null;
    else throw new McpConfigError(`must be a string${allowNull ? ' or null' : ''}.`, origin, `${path}.${key}`);
  }
  return out;
}

function optionalString(value: Json, origin: string, path: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new McpConfigError('must be a string.', origin, path);
  return value;
}

/** Checks one entry of `servers` (its `type` may be left out: `command` means stdio, `url` means http). */
export function parseServer(name: string, value: Json, origin: string, source: McpServerSource, path = `servers.${name}`): McpServerConfig {
  if (!isObject(value)) throw new McpConfigError('a server must be an object with a "command" (stdio) or a "url" (http).', origin, path);
  const type = value.type ?? (value.command !== undefined ? 'stdio' : value.url !== undefined ? 'http' : undefined);
  if (type === 'stdio') {
    const command = value.command;
    if (typeof command !== 'string' || command.trim() === '') {
      throw new McpConfigError('a stdio server needs "command", the program to run (e.g. "npx").', origin, `${path}.command`);
    }
    const args = value.args ?? [];
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) {
      throw new McpConfigError('"args" must be an array of strings.', origin, `${path}.args`);
    }
    return {
      name,
      source,
      origin,
      type,
      command,
      args: args as string[],
      env: stringMap(value.env, origin, `${path}.env`, true),
      envFile: optionalString(value.envFile, origin, `${path}.envFile`),
      cwd: optionalString(value.cwd, origin, `${path}.cwd`),
    };
  }
  if (type === 'http' || type === 'sse') {
    const url = value.url;
    if (typeof url !== 'string' || url.trim() === '') {
      throw new McpConfigError(`an ${type} server needs "url", the server's endpoint (e.g. "http://localhost:3001/mcp").`, origin, `${path}.url`);
    }
    if (!url.includes('${') && !/^https?:\/\//i.test(url)) {
      throw new McpConfigError(`"${url}" is not an http:// or https:// URL.`, origin, `${path}.url`);
    }
    const headers = stringMap(value.headers, origin, `${path}.headers`, false) as Record<string, string>;
    return { name, source, origin, type, url, headers };
  }
  if (type === undefined) throw new McpConfigError('a server needs "command" (stdio) or "url" (http).', origin, path);
  throw new McpConfigError(`unknown "type" ${JSON.stringify(type)}; use "stdio", "http" or "sse".`, origin, `${path}.type`);
}

function parseInput(value: Json, origin: string, path: string): McpInputDefinition {
  if (!isObject(value)) throw new McpConfigError('an input must be an object with "id" and "type".', origin, path);
  const { id, type } = value;
  if (typeof id !== 'string' || !/^[\w.-]+$/.test(id)) {
    throw new McpConfigError('"id" must be a name of letters, digits, "_", "-" or ".", used as ${input:id}.', origin, `${path}.id`);
  }
  if (type !== 'promptString' && type !== 'pickString') {
    throw new McpConfigError(`input type ${JSON.stringify(type)} is not supported; use "promptString" or "pickString".`, origin, `${path}.type`);
  }
  const options = value.options;
  if (type === 'pickString' && (!Array.isArray(options) || options.length === 0 || options.some((o) => typeof o !== 'string'))) {
    throw new McpConfigError('a pickString input needs "options", a non-empty array of strings.', origin, `${path}.options`);
  }
  if (value.password !== undefined && typeof value.password !== 'boolean') {
    throw new McpConfigError('"password" must be true or false.', origin, `${path}.password`);
  }
  return {
    id,
    type,
    description: optionalString(value.description, origin, `${path}.description`) ?? id,
    password: value.password === true,
    default: optionalString(value.default, origin, `${path}.default`),
    options: type === 'pickString' ? (options as string[]) : undefined,
  };
}

/** Checks a `servers` object (name → server), as in mcp.json or the `arbor.mcp.servers` setting. */
export function parseServers(value: Json, origin: string, source: McpServerSource, path = 'servers'): McpServerConfig[] {
  if (value === undefined || value === null) return [];
  if (!isObject(value)) throw new McpConfigError('must be an object of server names to servers.', origin, path);
  return Object.entries(value).map(([name, server]) => parseServer(name, server, origin, source, `${path}.${name}`));
}

/**
 * Parses the text of an `mcp.json` (JSON with comments and trailing commas, as VS Code allows). Throws
 * `McpConfigError` with the line and column of a syntax error, or the path of a bad value.
 */
export function parseMcpJson(text: string, origin: string, source: McpServerSource): McpConfig {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const before = text.slice(0, first.offset).split('\n');
    throw new McpConfigError(`${printParseErrorCode(first.error)} at line ${before.length}, column ${before[before.length - 1].length + 1}.`, origin);
  }
  if (!isObject(value)) throw new McpConfigError('the file must hold an object with "servers" (and optionally "inputs").', origin);
  const inputs = value.inputs ?? [];
  if (!Array.isArray(inputs)) throw new McpConfigError('must be an array.', origin, 'inputs');
  const parsedInputs = inputs.map((input, i) => parseInput(input, origin, `inputs[${i}]`));
  const seen = new Set<string>();
  for (const input of parsedInputs) {
    if (seen.has(input.id)) throw new McpConfigError(`two inputs have the id "${input.id}".`, origin, 'inputs');
    seen.add(input.id);
  }
  return { servers: parseServers(value.servers, origin, source), inputs: parsedInputs };
}
