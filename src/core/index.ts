/**
 * The engine's public API: the one module that code outside `src/core` may import.
 */
export * from './conversation/types';
export * from './errors';
export * from './files';
export { nodeFiles } from './nodeFiles';
export * from './llm/provider';
export * from './storage/storage';
export { SqlJsConversationStorage, type SqlJsStorageOptions } from './storage/sqlJsConversationStorage';
export * from './prompts/types';
export * from './rag/tokenizer';
export * from './rag/chunker';
export * from './rag/fileRules';
export * from './rag/workspaceScanner';
export * from './rag/invertedIndex';
export * from './rag/indexFile';
export * from './rag/workspaceIndex';
export * from './rag/filesAdapter';
