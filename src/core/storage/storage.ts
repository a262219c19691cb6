import type { ImageInput } from '../images/imageInfo';
import type { ConversationNode, ConversationState } from '../types';

/** Which field conversations are listed by. */
export type ConversationSortBy = 'createdAt' | 'updatedAt' | 'conversationId';

/** A conversation without its nodes, for lists. */
export interface ConversationSummary {
  conversationId: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  nodeCount: number;
}

export interface ListOptions {
  /** Every key must equal the stored metadata value (JSON equality). */
  filterMetadata?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  sortBy?: ConversationSortBy;
  sortOrder?: 'asc' | 'desc';
}

export interface SearchOptions extends ListOptions {
  /** Case-insensitive substring of any message on any branch. */
  contentContains?: string;
  /** ISO time; conversations created at or after it. */
  createdAfter?: string;
  /** ISO time; conversations created before it. */
  createdBefore?: string;
  /** ISO time; conversations last changed before it. */
  updatedBefore?: string;
  /**
   * Leaves out every conversation that has a message whose metadata matches all of these keys
   * (JSON equality), e.g. `{ bookmarked: true }` to leave out conversations with a bookmark.
   */
  withoutNodeMetadata?: Record<string, unknown>;
  /** Only these conversations. */
  conversationIds?: string[];
}

/** One message that matched a content search, with enough of its conversation to list it. */
export interface MessageMatch {
  conversationId: string;
  conversationMetadata: Record<string, unknown>;
  nodeId: string;
  role: ConversationNode['message']['role'];
  content: string;
  branchName?: string;
  /** The message's node metadata (bookmark, note, model…). */
  metadata: Record<string, unknown>;
}

/**
 * Filters for bulk delete; at least one of `filterMetadata`, `createdAfter`, `createdBefore`,
 * `updatedBefore` and `conversationIds` must be set (`withoutNodeMetadata` only narrows them).
 */
export type DeleteFilters = Pick<SearchOptions, 'filterMetadata' | 'createdAfter' | 'createdBefore' | 'updatedBefore' | 'withoutNodeMetadata' | 'conversationIds'>;

/** A node to add: the store gives it its id and sibling position. */
export type NewNode = Omit<ConversationNode, 'nodeId' | 'position'>;

/**
 * An incremental change to one stored conversation: what `ConversationManager` writes after each
 * operation, so that adding a message costs one node, not the whole conversation.
 */
export interface ConversationChange {
  /**
   * New nodes, each under a node that is already stored. The store gives each the next id of the
   * conversation's counter and a sibling position after every earlier child of its parent, under its
   * write lock once it has caught up with other processes, so concurrent writers never collide.
   */
  addNodes?: NewNode[];
  /** Stored nodes whose message, names or metadata changed; their id, parent and position stay. */
  updateNodes?: ConversationNode[];
  /** Node ids to remove (every id of a deleted subtree). */
  deleteNodeIds?: string[];
  currentNodeId?: string;
  /**
   * Images of the added nodes: `addImages[i]` are those of `addNodes[i]` (schema 2.2), stored in the
   * same journal entry as the node, each content once by its sha-256.
   */
  addImages?: Array<ImageInput[] | undefined>;
  /** Makes the last node of `addNodes` the current one (its id is not known before the write). */
  currentIsLastAdded?: boolean;
  /** Replaces the conversation's metadata when given. */
  metadata?: Record<string, unknown>;
  updatedAt: string;
}

/** What a change did: the added nodes as stored, with their ids and positions, in `addNodes` order. */
export interface ChangeResult {
  addedNodes: ConversationNode[];
}

/**
 * One file a node changed, as the caller records it: an accepted Apply, an `edit_file`, a `create_file`.
 * Contents are bytes (text or binary alike).
 */
export interface FileChange {
  /** Workspace-relative path with `/` separators, e.g. `src/app.ts` (no `..`, no leading `/`). */
  path: string;
  /** The content before the node; null when the node created the file. */
  before: Uint8Array | null;
  /** The content after the node; null when the node deleted the file. */
  after: Uint8Array | null;
  /** The name of the workspace folder the file is in (so Restore puts it back there); absent when unknown. */
  folder?: string;
}

/** One stored version of a file: its sha-256 (hex), by which `fileContent` returns it, and its size in bytes. */
export interface FileVersion {
  hash: string;
  size: number;
}

/** A file change as stored for a node. */
export interface RecordedFileChange {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
  /** Null when the node created the file. */
  before: FileVersion | null;
  /** Null when the node deleted the file. */
  after: FileVersion | null;
  /** Lines added and removed (as a line diff counts them); null when either side is binary. */
  linesAdded: number | null;
  linesRemoved: number | null;
}

/** What a file is after a node, by the changes recorded on the path root→node. */
export interface FileState {
  path: string;
  /** Its content's hash after the node; null when the last change on the path deleted it. */
  hash: string | null;
  /** The node on the path whose change set it (the last change on the path wins). */
  nodeId: string;
  /** Its content's hash before the first change on the path; null when that change created it. */
  originalHash: string | null;
  /**
   * The name of the workspace folder the last change on the path was made in; absent for changes
   * recorded before folders were (schema 2.2 and earlier, team store migrations before the folder one).
   */
  folder?: string;
}

/** An image of a message as stored: its bytes are `fileContent(hash)`. */
export interface StoredImage {
  /** sha-256 (hex) of the bytes. */
  hash: string;
  mime: string;
  /** The file name it was attached with. */
  name: string;
  /** Size in bytes. */
  size: number;
  /** Pixels; null when the image's header did not say. */
  width: number | null;
  height: number | null;
}

/** Where conversations live. `SqlJsConversationStorage` is the default. */
export interface ConversationStorage {
  /** Writes the whole conversation, replacing what was stored under its id (file changes included: they are dropped). */
  saveConversation(state: ConversationState): Promise<void>;
  /** Applies an incremental change; the conversation must exist (`ConversationNotFoundError`). */
  applyChange(conversationId: string, change: ConversationChange): Promise<ChangeResult>;
  /** The whole conversation, as objects the caller owns (later changes to them touch nothing stored). */
  loadConversation(conversationId: string): Promise<ConversationState | null>;
  deleteConversation(conversationId: string): Promise<boolean>;
  listConversations(options?: ListOptions): Promise<ConversationSummary[]>;
  countConversations(filter?: Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'>): Promise<number>;
  searchConversations(options: SearchOptions): Promise<ConversationSummary[]>;
  /**
   * The messages (of every conversation and branch) whose content contains `query`, case-insensitive,
   * most recently updated conversations first, at most `limit` (default 200). Reads only the matches.
   */
  searchMessages(query: string, options?: { limit?: number }): Promise<MessageMatch[]>;
  /**
   * The messages (of every conversation and branch) whose metadata matches every key of
   * `filterMetadata` (JSON equality), e.g. `{ bookmarked: true }`: most recently updated
   * conversations first, at most `limit` (default 200). Reads only the matches.
   */
  findMessages(options: { filterMetadata: Record<string, unknown>; limit?: number }): Promise<MessageMatch[]>;
  /** Deletes every conversation matching all filters; refuses an empty filter. Returns how many. */
  deleteConversations(filters: DeleteFilters): Promise<number>;
  /**
   * Deletes like `deleteConversations` and returns the conversations this call deleted, as they were
   * listed just before, so a caller can say which. The filters are checked under the store's write
   * lock: when two processes remove at once, each conversation is returned by the one that deleted it.
   */
  removeConversations(filters: DeleteFilters): Promise<ConversationSummary[]>;
  /** Merges `metadata` into the stored metadata (a key set to `undefined` is removed). */
  updateMetadata(conversationId: string, metadata: Record<string, unknown>): Promise<void>;
  /**
   * Copies a conversation under a new id; with `upToNodeId`, only that node's ancestors and itself,
   * and the copy's current node is that node. The file changes and images of the copied nodes are copied too.
   * The source is unchanged.
   */
  forkConversation(sourceId: string, newId: string, options?: { upToNodeId?: string }): Promise<ConversationState>;
  /**
   * Stores the files a node changed, each content once by its hash. Recording a path the node already
   * has merges into one change (the first `before`, the new `after`); a change that leaves the file
   * as it was is not stored. Returns all the node's changes as stored. Exports and imports of
   * conversations do not carry these yet.
   */
  recordFileChanges(conversationId: string, nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]>;
  /** The files a node changed, in the order they were first recorded (empty when none). */
  fileChanges(conversationId: string, nodeId: string): Promise<RecordedFileChange[]>;
  /** Every node of a conversation that changed files, by node id, to mark them in a whole view at once. */
  fileChangesByNode(conversationId: string): Promise<Record<string, RecordedFileChange[]>>;
  /** The images of a node, in the order they were attached (empty when none). */
  nodeImages(conversationId: string, nodeId: string): Promise<StoredImage[]>;
  /** Every node of a conversation that has images, by node id. */
  imagesByNode(conversationId: string): Promise<Record<string, StoredImage[]>>;
  /** The bytes of a stored content (a file version or an image), or null when nothing refers to that hash (any more). */
  fileContent(hash: string): Promise<Uint8Array | null>;
  /**
   * For each file changed anywhere on the path root→`nodeId`, its content after that node (what
   * Restore Files to Here writes), sorted by path.
   */
  filesStateAt(conversationId: string, nodeId: string): Promise<FileState[]>;
  /** Fires after any change, from this process or (noticed on the next read or poll) from another. */
  onDidChange?(listener: (conversationId: string) => void): { dispose(): void };
  close(): Promise<void>;
}
