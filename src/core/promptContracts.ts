/**
 * Contracts between the conversation manager, the prompt library, flows and retrieval, at the core's root so
 * each can import them (and the metadata keys name them) without importing the others. The manager only
 * knows `ConversationPromptBuilder`; `PromptBuilder` (prompts/) implements it over a `FileSystemPromptLibrary`.
 */
import type { RagResultItem } from './rag/ragAdapter';

/** Which version of which template file produced a message. */
export interface PromptRef {
  name: string;
  /** Path of the template file, relative to the prompts folder, with `/` separators. */
  path: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** The blob id `git hash-object` gives the file, computed without git. */
  gitBlobId: string;
}

/** A retrieval config of a prompt (front matter `rag:` or a `prompts/rag/<name>` file). */
export interface RagConfig {
  /** Adapter name, e.g. "workspace" or "files". */
  adapter: string;
  /** Itself a template over the prompt's params. */
  query: string;
  k?: number;
  /** The template variable the results fill; default `RAG_CONTENT`. */
  placeholder?: string;
  header?: string;
  /** Template for each result, with `index`, `content`, `score`, `path`, `startLine`, `endLine`. */
  itemTemplate?: string;
  filters?: Record<string, unknown>;
}

/** What one placeholder's retrieval found, stored on the node so a branch can reuse it. */
export interface RagMetadata {
  placeholder: string;
  adapter: string;
  query: string;
  /** sha256 hex of `${adapter}:${query}`. */
  queryHash: string;
  k: number;
  results: RagResultItem[];
  formattedContent: string;
  /** ISO time of the search. */
  timestamp: string;
}

/**
 * The structured answer a prompt asks for (front matter `output:` and `retries:`): pass `schema` and `retries`
 * to `ConversationManager.complete({ outputSchema, retries })`.
 */
export interface PromptOutput {
  /** The JSON Schema, compiled once by the library (so it is known to be valid). */
  schema: Record<string, unknown>;
  /** `outputSchemaHash(schema)`, as the answer's `metadata.structuredOutput.schemaHash` will carry it. */
  schemaHash: string;
  /** Retries after an invalid answer; absent: the manager's default (2). */
  retries?: number;
  /** The `.schema.json` file it was read from, relative to the prompts folder; absent for an inline schema. */
  schemaFile?: string;
}

/** Model settings a prompt file may carry in its front matter. */
export interface PromptModelSettings {
  model?: string;
  temperature?: number;
  maxTokens?: number;
}

export interface RenderOptions {
  params?: Record<string, unknown>;
  /** Run the prompt's retrieval configs (default true). */
  includeRag?: boolean;
  returnRagMetadata?: boolean;
  /** Earlier retrievals; one whose queryHash and placeholder match is reused instead of searching. */
  cachedRag?: RagMetadata[];
  /** Extra retrieval configs (for inline prompts). */
  ragConfigs?: RagConfig[];
}

export interface RenderResult {
  content: string;
  paramsUsed: Record<string, unknown>;
  paramsMissing: string[];
  validationWarnings: string[];
  /** Keyed by placeholder. */
  ragMetadata?: Record<string, RagMetadata>;
  /** Absent for inline prompts. */
  prompt?: PromptRef;
  settings?: PromptModelSettings;
  /** The structured answer the prompt asks for (its `output:`), to pass to `complete`. */
  output?: PromptOutput;
}

/** What the conversation manager needs from a prompt builder. */
export interface ConversationPromptBuilder {
  renderSystemPrompt(name: string, options?: RenderOptions): Promise<RenderResult>;
  renderUserPrompt(name: string, options?: RenderOptions): Promise<RenderResult>;
  renderInlineSystemPrompt(content: string, options?: RenderOptions): Promise<RenderResult>;
  renderInlineUserPrompt(content: string, options?: RenderOptions): Promise<RenderResult>;
}
