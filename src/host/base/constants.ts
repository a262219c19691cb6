/**
 * Every id the extension registers with VS Code: commands, views, settings and context keys, all
 * prefixed `arbor.`, so `package.json` and the code agree in one place.
 */

/** The extension's id as installed (`publisher.name`). */
export const EXTENSION_ID = 'arbor-dev.arbor';

/** Views and the webview panel type. */
export const Views = {
  container: 'arbor',
  conversations: 'arbor.conversations',
  mcpServers: 'arbor.mcpServers',
  chatPanel: 'arbor.chat',
} as const;

/** Command ids. */
export const Commands = {
  newConversation: 'arbor.newConversation',
  resetToolApprovals: 'arbor.resetToolApprovals',
  chooseTools: 'arbor.chooseTools',
  applyAccept: 'arbor.apply.accept',
  applyChooseParts: 'arbor.apply.chooseParts',
  applyReject: 'arbor.apply.reject',
  askAboutSelection: 'arbor.askAboutSelection',
  openPromptsFolder: 'arbor.openPromptsFolder',
  newPrompt: 'arbor.newPrompt',
  setOpenAIKey: 'arbor.setOpenAIKey',
  clearApiKey: 'arbor.clearApiKey',
  selectModel: 'arbor.selectModel',
  raiseContextWindow: 'arbor.raiseContextWindow',
  reindexWorkspace: 'arbor.reindexWorkspace',
  exportConversation: 'arbor.exportConversation',
  importConversation: 'arbor.importConversation',
  importCopilotChats: 'arbor.importCopilotChats',
  searchConversations: 'arbor.searchConversations',
  refresh: 'arbor.refresh',
  openConversation: 'arbor.conversation.open',
  renameConversation: 'arbor.conversation.rename',
  forkConversation: 'arbor.conversation.fork',
  exportMarkdown: 'arbor.conversation.exportMarkdown',
  exportJson: 'arbor.conversation.exportJson',
  deleteConversation: 'arbor.conversation.delete',
  branchFromHere: 'arbor.node.branchFromHere',
  switchToHere: 'arbor.node.switchToHere',
  renameBranch: 'arbor.node.renameBranch',
  compareWith: 'arbor.node.compareWith',
  copyNode: 'arbor.node.copy',
  deleteBranch: 'arbor.node.deleteBranch',
  bookmark: 'arbor.node.bookmark',
  removeBookmark: 'arbor.node.removeBookmark',
  addNote: 'arbor.node.addNote',
  editNote: 'arbor.node.editNote',
  goToBookmark: 'arbor.goToBookmark',
  compactUpToHere: 'arbor.node.compactUpToHere',
  restoreFilesToHere: 'arbor.node.restoreFilesToHere',
  undoCompaction: 'arbor.undoCompaction',
  activationTiming: 'arbor.debug.activationTiming',
  mcpRestartServer: 'arbor.mcp.restartServer',
  mcpShowOutput: 'arbor.mcp.showOutput',
  mcpTrustServer: 'arbor.mcp.trustServer',
  mcpResetTrust: 'arbor.mcp.resetTrust',
  setTeamStorePassword: 'arbor.setTeamStorePassword',
  moveToTeamStore: 'arbor.conversation.moveToTeamStore',
  copyToLocal: 'arbor.conversation.copyToLocal',
  findOtherWorkspaceConversations: 'arbor.findOtherWorkspaceConversations',
  openOtherStoresOffer: 'arbor.openOtherStoresOffer',
  dismissOtherStoresOffer: 'arbor.dismissOtherStoresOffer',
} as const;

/** Setting keys, without the `arbor.` section prefix (read through `getConfiguration('arbor')`). */
export const Settings = {
  section: 'arbor',
  provider: 'provider',
  model: 'model',
  ollamaHost: 'ollama.host',
  openaiBaseUrl: 'openai.baseUrl',
  pricing: 'pricing',
  maxHistory: 'context.maxHistory',
  maxTokens: 'context.maxTokens',
  promptsFolder: 'prompts.folder',
  ragInclude: 'rag.include',
  ragExclude: 'rag.exclude',
  ragMaxFileBytes: 'rag.maxFileBytes',
  maxAnswerChars: 'limits.maxAnswerChars',
  maxAnswerSeconds: 'limits.maxAnswerSeconds',
  systemPrompt: 'systemPrompt',
  requestOptions: 'requestOptions',
  retentionDays: 'retention.days',
  contextLength: 'contextLength',
  ollamaNumCtx: 'ollama.numCtx',
  autoCompactPercent: 'context.autoCompactPercent',
  keepRecentTokens: 'context.keepRecentTokens',
  keepToolOutputTokens: 'context.keepToolOutputTokens',
  mcpServers: 'mcp.servers',
  toolApproval: 'tools.approval',
  commandAllowList: 'tools.commandAllowList',
  commandDenyList: 'tools.commandDenyList',
  instructionsEnabled: 'instructions.enabled',
  imagesMaxBytes: 'images.maxBytes',
  protectedFiles: 'tools.protectedFiles',
  openaiSupportsVision: 'openai.supportsVision',
  openaiJsonSchema: 'openai.jsonSchema',
  storageKind: 'storage.kind',
  postgresUrl: 'storage.postgres.url',
  postgresTeam: 'storage.postgres.team',
  postgresSsl: 'storage.postgres.ssl',
  postgresSslCaFile: 'storage.postgres.sslCaFile',
} as const;

/** Context keys set with `setContext`, used in `when` clauses. */
export const ContextKeys = {
  restricted: 'arbor.restricted',
  hasApiKey: 'arbor.hasApiKey',
} as const;

/**
 * Tree item context values (`viewItem == …` in menus). A message item's value is `node` or
 * `currentNode`, then `bookmarked` and `noted` when its first message has a bookmark or a note.
 */
export const TreeItemContext = {
  conversation: 'arbor.conversation',
  node: 'arbor.node',
  currentNode: 'arbor.node.current',
  bookmarked: '.bookmarked',
  noted: '.noted',
  step: '.step',
  offer: 'arbor.offer',
} as const;

/** Context values of the MCP Servers view's rows (`viewItem == …` in menus). */
export const McpItemContext = {
  server: 'arbor.mcpServer',
  /** A server of an untrusted workspace: it cannot start, so it has no Restart. */
  blockedServer: 'arbor.mcpServer.blocked',
  /** A server the workspace configures that waits for the person's OK: it has Trust… instead of Restart. */
  untrustedServer: 'arbor.mcpServer.untrusted',
  tool: 'arbor.mcpTool',
  configError: 'arbor.mcpConfigError',
} as const;

/** Where the API key lives in `SecretStorage`. */
export const SECRET_OPENAI_KEY = 'arbor.openai.apiKey';

/** Where the team store's database password lives in `SecretStorage`. */
export const SECRET_TEAM_STORE_PASSWORD = 'arbor.storage.postgres.password';

/** The scheme of the proposed side of an Apply or Restore Files to Here diff. */
export const PROPOSED_SCHEME = 'arbor-proposed';

/** URI scheme of the read-only Markdown documents the branch diff shows. */
export const COMPARE_SCHEME = 'arbor-compare';
