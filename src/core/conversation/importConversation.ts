import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, InvalidOperationError } from '../errors';
import { isReservedId } from '../validation';
import { ConversationManager } from './conversationManager';
import { isMetonSession } from './metonImport';
import type { ConversationManagerOptions } from './managerTypes';

/** A conversation read from a file: its manager and, when the file's id was already stored, that id. */
export interface ImportedConversation {
  manager: ConversationManager;
  /** Set when the file's conversation id could not be kept, so it was imported under a new id: the file's id. */
  copyOf?: string;
  /**
   * Why the id was not kept: `taken` (a conversation with it is already stored: this is a copy) or
   * `reserved` (it names a member every JavaScript object has, such as `constructor`; see `isReservedId`).
   */
  newIdReason?: 'taken' | 'reserved';
}

/**
 * Parses the text of a conversation file (Arbor/dataknobs JSON or a Meton session). Text that is not
 * JSON throws `InvalidArgumentError` saying so; whether it is a conversation is checked on import.
 */
export function parseConversationJson(text: string): unknown {
  try {
    // A byte-order mark is valid in a file but not in JSON.
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new InvalidArgumentError(`The file is not JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
}

/**
 * Stores a parsed conversation file as a new conversation. When its id is already in the store, it is
 * imported as a copy under a fresh id (and `copyOf` names the original) rather than refused; so is a
 * file whose id names a member every JavaScript object has (`__proto__`, `constructor`…).
 */
export async function importConversation(obj: unknown, options: ConversationManagerOptions): Promise<ImportedConversation> {
  const id = sourceId(obj);
  if (id !== undefined && isReservedId(id)) {
    return { manager: await ConversationManager.importJson(obj, { ...options, conversationId: randomUUID() }), copyOf: id, newIdReason: 'reserved' };
  }
  try {
    return { manager: await ConversationManager.importJson(obj, options) };
  } catch (error) {
    // importJson refuses only a taken id with this error; anything else (a malformed file) propagates.
    if (!(error instanceof InvalidOperationError)) throw error;
    const manager = await ConversationManager.importJson(obj, { ...options, conversationId: randomUUID() });
    return { manager, copyOf: id, newIdReason: 'taken' };
  }
}

/** The id the file gives its conversation, read as `importJson` reads it. */
function sourceId(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const data = obj as { conversation_id?: unknown; session_id?: unknown };
  const id = isMetonSession(obj) ? data.session_id : data.conversation_id;
  return typeof id === 'string' ? id : undefined;
}
