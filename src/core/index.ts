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
