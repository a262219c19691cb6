/**
 * The MCP client's public API: a barrel of its own, apart from `src/core/index.ts`, so that the
 * extension loads the MCP SDK only when a chat first asks for tools and activation does not parse it
 * (the host imports it dynamically, and the build makes it a file of its own, dist/mcp.js). The
 * configuration part, which needs no SDK, is also exported from `src/core/index.ts`.
 */
export {
  parseMcpJson,
  parseServers as parseMcpServers,
  type McpConfig,
  type McpHttpServerConfig,
  type McpInputDefinition,
  type McpServerConfig,
  type McpServerSource,
  type McpStdioServerConfig,
} from './mcpConfig';
export { collectMcpServers, type CollectedMcpServers, type McpConfigSources, type McpSettingValue } from './mcpServers';
export { mcpSecretKey, McpVariableResolver, type McpInputPrompter, type McpVariableContext, type SecretStore } from './mcpVariables';
export {
  McpServerConnection,
  type McpConnectionOptions,
  type McpServerState,
  type McpStartStep,
  type McpToolInfo,
  type McpTransportKind,
} from './mcpConnection';
export { McpClients, type McpClientsChange } from './mcpClients';
export { MCP_INITIALIZE_TIMEOUT_MS, MCP_START_GRACE_MS } from './mcpTimes';
export { mcpDisplayName, mcpResultText, mcpWireName, toArborTool, toArborTools, type McpArborTool, type McpToolOutput } from './mcpTools';
export { McpConfigError, McpInputCancelledError, McpServerError } from './mcpErrors';
