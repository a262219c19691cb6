/**
 * Continue's saved sessions (`~/.continue/sessions/<sessionId>.json`): `{sessionId, title,
 * workspaceDirectory, history: [{message, contextItems}]}`, where a message is `{role, content}` with
 * content a string or a list of parts (`{type: "text", text}`, `{type: "imageUrl", imageUrl: {url}}`)
 * and roles `user`, `assistant` (with `toolCalls`), `thinking`, `tool` (with `toolCallId`) and
 * `system`. A session is one branch. The folder's `sessions.json` is only the index of them.
 */
import { InvalidArgumentError } from '../../errors';
import { fenceFor } from '../../markdownFence';
import type { DataknobsConversationDict } from '../exchange';
import { BUILT_ROOT, DataknobsBuilder, isoFromEpoch } from './dataknobsBuilder';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `obj` is a Continue session file. */
export function isContinueSession(obj: unknown): boolean {
  return isObject(obj) && typeof obj.sessionId === 'string' && Array.isArray(obj.history);
}

/** Whether `obj` is Continue's `sessions.json`, the list of sessions (`{sessionId, title, dateCreated, workspaceDirectory}`). */
export function isContinueSessionIndex(obj: unknown): boolean {
  return Array.isArray(obj) && obj.length > 0 && obj.every((s) => isObject(s) && typeof s.sessionId === 'string' && 'dateCreated' in s && !('history' in s));
}

/** Options for reading a session: Continue writes no times into it, so the caller may give one (the file's). */
export interface ContinueSessionOptions {
  /** UTC ISO time for the conversation and its messages when the session has none (default: now). */
  time?: string;
}

/** Reads a Continue session into Arbor's file shape, one node per message. */
export function fromContinueSession(obj: unknown, options: ContinueSessionOptions = {}): DataknobsConversationDict {
  if (!isContinueSession(obj)) {
    throw new InvalidArgumentError('Expected a Continue session ({"sessionId": "...", "history": [...]}).');
  }
  const data = obj as Json & { sessionId: string; history: unknown[] };
  const created = isoFromEpoch(Number(data.dateCreated), 'ms') ?? options.time ?? new Date().toISOString();
  const builder = new DataknobsBuilder(data.sessionId, created);
  let parent = BUILT_ROOT;
  let thinking: string | undefined;
  data.history.forEach((raw, i) => {
    const item = isObject(raw) ? raw : {};
    const message = isObject(item.message) ? item.message : undefined;
    if (!message) throw new InvalidArgumentError(`History item ${i} of Continue session "${data.sessionId}" has no "message".`);
    const role = message.role;
    const { text, images } = partsText(message.content);
    const source: Json = { format: 'continue', id: typeof message.id === 'string' ? message.id : `${data.sessionId}#${i}` };
    const metadata: Json = { importedFrom: source };
    if (role === 'thinking') {
      thinking = [thinking, text].filter(Boolean).join('\n\n');
      return;
    }
    if (role === 'system') {
      if (parent === BUILT_ROOT) builder.appendToRoot(text);
      else parent = builder.add(parent, { role: 'system', content: text, metadata });
      return;
    }
    if (role === 'user') {
      const context = contextItems(item.contextItems);
      if (context.length) {
        source.contextItems = context.map(({ content: _content, ...rest }) => rest);
        metadata.displayText = text;
      }
      const content = [text.trim(), ...context.map((c) => `${c.name}${c.description && c.description !== c.name ? ` (${c.description})` : ''}:\n${fenced(c.content)}`)].filter(Boolean).join('\n\n');
      parent = builder.add(parent, { role: 'user', content, images, metadata });
      return;
    }
    if (role === 'assistant') {
      const reasoning = isObject(item.reasoning) && typeof item.reasoning.text === 'string' ? item.reasoning.text : undefined;
      const calls = toolCalls(message.toolCalls, source.id as string);
      parent = builder.add(parent, { role: 'assistant', content: text, toolCalls: calls, thinking: [thinking, reasoning].filter(Boolean).join('\n\n') || undefined, metadata });
      thinking = undefined;
      return;
    }
    if (role === 'tool') {
      const id = typeof message.toolCallId === 'string' ? message.toolCallId : undefined;
      // Agent mode keeps a tool's output as the item's context items when the message itself is empty.
      const output = text || contextItems(item.contextItems).map((c) => c.content).join('\n\n');
      parent = builder.add(parent, { role: 'tool', content: output, toolCallId: id, metadata });
      return;
    }
    throw new InvalidArgumentError(`History item ${i} of Continue session "${data.sessionId}" has role ${JSON.stringify(role)}; expected user, assistant, thinking, tool or system.`);
  });
  builder.setCurrent(parent);
  const metadata: Json = { title: typeof data.title === 'string' ? data.title : '', importedFrom: { format: 'continue', id: data.sessionId } };
  if (typeof data.workspaceDirectory === 'string') (metadata.importedFrom as Json).workspaceDirectory = data.workspaceDirectory;
  if (typeof data.chatModelTitle === 'string') (metadata.importedFrom as Json).model = data.chatModelTitle;
  return builder.build(metadata);
}

function fenced(text: string): string {
  const f = fenceFor(text);
  return `${f}\n${text}\n${f}`;
}

/** A message's text and its images (data URLs) from a string or a list of parts. */
function partsText(content: unknown): { text: string; images: string[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  const texts: string[] = [];
  const images: string[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'imageUrl' && isObject(part.imageUrl) && typeof part.imageUrl.url === 'string') {
      if (part.imageUrl.url.startsWith('data:')) images.push(part.imageUrl.url);
      else texts.push(`[image: ${part.imageUrl.url}]`);
    }
  }
  return { text: texts.join('\n\n'), images };
}

/** Context items attached to a question: what the model saw (`content`) and what names it. */
function contextItems(raw: unknown): Array<{ name: string; description: string; content: string; uri?: string; provider?: string }> {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObject).map((c) => {
    const uri = isObject(c.uri) && typeof c.uri.value === 'string' ? c.uri.value : undefined;
    const provider = isObject(c.id) && typeof c.id.providerTitle === 'string' ? c.id.providerTitle : undefined;
    return {
      name: typeof c.name === 'string' ? c.name : 'Context',
      description: typeof c.description === 'string' ? c.description : '',
      content: typeof c.content === 'string' ? c.content : '',
      ...(uri ? { uri } : {}),
      ...(provider ? { provider } : {}),
    };
  });
}

/** Continue's `ToolCallDelta`s (`{id, type: "function", function: {name, arguments}}`) as the builder's calls. */
function toolCalls(raw: unknown, messageId: string): Array<{ id: string; name: string; arguments: string }> | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  return raw.filter(isObject).map((c, i) => {
    const fn = isObject(c.function) ? c.function : {};
    return {
      id: typeof c.id === 'string' ? c.id : `call_${messageId}_${i}`,
      name: typeof fn.name === 'string' ? fn.name : 'tool',
      arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
    };
  });
}
