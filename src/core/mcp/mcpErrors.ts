/** Typed errors of the MCP client. Each message names the server or file and says what to fix. */
import { ArborError } from '../errors';

/** An MCP configuration (`.vscode/mcp.json` or the `arbor.mcp.servers` setting) is malformed. */
export class McpConfigError extends ArborError {
  /** `origin` is the file or setting; `path` the JSON path of the bad value, e.g. `servers.fs.command`. */
  constructor(message: string, readonly origin: string, readonly path?: string) {
    super(`${origin}${path ? ` (${path})` : ''}: ${message}`);
  }
}

/** The person dismissed the prompt for an `${input:…}` variable, so the server cannot start. */
export class McpInputCancelledError extends ArborError {
  constructor(readonly inputId: string, readonly serverName: string) {
    super(`MCP server "${serverName}" needs the input "${inputId}", and no value was given. Start the server again to be asked again.`);
  }
}

/** A request to an MCP server could not be made or failed (not running, unknown tool, transport error). */
export class McpServerError extends ArborError {
  constructor(message: string, readonly serverName: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
