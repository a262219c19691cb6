/**
 * The engine's public API: the one module that code outside `src/core` may import (the MCP client has
 * its own, `mcp/index.ts`, loaded on first use). It lists what the extension host and a library user
 * need (README, "Using the engine without VS Code"): conversations, providers, stores, tools, flows,
 * prompts and retrieval, with their options, results and errors. What only the engine uses is not
 * here: tests reach it in its own module. Each name is listed by hand (lint), so nothing becomes
 * public by accident.
 */
export {
  type Role,
  type ToolCall,
  type ToolDefinition,
  type LLMMessage,
  type ConversationNode,
  type Usage,
  type FinishReason,
  type LLMResponse,
  type LLMStreamChunk,
  type ConversationState,
} from './types';
export { ConversationManager } from './conversation/conversationManager';
export { ConversationReader } from './conversation/conversationReader';
export { OpenConversations, type OpenConversationsOptions, type OpenManagerOptions, type NewConversationOptions } from './conversation/openConversations';
export {
  type ConversationManagerOptions,
  type CreateConversationOptions,
  type AddMessageOptions,
  type ConfigOverrides,
  type CompleteOptions,
  type BranchInfo,
  type ConversationChangeEvent,
  type ToolRunOptions,
  type RequestWindow,
} from './conversation/managerTypes';
export { defineTool, toolDependency, type Tool, type ToolContext, type ToolDependency, type ToolOutput, type JsonSchema } from './tools/tool';
export { safeToolName, uniqueToolName } from './tools/toolNames';
export { ToolIndex, toolIndexFor } from './tools/toolIndex';
export { fitTools, firstSentence, type ToolFit, type ToolFitOptions } from './tools/toolFit';
export { describeToolTool, DESCRIBE_TOOL_NAME } from './tools/describeTool';
export { ToolExecutor, capOutput, type ToolExecutorOptions } from './tools/toolExecutor';
export {
  DEFAULT_MAX_TOOL_STEPS,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolApprover,
  type ToolCallStatus,
  type ToolCallEvent,
  type ToolRunStopReason,
  type ToolRunResult,
} from './tools/toolLoop';
export { ConversationTree } from './conversation/conversationTree';
export { buildMergeRequest } from './conversation/mergeAnswers';
export { ROOT_NODE_ID, isDotPath } from './nodeIds';
export { parseConversationJson, type ImportedConversation } from './conversation/importConversation';
export { conversationsToImport, detectImportFormat, type ImportFormat } from './conversation/imports/detectImportFormat';
export { describeSetting, fromContinueConfig, isContinueConfigName, parseContinueConfigText, type ContinueModelChoice, type ImportedSetting } from './conversation/imports/continueConfig';
export { copilotSessionTitle, isCopilotChatSession } from './conversation/imports/copilotChat';
export { DEFAULT_KEEP_TOOL_OUTPUT_TOKENS } from './conversation/compaction';
export {
  COMPACT_PROMPT_NAME,
  DEFAULT_KEEP_RECENT_TOKENS,
  isContextLengthError,
  keptBudget,
  type CompactOptions,
} from './conversation/compactor';
export { ESTIMATE_COUNTER, type ContextUsage, type UsageCounter } from './conversation/contextUsage';
export { type ContextWindowOptions } from './conversation/contextWindow';
export { type ConversationMiddleware } from './conversation/middleware/middleware';
export { LoggingMiddleware, type LoggingMiddlewareOptions } from './conversation/middleware/loggingMiddleware';
export { RedactionMiddleware, DEFAULT_REDACTION_PATTERNS, type RedactionOptions } from './conversation/middleware/redactionMiddleware';
export { type RedactionPattern } from './conversation/middleware/redactionPattern';
export { toDataknobsDict, fromDataknobsDict, type DataknobsConversationDict } from './conversation/exchange';
export { conversationToMarkdown, type MarkdownExportOptions } from './conversation/markdownExport';
export { parseChatRequestOptions, type ChatRequestOptions, type ThinkSetting } from './requestOptions';
export { parseToolChoice, type ToolChoice } from './storedToolChoice';
export { requestOverrides, type ThinkingSupport } from './conversation/chatRequestOptions';
export { applyRetention, type RetentionResult } from './conversation/retention';
export {
  readNodeMetadata,
  nodeMetadata,
  readConversationMetadata,
  nodeRagMetadata,
  BOOKMARKED,
  type NodeMetadata,
  type ConversationMetadata,
  type StoredAttachment,
  type CompactionInfo,
  type InstructionRef,
} from './metadataKeys';
export {
  ArborError,
  ConversationNotFoundError,
  NodeNotFoundError,
  InvalidArgumentError,
  InvalidOperationError,
  type ProviderErrorKind,
  ProviderError,
  StorageError,
  PromptValidationError,
  OutputValidationError,
  PromptError,
  PromptLimitError,
  type PromptLimitName,
  WorkspaceAccessError,
  SymlinkLoopError,
  RequestTooLargeError,
} from './errors';
export {
  type FileType,
  type FileStat,
  type Disposable,
  type WorkspaceFiles,
  type Logger,
} from './files';
export { nodeFiles } from './nodeFiles';
export { type OutputSchema } from './structured/outputSchema';
export { withSchemaInstruction } from './llm/responseFormat';
export {
  type CompletionOptions,
  type ResponseFormat,
  type ModelInfo,
  type LLMProvider,
} from './llm/provider';
export { OpenAIProvider, type OpenAIProviderOptions } from './llm/openai';
export { OllamaProvider, type OllamaProviderOptions } from './llm/ollama';
export { PricingTable, DEFAULT_PRICING, costUsd, type ModelPrice } from './llm/pricing';
export { estimateTokens, estimateMessageTokens } from './llm/tokens';
export { type ContextLength, type OllamaModelContext } from './llm/contextLength';
export { kvCacheBytes, formatMemory, type KvCacheFacts } from './llm/kvCache';
export { tokenCounterFor, estimatingTokenCounter, type TokenCounter } from './llm/tokenCount';
export { PathTokenCache } from './llm/pathTokenCache';
export { modelChoices, modelKey, sameModel } from './llm/modelNames';
export { VSCODE_PROVIDER_NAME, VSCODE_MODEL_GROUP, vscodeModelId, isVscodeModelId, parseVscodeModelId } from './llm/vscodeLmIds';
export { toLmMessages, toLmTools, type LmPartFactory } from './llm/vscodeLmMessages';
export { readLmStream, lmProviderError, lmAborted, lmLimit } from './llm/vscodeLmStream';
export { LazyTokenCounter } from './llm/lazyTokenCounter';
export { DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_ANSWER_MS } from './llm/answerLimits';
export {
  type ConversationSortBy,
  type ConversationSummary,
  type ListOptions,
  type SearchOptions,
  type MessageMatch,
  type DeleteFilters,
  type FileChange,
  type RecordedFileChange,
  type StoredImage,
  type FileState,
  type ConversationStorage,
} from './storage/storage';
export { SqlJsConversationStorage, type SqlJsStorageOptions } from './storage/sqlJsConversationStorage';
export { checkCheckpointPath } from './storage/fileCheckpoints';
export { PostgresConversationStorage, type PostgresStoreOptions } from './storage/postgres/postgresConversationStorage';
export { JOURNAL_SUFFIX } from './storage/sqlJsConversationStorage';
export { copyConversations, type CopyReport } from './storage/copyConversations';
export { findOtherStores, type OtherStore } from './storage/otherStores/findOtherStores';
export { mergeStoreInto } from './storage/otherStores/mergeStore';
export { sharedStoreDir, writeArborIdentity } from './storage/otherStores/workspaceIdentity';
export {
  checkImages,
  base64Size,
  formatBytes,
  DEFAULT_MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  type CheckedImage,
} from './images/imageInfo';
export { markdownImages, exportJsonWithImages } from './conversation/imageExports';
export {
  type PromptRef,
  type RagConfig,
  type RagMetadata,
  type RenderOptions,
  type RenderResult,
  type ConversationPromptBuilder,
} from './promptContracts';
export { type PromptTemplate, type PromptInfo } from './prompts/libraryTypes';
export { type PromptParam, type PromptDiagnostic } from './libraryFiles/fileTypes';
export { FileSystemPromptLibrary, type PromptLibraryOptions } from './prompts/fileSystemPromptLibrary';
export { PromptFolderLibrary } from './promptFolder/promptFolderLibrary';
export { PromptBuilder, type PromptBuilderOptions, type PromptRenderOptions, type MessagesRenderResult } from './prompts/promptBuilder';
export { gitBlobId } from './hashes';
export { DEFAULT_PROMPT_LIMITS } from './templates/promptLimits';
export { type PromptLimits } from './limits';
export { checkPromptFolder, type PromptCheckReport } from './promptFolder/checkPrompts';
export { FOREIGN_FOLDERS, isForeignPromptPath, type ForeignPrompt } from './prompts/foreign/foreignTypes';
export { loadForeignPrompts, type ForeignPromptSet } from './prompts/foreign/loadForeignPrompts';
export { renderForeignPrompt, type ForeignEditorContext } from './prompts/foreign/renderForeignPrompt';
export { filterAllowedTools } from './prompts/foreign/toolAllowList';
export { DEFAULT_FLOW_MAX_STEPS, type FlowDefinition, type FlowState, type AgentState, type ToolState, type FinishState, type FlowTransition, type FlowEvent } from './flows/flowTypes';
export { FlowError, FlowExpressionError } from './flows/flowErrors';
export { type FlowNodeInfo } from './metadataKeys';
export { parseFlowFile, type ParsedFlowFile } from './flows/flowFile';
export { loadFlows, type LoadedFlows } from './flows/loadFlows';
export { flowEdges } from './flows/flowGraph';
export { type FlowRunOptions } from './flows/flowRunner';
export { flowToolsFrom, runFlow, resumeFlow } from './flows/flowApi';
export { flowNodeInfo } from './flows/flowMarks';
export type { FlowToolProvider } from './flows/flowSteps';
export { splitLines } from './rag/chunker';
export { looksBinary, DEFAULT_SECRET_PATTERNS, ALWAYS_SKIPPED_DIRS, type ExcludeSetting, FileRules } from './rag/fileRules';
export { canonicalPath, inGitFolder } from './rag/pathNames';
export { isInside, WorkspaceScanner } from './rag/workspaceScanner';
export { type ScoredChunk, type IndexSearchOptions } from './rag/invertedIndex';
export { CorruptIndexFileError } from './rag/indexFile';
export { type IndexProgress, type IndexUpdateResult, type WorkspaceIndexOptions, WorkspaceIndex } from './rag/workspaceIndex';
export { type FilesAdapterOptions, FilesAdapter } from './rag/filesAdapter';
export { type RagAdapter, type RagResultItem } from './rag/ragAdapter';
// MCP configuration only: reading `.vscode/mcp.json` and the setting needs no MCP SDK, so the host lists
// configured servers at no cost. The client itself (connections, tools) is src/core/mcp/index.ts, which
// the host loads on first use.
export { parseMcpJson, type McpInputDefinition, type McpServerConfig } from './mcp/mcpConfig';
export { collectMcpServers, type McpSettingValue } from './mcp/mcpServers';
export { McpConfigError } from './mcp/mcpErrors';
export { McpServerTrust, type McpTrustPrompt, type McpTrustState } from './mcp/mcpTrust';
export { MCP_INITIALIZE_TIMEOUT_MS, MCP_START_GRACE_MS } from './mcp/mcpTimes';
// Changing files: search/replace edits, whole-content writes and the diffs an approval shows.
export { headAndTail } from './textCuts';
export { toLf, withEol } from './edits/lineEndings';
export { type SearchReplaceEdit } from './edits/searchReplace';
export { minimalReplacement } from './edits/textDiff';
export { proposeEdit, proposeContent, type ProposedChange } from './edits/proposeEdit';
export { INSTRUCTION_KINDS, isInstructionKind, type InstructionFile, type InstructionKind } from './instructions/instructionFile';
export { applicableInstructions, renderInstructions } from './instructions/applicability';
export { InstructionCatalog, INSTRUCTION_WATCH_GLOB } from './instructions/instructionCatalog';
export { filesInPlay } from './instructions/filesInPlay';
export { globProblem, SAFE_GLOB_OPTIONS } from './globSafety';
