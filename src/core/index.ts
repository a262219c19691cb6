/**
 * The engine's public API: the one module that code outside `src/core` may import.
 */
export * from './conversation/types';
export { ConversationManager } from './conversation/conversationManager';
export * from './conversation/managerTypes';
export { ConversationTree, ROOT_NODE_ID, parentIdOf, childIdOf, childIndexOf, isValidNodeId, isSelfOrAncestor } from './conversation/conversationTree';
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
export { Emitter, type ArborEvent } from './conversation/emitter';
export * from './errors';
export * from './files';
export { nodeFiles } from './nodeFiles';
export * from './llm/provider';
export { OpenAIProvider, type OpenAIProviderOptions } from './llm/openai';
export { OllamaProvider, type OllamaProviderOptions } from './llm/ollama';
export { PricingTable, DEFAULT_PRICING, costUsd, type ModelPrice, type ShortModelPrice, type PriceEntry } from './llm/pricing';
export { estimateTokens, estimateMessageTokens, estimateMessagesTokens, CHARS_PER_TOKEN, MESSAGE_OVERHEAD_TOKENS, IMAGE_TOKENS } from './llm/tokens';
export { redactSecrets, parseRetryAfter } from './llm/providerErrors';
export * from './storage/storage';
export { SqlJsConversationStorage, type SqlJsStorageOptions } from './storage/sqlJsConversationStorage';
export { JOURNAL_SUFFIX } from './storage/sqlJsConversationStorage';
export * from './prompts/types';
export * from './prompts/libraryTypes';
export { FileSystemPromptLibrary, type PromptLibraryOptions, type PromptLibraryChange } from './prompts/fileSystemPromptLibrary';
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
export { convertConditionalSections } from './prompts/conditionalSections';
export { gitBlobId, sha256Hex } from './prompts/hashes';
export { checkPromptFolder, type PromptCheckReport } from './prompts/checkPrompts';
export { runPromptsCli, type CliIo } from './prompts/cli';
export * from './rag/tokenizer';
export * from './rag/chunker';
export * from './rag/fileRules';
export * from './rag/workspaceScanner';
export * from './rag/invertedIndex';
export * from './rag/indexFile';
export * from './rag/workspaceIndex';
export * from './rag/filesAdapter';
