/** The retrieval contract every source implements; prompts run adapters, the workspace index and files adapter are two. */

/** One retrieved piece of context. Lines are 1-based and inclusive. */
export interface RagResultItem {
  content: string;
  score: number;
  path?: string;
  startLine?: number;
  endLine?: number;
  metadata?: Record<string, unknown>;
}

/** A retrieval source: the workspace index, explicit files, anything else. */
export interface RagAdapter {
  search(query: string, k: number, filters?: Record<string, unknown>): Promise<RagResultItem[]>;
}
