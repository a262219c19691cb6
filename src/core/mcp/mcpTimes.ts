/**
 * How long Arbor waits for MCP servers, in one place and without the MCP SDK, so the host can show and
 * use these times without loading the client: how long a server may take to answer `initialize` before
 * its start fails, and how long a chat request waits for servers still starting before it goes out with
 * the tools that are ready.
 */

/**
 * How long a starting server may take to answer `initialize` (and then `tools/list`) before its start
 * fails. The SDK's own default is 60 s; half that still lets a slow `npx` download finish, and a server
 * that never answers ends as failed, saying so, instead of starting for a minute.
 */
export const MCP_INITIALIZE_TIMEOUT_MS = 30_000;

/**
 * How long a request with tools waits for a server still starting, counted from when the server's
 * connection began (so only the requests of its first seconds wait, and at most this long). Long enough
 * for a healthy server run with `npx` from the local cache (about 2.5 s measured on a busy 2-core machine;
 * `node` running the script directly, under 1 s); a server slower than that joins the next request.
 */
export const MCP_START_GRACE_MS = 4_000;
