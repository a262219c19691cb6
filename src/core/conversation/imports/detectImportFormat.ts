/**
 * Which tool wrote a file picked for Import Conversation, and its conversations in the Arbor/dataknobs
 * shape that `ConversationManager.importJson` reads. A shape nobody wrote gets an error naming every
 * format understood.
 */
import { InvalidArgumentError } from '../../errors';
import type { DataknobsConversationDict } from '../exchange';
import { isMetonSession } from '../metonImport';
import { fromChatGptExport, isChatGptConversation, isChatGptExport } from './chatgpt';
import { isContinueConfig } from './continueConfig';
import { fromContinueSession, isContinueSession, isContinueSessionIndex } from './continueSession';
import { fromCopilotChatSession, isCopilotChatSession } from './copilotChat';

/** The formats Import Conversation reads. */
export type ImportFormat = 'arbor' | 'meton' | 'chatgpt' | 'continueSession' | 'continueSessionIndex' | 'continueConfig' | 'copilot';

/** Every format understood, as the error for an unknown file lists them. */
export const IMPORT_FORMATS_TEXT =
  'Arbor/dataknobs JSON ({conversation_id, nodes, edges}), a Meton session ({session_id, messages}), ChatGPT\'s conversations.json, ' +
  'a Continue session (~/.continue/sessions/<id>.json), Continue\'s config.yaml or config.json, or a Copilot Chat session (chatSessions/<id>.json)';

/** The format of a parsed file, or `undefined` when it is none Arbor reads. */
export function detectImportFormat(obj: unknown): ImportFormat | undefined {
  if (isMetonSession(obj)) return 'meton';
  if (isChatGptExport(obj) || isChatGptConversation(obj)) return 'chatgpt';
  if (isContinueSession(obj)) return 'continueSession';
  if (isContinueSessionIndex(obj)) return 'continueSessionIndex';
  if (isCopilotChatSession(obj)) return 'copilot';
  if (isContinueConfig(obj)) return 'continueConfig';
  const data = obj as Record<string, unknown> | null;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && ('nodes' in data || 'conversation_id' in data)) return 'arbor';
  return undefined;
}

/** Options for the conversions that need a fact the file lacks. */
export interface ImportConversionOptions {
  /** UTC ISO time for files that carry none (a Continue session): the file's modification time. */
  fileTime?: string;
}

/**
 * The conversations of a parsed file, ready for `ConversationManager.importJson` (Arbor and Meton files
 * pass through as they are, since it reads them itself). A Continue configuration holds settings, not
 * conversations: the caller handles it (see `continueConfig.ts`); here it is an error saying so.
 */
export function conversationsToImport(obj: unknown, options: ImportConversionOptions = {}): { format: ImportFormat; conversations: unknown[] } {
  const format = detectImportFormat(obj);
  switch (format) {
    case 'arbor':
    case 'meton':
      return { format, conversations: [obj] };
    case 'chatgpt':
      return { format, conversations: fromChatGptExport(obj) satisfies DataknobsConversationDict[] };
    case 'continueSession':
      return { format, conversations: [fromContinueSession(obj, { time: options.fileTime })] };
    case 'copilot':
      return { format, conversations: [fromCopilotChatSession(obj)] };
    case 'continueSessionIndex':
      throw new InvalidArgumentError('This is Continue\'s sessions.json, the list of saved sessions: pick one of the session files beside it (<sessionId>.json) instead.');
    case 'continueConfig':
      throw new InvalidArgumentError('This is a Continue model configuration, not a conversation: import it as config.yaml or config.json to set Arbor\'s model from it.');
    case undefined:
      throw new InvalidArgumentError(`The file is not a conversation Arbor can read. Arbor imports ${IMPORT_FORMATS_TEXT}.`);
  }
}
