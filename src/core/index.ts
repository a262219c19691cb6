/**
 * The engine's public API: the one module that code outside `src/core` may import.
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
} from './conversation/managerTypes';
export { defineTool, toolDependency, type Tool, type ToolContext, type ToolDependency, type ToolOutput, type JsonSchema } from './tools/tool';
export { MAX_TOOL_NAME, safeToolName, uniqueToolName } from './tools/toolNames';
export {
  ToolExecutor,
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  capOutput,
  type ToolExecutorOptions,
  type PreparedToolCall,
  type ToolRunOutcome,
} from './tools/toolExecutor';
export {
  runToolLoop,
  DEFAULT_MAX_TOOL_STEPS,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolApprover,
  type ToolCallStatus,
  type ToolCallEvent,
  type ToolLoopOptions,
  type ToolRunStopReason,
  type ToolRunResult,
  type ToolAnswerRequest,
  type ToolLoopHost,
} from './tools/toolLoop';
export { TOOL_RESULT_TEXTS, toolResultNode, unansweredToolCalls, repairToolPath, withToolResults, type ToolResultRecord } from './tools/toolResults';
export { ConversationTree } from './conversation/conversationTree';
export { buildMergeRequest, MERGE_SYSTEM_PROMPT, mergePromptText, type MergeRequest, type MergeSource } from './conversation/mergeAnswers';
export { ROOT_NODE_ID, isDotPath } from './nodeIds';
export { fromMetonSession, isMetonSession } from './conversation/metonImport';
export { importConversation, parseConversationJson, type ImportedConversation } from './conversation/importConversation';
export { conversationsToImport, detectImportFormat, IMPORT_FORMATS_TEXT, type ImportFormat } from './conversation/imports/detectImportFormat';
export { describeSetting, fromContinueConfig, isContinueConfigName, parseContinueConfigText, type ContinueModelChoice, type ImportedSetting } from './conversation/imports/continueConfig';
export { copilotSessionTitle, isCopilotChatSession } from './conversation/imports/copilotChat';
export { branchLeft, DEFAULT_KEEP_TOOL_OUTPUT_TOKENS, fallbackSummary, isBranchSummary, isCompaction, lastCompaction, planCompaction, requestMessages, summaryPreamble, transcriptOf, type CompactionPlan } from './conversation/compaction';
export { BUILTIN_COMPACT_PROMPT, COMPACT_PROMPT_NAME, DEFAULT_KEEP_RECENT_TOKENS, isContextLengthError, keptBudget, type CompactOptions } from './conversation/compactor';
export { contextUsage, ESTIMATE_COUNTER, type ContextUsage, type ContextUsageOptions, type UsageCounter } from './conversation/contextUsage';
export { applyContextWindow, groupTurns, type ContextWindowOptions, type ContextWindowResult, type MessageTokenEstimator } from './conversation/contextWindow';
export { runRequestMiddleware, runResponseMiddleware, type ConversationMiddleware, type MiddlewareState } from './conversation/middleware/middleware';
export { LoggingMiddleware, type LoggingMiddlewareOptions } from './conversation/middleware/loggingMiddleware';
export { RedactionMiddleware, DEFAULT_REDACTION_PATTERNS, redactText, type RedactionPattern, type RedactionOptions } from './conversation/middleware/redactionMiddleware';
export {
  toDataknobsDict,
  fromDataknobsDict,
  DATAKNOBS_SCHEMA_VERSION,
  type DataknobsConversationDict,
  type DataknobsNodeDict,
  type DataknobsMessageDict,
} from './conversation/exchange';
export { conversationToMarkdown, type MarkdownExportOptions } from './conversation/markdownExport';
export { MAX_TEMPERATURE, isThinkSetting, parseChatRequestOptions, type ChatRequestOptions, type ThinkSetting } from './requestOptions';
export { requestOverrides, type ThinkingSupport } from './conversation/chatRequestOptions';
export { applyRetention, type RetentionResult } from './conversation/retention';
export { Emitter, type ArborEvent } from './emitter';
export {
  readNodeMetadata,
  nodeMetadata,
  readConversationMetadata,
  conversationMetadata,
  nodeRagMetadata,
  BOOKMARKED,
  type NodeMetadata,
  type ConversationMetadata,
  type StoredAttachment,
  type StopReason,
  type CompactionInfo,
  type BranchSummaryInfo,
  type ToolResultInfo,
  type ToolResultStatus,
  type InstructionRef,
  type StructuredAttempt,
  type StructuredOutputInfo,
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
  type OutputProblem,
  PromptError,
  PromptLimitError,
  type PromptLimitName,
  WorkspaceAccessError,
  SymlinkLoopError,
} from './errors';
export {
  type FileType,
  type FileStat,
  type Disposable,
  type WorkspaceFiles,
  type Logger,
} from './files';
export { nodeFiles } from './nodeFiles';
export { compileOutputSchema, outputSchemaHash, extractJsonText, type OutputSchema, type OutputCheck } from './structured/outputSchema';
export { DEFAULT_OUTPUT_RETRIES, MAX_OUTPUT_RETRIES } from './structured/structuredRun';
export { schemaInstruction, withSchemaInstruction } from './llm/responseFormat';
export {
  type CompletionOptions,
  type ResponseFormat,
  type ModelInfo,
  type LLMProvider,
} from './llm/provider';
export { OpenAIProvider, type OpenAIProviderOptions } from './llm/openai';
export { OllamaProvider, type OllamaProviderOptions } from './llm/ollama';
export { PricingTable, DEFAULT_PRICING, costUsd, type ModelPrice, type ShortModelPrice, type PriceEntry } from './llm/pricing';
export { estimateTokens, estimateMessageTokens, estimateMessagesTokens, CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, IMAGE_TOKENS } from './llm/tokens';
export {
  openAIContextLength,
  ollamaContextLength,
  contextLengthOverride,
  parseOllamaShow,
  OllamaShowCache,
  OPENAI_CONTEXT_LENGTHS,
  OLLAMA_DEFAULT_NUM_CTX,
  type ContextLength,
  type ContextLengthSource,
  type ContextLengthOverrides,
  type OllamaModelContext,
} from './llm/contextLength';
export {
  tokenCounterFor,
  exactTokenCounter,
  estimatingTokenCounter,
  encodingForModel,
  ExactTokenCounter,
  EstimatingTokenCounter,
  CALIBRATION_MIN,
  CALIBRATION_MAX,
  type TokenCounter,
  type EncodingName,
} from './llm/tokenCount';
export { PathTokenCache, type CountableNode, type PathTokenCount, type ExtraParts } from './llm/pathTokenCache';
export { redactSecrets, parseRetryAfter } from './llm/providerErrors';
export { modelChoices, modelKey, sameModel } from './llm/modelNames';
export { VSCODE_MODEL_PREFIX, VSCODE_PROVIDER_NAME, VSCODE_MODEL_GROUP, vscodeModelId, isVscodeModelId, parseVscodeModelId } from './llm/vscodeLmIds';
export { toLmMessages, toLmTools, systemAsUserText, type LmPartFactory, type LmTool } from './llm/vscodeLmMessages';
export { readLmStream, lmProviderError, lmAborted, lmLimit, type LmErrorContext, type ReadLmStreamOptions } from './llm/vscodeLmStream';
export { LazyTokenCounter } from './llm/lazyTokenCounter';
export { DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_ANSWER_MS } from './llm/answerLimits';
export {
  type ConversationSortBy,
  type ConversationSummary,
  type ListOptions,
  type SearchOptions,
  type MessageMatch,
  type DeleteFilters,
  type ConversationChange,
  type NewNode,
  type ChangeResult,
  type FileChange,
  type FileVersion,
  type RecordedFileChange,
  type StoredImage,
  type FileState,
  type ConversationStorage,
} from './storage/storage';
export { SqlJsConversationStorage, type SqlJsStorageOptions } from './storage/sqlJsConversationStorage';
export { checkCheckpointPath } from './storage/fileCheckpoints';
export { PostgresConversationStorage, type PostgresStoreOptions } from './storage/postgres/postgresConversationStorage';
export { JOURNAL_SUFFIX } from './storage/sqlJsConversationStorage';
export { copyConversations, type CopyOptions, type CopyReport } from './storage/copyConversations';
export { distinctConversations, findOtherStores, type FindOtherStoresOptions, type OtherStore } from './storage/otherStores/findOtherStores';
export { listAllConversationIds, mergeStoreInto } from './storage/otherStores/mergeStore';
export { ARBOR_IDENTITY_FILE, sharedStoreDir, writeArborIdentity, type StorageIdentity } from './storage/otherStores/workspaceIdentity';
export { LEGACY_BACKUP_SUFFIX } from './storage/journaledDatabase';
export { CURRENT_SCHEMA, formatSchemaVersion, type SchemaVersion } from './storage/schema';
export {
  checkImages,
  base64Size,
  sniffImageMime,
  imageDimensions,
  formatBytes,
  DEFAULT_MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  IMAGE_MIME_TYPES,
  type ImageInput,
  type CheckedImage,
  type ImageMime,
} from './images/imageInfo';
export { imagePlaceholder, imageDataUrlOf } from './conversation/messageImages';
export { markdownImages, exportJsonWithImages, imageFileName, type ExportedImageFile } from './conversation/imageExports';
export {
  type PromptRef,
  type RagConfig,
  type RagMetadata,
  type PromptModelSettings,
  type PromptOutput,
  type RenderOptions,
  type RenderResult,
  type ConversationPromptBuilder,
} from './promptContracts';
export {
  type PromptKind,
  type ValidationLevel,
  type PromptParam,
  type PromptDiagnostic,
  type MessageTemplate,
  type SourceOffset,
  type RagConfigEntry,
  type PromptTemplate,
  type PromptOutputSpec,
  type PromptInfo,
} from './prompts/libraryTypes';
export { FileSystemPromptLibrary, type PromptLibraryOptions, type PromptLibraryChange } from './prompts/fileSystemPromptLibrary';
export { PromptFolderLibrary } from './promptFolder/promptFolderLibrary';
export { PromptBuilder, type PromptBuilderOptions, type PromptRenderOptions, type MessagesRenderResult } from './prompts/promptBuilder';
export {
  runRagConfigs,
  formatRagResults,
  renderRagQuery,
  ragQueryHash,
  DEFAULT_ITEM_TEMPLATE,
  DEFAULT_RAG_K,
  DEFAULT_RAG_PLACEHOLDER,
  type RagRunOptions,
  type RagRunResult,
} from './prompts/ragRunner';
export { convertConditionalSections } from './templates/conditionalSections';
export { gitBlobId, sha256Hex } from './hashes';
export { DEFAULT_PROMPT_LIMITS, type PromptLimits, type RenderLimits } from './templates/promptLimits';
export { checkPromptFolder, type PromptCheckReport } from './promptFolder/checkPrompts';
export { runPromptsCli, type CliIo } from './promptFolder/cli';
export { FOREIGN_FOLDERS, isForeignPromptPath, type ForeignPrompt, type ForeignSource, type ForeignParam, type ForeignSegment, type ForeignFileRef, type EditorVariable } from './prompts/foreign/foreignTypes';
export { loadForeignPrompts, type ForeignLoadOptions, type ForeignPromptSet } from './prompts/foreign/loadForeignPrompts';
export { renderForeignPrompt, editorValue, type ForeignEditorContext, type ForeignRenderInput, type ForeignRenderResult } from './prompts/foreign/renderForeignPrompt';
export { filterAllowedTools, type AllowableTool } from './prompts/foreign/toolAllowList';
export {
  DEFAULT_FLOW_MAX_STEPS,
  FlowError,
  FlowExpressionError,
  type FlowDefinition,
  type FlowState,
  type AgentState,
  type ToolState,
  type FinishState,
  type FlowTemplate,
  type FlowTransition,
  type FlowConductor,
  type FlowNodeInfo,
  type FlowEvent,
} from './flows/flowTypes';
export { compileExpression, type CompiledExpression } from './flows/flowExpressions';
export { parseFlowFile, type ParsedFlowFile } from './flows/flowFile';
export { loadFlows, flowPromptProblems, FLOWS_FOLDER, type LoadedFlows, type FlowPromptLookup } from './flows/loadFlows';
export { flowEdges, conductorChoices, checkFlowGraph, type FlowEdge, type FlowGraphProblem } from './flows/flowGraph';
export { FlowRunner, initialMemory, type FlowRunOptions } from './flows/flowRunner';
export { flowToolsFrom, runFlow, resumeFlow } from './flows/flowApi';
export { flowNodeInfo, flowRunAt } from './flows/flowMarks';
export type { FlowToolRun, FlowToolProvider } from './flows/flowSteps';
export {
  forEachToken,
  tokenize,
  STOP_WORDS,
} from './rag/tokenizer';
export {
  splitLines,
  chunkText,
  type Chunk,
  type ChunkOptions,
} from './rag/chunker';
export {
  excludeGlobs,
  globMatcher,
  languageOf,
  looksBinary,
  DEFAULT_SECRET_PATTERNS,
  ALWAYS_SKIPPED_DIRS,
  type ExcludeSetting,
  FileRules,
} from './rag/fileRules';
export { canonicalPath, canonicalSegment, inGitFolder } from './rag/pathNames';
export {
  isInside,
  type ScannedFile,
  WorkspaceScanner,
} from './rag/workspaceScanner';
export {
  type ScoredChunk,
  BM25_K1,
  BM25_B,
  type IndexSnapshot,
  type IndexSearchOptions,
  InvertedIndex,
} from './rag/invertedIndex';
export {
  writeIndexFile,
  readIndexFile,
  type SavedIndex,
  CorruptIndexFileError,
} from './rag/indexFile';
export {
  type IndexProgress,
  type IndexStats,
  type IndexUpdateResult,
  type WorkspaceIndexOptions,
  WorkspaceIndex,
} from './rag/workspaceIndex';
export {
  parseFileSpecs,
  type FilesAdapterOptions,
  type FileSpec,
  FilesAdapter,
} from './rag/filesAdapter';
export { type RagAdapter, type RagResultItem } from './rag/ragAdapter';
// MCP configuration only: reading `.vscode/mcp.json` and the setting needs no MCP SDK, so the host lists
// configured servers at no cost. The client itself (connections, tools) is src/core/mcp/index.ts, which
// the host loads on first use.
export { parseMcpJson, type McpConfig, type McpInputDefinition, type McpServerConfig, type McpServerSource } from './mcp/mcpConfig';
export { collectMcpServers, type CollectedMcpServers, type McpConfigSources, type McpSettingValue } from './mcp/mcpServers';
export { McpConfigError } from './mcp/mcpErrors';
export {
  canonicalJson,
  MCP_TRUST_KEY,
  mcpConfigHash,
  McpServerTrust,
  mcpTrustPrompt,
  McpTrustStore,
  needsMcpTrust,
  type McpTrustAsker,
  type McpTrustEntry,
  type McpTrustMemento,
  type McpTrustPrompt,
  type McpTrustState,
} from './mcp/mcpTrust';
// Changing files: search/replace edits, whole-content writes and the diffs an approval shows.
export { headAndTail } from './textCuts';
export { detectEol, toLf, withEol, type Eol } from './edits/lineEndings';
export { applySearchReplace, EditMatchError, type SearchReplaceEdit, type SearchReplaceResult, type AppliedEdit, type EditMatch, type EditFailure } from './edits/searchReplace';
export { diffText, minimalReplacement, type TextDiff, type DiffHunk, type DiffTextOptions, type TextReplacement } from './edits/textDiff';
export { proposeEdit, proposeContent, type ProposedChange } from './edits/proposeEdit';
export { INSTRUCTION_KINDS, isInstructionKind, parseInstructionFile, type InstructionFile, type InstructionKind } from './instructions/instructionFile';
export { applicableInstructions, renderInstructions, type AppliedInstruction, type ApplicableInstructions, type InstructionReason } from './instructions/applicability';
export { InstructionCatalog, INSTRUCTION_WATCH_GLOB, MAX_INSTRUCTION_BYTES, type InstructionCatalogOptions } from './instructions/instructionCatalog';
export { filesInPlay } from './instructions/filesInPlay';
export { globProblem, MAX_GLOB_WILDCARDS, SAFE_GLOB_OPTIONS } from './globSafety';
