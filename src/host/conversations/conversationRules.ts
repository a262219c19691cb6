/**
 * The rules of a conversation as the chat and the sidebar apply them: its title, its cost, the text
 * a message shows, and what a user message keeps in its metadata. Pure (no `vscode`), so they are
 * unit tested; `chatController.ts` only dispatches and streams, and calls these.
 */
import { ROOT_NODE_ID, nodeMetadata, readConversationMetadata, readNodeMetadata } from '../../core/index';
import type { ConversationMetadata, ConversationNode, ConversationReader, NodeMetadata, StoredAttachment } from '../../core/index';
import type { Attachment } from '../../shared/protocol';
import { firstLine } from '../base/labels';
import { promptTitle, typedPromptText } from './promptMessages';

/** What a conversation is called when nothing names it yet. */
export const UNTITLED = 'New conversation';

/**
 * The title of a conversation: its `title`, else the first line of its first user message (given,
 * or kept in the metadata as `firstMessage`), else "New conversation".
 */
export function conversationTitle(metadata: Readonly<Record<string, unknown>>, firstUserText?: string): string {
  const title = readConversationMetadata(metadata, 'title');
  if (title?.trim()) return firstLine(title, 80);
  const first = firstUserText ?? readConversationMetadata(metadata, 'firstMessage');
  if (first?.trim()) return firstLine(first, 60);
  return UNTITLED;
}

/** The text a message shows: what the user typed (`displayText`) rather than the prompt or attachments it became. */
export function messageDisplayText(node: ConversationNode): string {
  return readNodeMetadata(node.metadata, 'displayText') || node.message.content;
}

/** The title of an open conversation: its `title`, else what its first user message shows. */
export function chatTitle(metadata: Readonly<Record<string, unknown>>, nodes: readonly ConversationNode[]): string {
  const firstUser = nodes.find((n) => n.message.role === 'user');
  const prompt = firstUser ? readNodeMetadata(firstUser.metadata, 'prompt') : undefined;
  // Arbor used to title a chat begun with a prompt and no text "/name"; such a stored title gives way to the prompt's values.
  const stale = prompt !== undefined && readConversationMetadata(metadata, 'title') === `/${prompt.name}`;
  return conversationTitle(stale ? { ...metadata, title: undefined } : metadata, firstUser ? titleText(firstUser) : undefined);
}

/** What a first message names its conversation by: a prompt message by its values (see `promptTitle`), not its `/name`. */
function titleText(node: ConversationNode): string {
  const { prompt, promptParams, displayText } = nodeMetadata(node.metadata);
  return prompt ? promptTitle({ name: prompt.name, text: typedPromptText(displayText, prompt.name), params: promptParams }) : messageDisplayText(node);
}

/**
 * The title of an open conversation: `chatTitle` over its first messages (the root's children, in
 * the order they were written), without copying every node of a long conversation.
 */
export function managerTitle(manager: Pick<ConversationReader, 'getMetadata' | 'getChildren'>): string {
  return chatTitle(manager.getMetadata() as Record<string, unknown>, manager.getChildren(ROOT_NODE_ID));
}

/** What the first message of a conversation is made of, for naming it. */
export interface FirstMessage {
  text: string;
  promptName?: string;
  attachments: readonly Pick<Attachment, 'path'>[];
}

/**
 * The title a message gives its conversation, or `undefined` when the conversation already has one:
 * the typed text, else the prompt's name (prompt messages are titled by `promptTitle`), else the first attached path.
 */
export function titleFromMessage(metadata: Readonly<Record<string, unknown>>, message: FirstMessage): string | undefined {
  if (readConversationMetadata(metadata, 'title')) return undefined;
  return firstLine(message.text || message.promptName || message.attachments[0]?.path || UNTITLED, 80);
}

/** What a prompt message shows in the chat: `/name` and the text typed with it. */
export function promptDisplayText(promptName: string, text: string): string {
  return text.trim() ? `/${promptName} ${text.trim()}` : `/${promptName}`;
}

/** What a user message keeps about its attachments: where each came from, not its text (that is in the content). */
export function storedAttachments(attachments: readonly Attachment[]): StoredAttachment[] {
  return attachments.map(({ text: _text, ...a }) => ({ ...a }));
}

/** The metadata of a new user message: what was attached and what was typed. */
export function userMessageMetadata(attachments: readonly Attachment[], displayText: string): Pick<NodeMetadata, 'attachments' | 'displayText'> {
  return { attachments: storedAttachments(attachments), displayText };
}

/** The files attached to a stored message, to attach again when it is re-sent (a selection's text was not kept). */
export function storedFileAttachments(node: ConversationNode): Attachment[] {
  return (readNodeMetadata(node.metadata, 'attachments') ?? []).filter((a) => a.kind === 'file');
}

/** A user message written anew by Edit, as `addMessage` takes it. */
export interface EditedMessage {
  content: string;
  metadata: Pick<NodeMetadata, 'attachments' | 'displayText'>;
}

/**
 * An edit of a user message: the new text replaces what was typed, and what was attached to the
 * original stays (its text, which followed the typed text in the content, and the attachment list).
 */
export function editedUserMessage(original: ConversationNode, text: string): EditedMessage {
  const { displayText, attachments } = nodeMetadata(original.metadata);
  const content = original.message.content;
  const tail = displayText !== undefined && content.startsWith(displayText) ? content.slice(displayText.length) : '';
  return { content: text + tail, metadata: { attachments: attachments ?? [], displayText: text } };
}

/** The cost recorded on a node, in USD (0 when it has none). */
export function nodeCost(node: ConversationNode): number {
  return readNodeMetadata(node.metadata, 'costUsd') ?? 0;
}

/** The total cost a conversation's metadata records (`undefined` when none is recorded). */
export function conversationCost(metadata: Readonly<Record<string, unknown>>): number | undefined {
  return readConversationMetadata(metadata, 'totalCostUsd');
}

/**
 * The cost total to write into a conversation's metadata after an answer, or `undefined` when the
 * stored one is already right (writing it unchanged would only add a journal entry and redraw
 * every view once more).
 */
export function totalCostUpdate(metadata: Readonly<Record<string, unknown>>, total: number): Pick<ConversationMetadata, 'totalCostUsd'> | undefined {
  return conversationCost(metadata) === total ? undefined : { totalCostUsd: total };
}

/** The node metadata change that bookmarks a message, or removes its bookmark (the key goes, rather than stay `false`). */
export function bookmarkUpdate(bookmarked: boolean): Pick<NodeMetadata, 'bookmarked'> {
  return { bookmarked: bookmarked ? true : undefined };
}

/** The node metadata change that sets a message's note; an empty or blank note removes it. */
export function noteUpdate(note: string): Pick<NodeMetadata, 'note'> {
  const trimmed = note.trim();
  return { note: trimmed ? trimmed : undefined };
}

/**
 * What the notification says after retention deleted conversations: how many, which (the first
 * few by title), and why, naming the setting so a surprised reader can find it.
 */
export function retentionNotice(removed: readonly { metadata: Readonly<Record<string, unknown>> }[], days: number, shown = 5): string {
  const titles = removed.slice(0, shown).map((s) => `"${firstLine(conversationTitle(s.metadata), 40)}"`);
  const more = removed.length > shown ? ` and ${removed.length - shown} more` : '';
  const count = removed.length === 1 ? '1 conversation' : `${removed.length} conversations`;
  return (
    `Arbor removed ${count} nobody changed in ${days} day${days === 1 ? '' : 's'}: ${titles.join(', ')}${more}. ` +
    'Bookmarked conversations are always kept; the setting is arbor.retention.days.'
  );
}
