/**
 * ChatGPT's data export (`conversations.json` in the zip from Settings → Data controls → Export): an
 * array of conversations, each a `mapping` of node id → `{id, message|null, parent, children}` and a
 * `current_node`. Every branch is kept (an edited question or a regenerated answer is a second child);
 * scaffolding (the empty root, hidden system messages, empty nodes, reasoning placeholders) is left
 * out and its children hang on the nearest kept ancestor. A model's `thoughts` become the `thinking`
 * of the answer below them; a call to a tool (`recipient` other than `all`) and the tool's output
 * become an assistant tool call and its result.
 */
import { InvalidArgumentError } from '../../errors';
import { fenceFor } from '../../markdownFence';
import type { DataknobsConversationDict } from '../exchange';
import { BUILT_ROOT, DataknobsBuilder, isoFromEpoch, type BuiltMessage } from './dataknobsBuilder';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One conversation of a ChatGPT export, as far as the importer reads it. */
export interface ChatGptConversation {
  title?: string | null;
  create_time?: number | null;
  update_time?: number | null;
  mapping: Record<string, { id?: string; message?: Json | null; parent?: string | null; children?: string[] }>;
  current_node?: string | null;
  conversation_id?: string;
  id?: string;
  default_model_slug?: string | null;
}

/** Whether `obj` is one conversation of a ChatGPT export (a `mapping` of nodes). */
export function isChatGptConversation(obj: unknown): obj is ChatGptConversation {
  return isObject(obj) && isObject(obj.mapping) && !('nodes' in obj) && ('current_node' in obj || 'title' in obj || 'create_time' in obj);
}

/** Whether `obj` is a ChatGPT `conversations.json`: a non-empty array of such conversations. */
export function isChatGptExport(obj: unknown): obj is ChatGptConversation[] {
  return Array.isArray(obj) && obj.length > 0 && obj.every(isChatGptConversation);
}

/** Reads every conversation of a ChatGPT export (or one conversation object) into Arbor's file shape. */
export function fromChatGptExport(obj: unknown): DataknobsConversationDict[] {
  const list = isChatGptConversation(obj) ? [obj] : obj;
  if (!isChatGptExport(list)) {
    throw new InvalidArgumentError('Expected ChatGPT\'s conversations.json: a list of conversations, each with a "mapping" of messages.');
  }
  return list.map((c, i) => fromChatGptConversation(c, i));
}

/** What a node of the mapping becomes. */
type Kept =
  | { kind: 'message'; message: BuiltMessage }
  | { kind: 'thinking'; text: string }
  | { kind: 'instructions'; text: string }
  | { kind: 'skip' };

/** Reads one conversation of a ChatGPT export; `index` names it in errors. */
export function fromChatGptConversation(conv: ChatGptConversation, index = 0): DataknobsConversationDict {
  const id = typeof conv.conversation_id === 'string' ? conv.conversation_id : typeof conv.id === 'string' ? conv.id : undefined;
  const name = `ChatGPT conversation ${index + 1}${conv.title ? ` ("${conv.title}")` : ''}`;
  if (!id) throw new InvalidArgumentError(`${name} has no "conversation_id" or "id".`);
  const mapping = conv.mapping;
  const createdAt = isoFromEpoch(conv.create_time, 's') ?? firstMessageTime(mapping) ?? new Date(0).toISOString();
  const builder = new DataknobsBuilder(id, createdAt);
  const roots = Object.keys(mapping).filter((key) => {
    const parent = mapping[key]?.parent;
    return parent === null || parent === undefined || !(parent in mapping);
  });
  if (roots.length === 0) throw new InvalidArgumentError(`${name} has no root message (every node has a parent).`);

  // Where each source node ended up: its own built node, or (skipped) the nearest kept ancestor's.
  const placed = new Map<string, string>();
  const seen = new Set<string>();
  type Step = { key: string; parent: string; thinking?: string; callIds: string[] };
  const stack: Step[] = roots.reverse().map((key) => ({ key, parent: BUILT_ROOT, callIds: [] }));
  while (stack.length > 0) {
    const step = stack.pop() as Step;
    if (seen.has(step.key)) continue;
    seen.add(step.key);
    const entry = mapping[step.key];
    const kept = readNode(entry?.message ?? null, step.key, step.callIds);
    let parent = step.parent;
    let thinking = step.thinking;
    let callIds = step.callIds;
    if (kept.kind === 'message') {
      const message = kept.message;
      if (thinking && message.role === 'assistant') {
        message.thinking = message.thinking ? `${thinking}\n\n${message.thinking}` : thinking;
      }
      thinking = undefined;
      parent = builder.add(step.parent, message);
      callIds = message.toolCalls?.map((c) => c.id) ?? (message.role === 'tool' ? callIds.filter((c) => c !== message.toolCallId) : []);
    } else if (kept.kind === 'thinking') {
      thinking = thinking ? `${thinking}\n\n${kept.text}` : kept.text;
    } else if (kept.kind === 'instructions') {
      // Custom instructions before the first message are the chat's system prompt; a later one stays where it was.
      if (step.parent === BUILT_ROOT) builder.appendToRoot(kept.text);
      else parent = builder.add(step.parent, { role: 'system', content: kept.text, metadata: { importedFrom: { format: 'chatgpt', id: step.key } } });
    }
    placed.set(step.key, parent);
    const children = Array.isArray(entry?.children) ? entry.children.filter((c) => typeof c === 'string' && c in mapping) : [];
    for (const child of [...children].reverse()) stack.push({ key: child, parent, thinking, callIds });
  }
  const current = typeof conv.current_node === 'string' ? placed.get(conv.current_node) : undefined;
  if (current !== undefined) builder.setCurrent(current);
  const metadata: Json = { title: conv.title ?? '', importedFrom: { format: 'chatgpt', id } };
  if (typeof conv.default_model_slug === 'string') (metadata.importedFrom as Json).model = conv.default_model_slug;
  return builder.build(metadata, isoFromEpoch(conv.update_time, 's'));
}

function firstMessageTime(mapping: ChatGptConversation['mapping']): string | undefined {
  const times = Object.values(mapping)
    .map((n) => (isObject(n?.message) ? n.message.create_time : undefined))
    .filter((t): t is number => typeof t === 'number' && t > 0);
  return times.length ? isoFromEpoch(Math.min(...times), 's') : undefined;
}

/** What one mapping node becomes; `openCalls` are the tool calls above it still without a result. */
function readNode(message: Json | null, key: string, openCalls: string[]): Kept {
  if (!isObject(message)) return { kind: 'skip' };
  const author = isObject(message.author) ? message.author : {};
  const role = author.role;
  const content = isObject(message.content) ? message.content : {};
  const type = typeof content.content_type === 'string' ? content.content_type : 'text';
  const meta = isObject(message.metadata) ? message.metadata : {};
  if (type === 'thoughts') return { kind: 'thinking', text: thoughtsText(content.thoughts) };
  if (type === 'reasoning_recap') return { kind: 'skip' };
  if (type === 'user_editable_context') return instructions([content.user_profile, content.user_instructions]);
  if (role === 'system' && meta.is_user_system_message && isObject(meta.user_context_message_data)) {
    const data = meta.user_context_message_data;
    return instructions([data.about_user_message, data.about_model_message]);
  }
  if (meta.is_visually_hidden_from_conversation === true) return { kind: 'skip' };
  const { text, attachments } = contentText(content, type);
  const timestamp = isoFromEpoch(message.create_time, 's');
  const source: Json = { format: 'chatgpt', id: typeof message.id === 'string' ? message.id : key };
  if (type !== 'text') source.contentType = type;
  if (attachments.length) source.attachments = attachments;
  const nodeMeta: Json = { importedFrom: source };
  if (typeof meta.model_slug === 'string') nodeMeta.model = meta.model_slug;
  const recipient = typeof message.recipient === 'string' ? message.recipient : 'all';
  if (role === 'system') return text.trim() ? { kind: 'instructions', text } : { kind: 'skip' };
  if (!text.trim() && attachments.length === 0) return { kind: 'skip' };
  if (role === 'user') return { kind: 'message', message: { role: 'user', content: text, timestamp, metadata: nodeMeta } };
  if (role === 'assistant' && recipient !== 'all') {
    // The call's argument is what the model sent the tool: the bare code, not the fenced text shown.
    const input = type === 'code' && typeof content.text === 'string' ? content.text : text;
    const call = { id: `call_${source.id as string}`, name: recipient, arguments: JSON.stringify({ input }) };
    return { kind: 'message', message: { role: 'assistant', content: '', toolCalls: [call], timestamp, metadata: nodeMeta } };
  }
  if (role === 'assistant') return { kind: 'message', message: { role: 'assistant', content: text, timestamp, metadata: nodeMeta } };
  if (role === 'tool') {
    const toolName = typeof author.name === 'string' ? author.name : 'tool';
    // A tool's output answers the open call above it; one without a call (a file-search note, an
    // image the tool sent on its own) stays readable as an answer naming the tool.
    if (openCalls.length > 0) {
      return { kind: 'message', message: { role: 'tool', content: text, name: toolName, toolCallId: openCalls[0], timestamp, metadata: nodeMeta } };
    }
    source.role = 'tool';
    return { kind: 'message', message: { role: 'assistant', content: `[${toolName}]\n${text}`, timestamp, metadata: nodeMeta } };
  }
  return { kind: 'skip' };
}

function instructions(parts: unknown[]): Kept {
  const text = parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').join('\n\n');
  return text ? { kind: 'instructions', text } : { kind: 'skip' };
}

function thoughtsText(thoughts: unknown): string {
  if (!Array.isArray(thoughts)) return '';
  return thoughts
    .map((t) => {
      if (!isObject(t)) return '';
      const summary = typeof t.summary === 'string' ? t.summary : '';
      const body = typeof t.content === 'string' ? t.content : '';
      return [summary && `**${summary}**`, body].filter(Boolean).join('\n');
    })
    .filter(Boolean)
    .join('\n\n');
}

/** The text of a message's content, and the attachments (images, files) it points at but does not hold. */
function contentText(content: Json, type: string): { text: string; attachments: Json[] } {
  const attachments: Json[] = [];
  if (type === 'code') {
    const code = typeof content.text === 'string' ? content.text : '';
    const language = typeof content.language === 'string' && content.language !== 'unknown' ? content.language : '';
    const fence = fenceFor(code);
    return { text: code ? `${fence}${language}\n${code}\n${fence}` : '', attachments };
  }
  if (typeof content.text === 'string' && !Array.isArray(content.parts)) return { text: content.text, attachments };
  const parts = Array.isArray(content.parts) ? content.parts : [];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      if (part) texts.push(part);
    } else if (isObject(part)) {
      const partType = typeof part.content_type === 'string' ? part.content_type : 'object';
      if (typeof part.text === 'string' && part.text) {
        texts.push(part.text);
        continue;
      }
      const pointer = typeof part.asset_pointer === 'string' ? part.asset_pointer : undefined;
      attachments.push(pointer ? { contentType: partType, assetPointer: pointer, ...(typeof part.width === 'number' ? { width: part.width, height: part.height } : {}) } : { contentType: partType });
      const what = partType.replace(/_asset_pointer$/, '').replace(/_/g, ' ');
      texts.push(pointer ? `[${what}: ${pointer}]` : `[${what}]`);
    }
  }
  return { text: texts.join('\n\n'), attachments };
}
