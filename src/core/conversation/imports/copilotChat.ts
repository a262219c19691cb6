/**
 * GitHub Copilot Chat's saved sessions: the files VS Code writes under
 * `<user data>/User/workspaceStorage/<workspace id>/chatSessions/<sessionId>.json` (its
 * `ISerializableChatData`: `{version, sessionId, creationDate, lastMessageDate, customTitle?,
 * requesterUsername, responderUsername, initialLocation, requests}`). Each request is a question and
 * its response a list of parts (Markdown `{value}`, inline references, tool invocations, thinking,
 * edits...); a session is one branch of question/answer pairs.
 */
import { InvalidArgumentError } from '../../errors';
import type { DataknobsConversationDict } from '../exchange';
import { BUILT_ROOT, DataknobsBuilder, isoFromEpoch } from './dataknobsBuilder';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `obj` is a Copilot Chat session file. */
export function isCopilotChatSession(obj: unknown): boolean {
  return isObject(obj) && Array.isArray(obj.requests) && typeof obj.responderUsername === 'string' && ('sessionId' in obj || 'requesterUsername' in obj);
}

/** The text of a request's question (`message` is `{text, parts}`, or a string in old files). */
export function copilotRequestText(request: unknown): string {
  const message = isObject(request) ? request.message : undefined;
  if (typeof message === 'string') return message;
  return isObject(message) && typeof message.text === 'string' ? message.text : '';
}

/** A session's title: its custom title, else its first question's first line. */
export function copilotSessionTitle(obj: unknown): string {
  const data = isObject(obj) ? obj : {};
  if (typeof data.customTitle === 'string' && data.customTitle.trim()) return data.customTitle.trim();
  if (typeof data.computedTitle === 'string' && data.computedTitle.trim()) return data.computedTitle.trim();
  const first = Array.isArray(data.requests) ? copilotRequestText(data.requests[0]) : '';
  return first.split('\n', 1)[0].trim();
}

/** Reads a Copilot Chat session into Arbor's file shape: a question and an answer per request. */
export function fromCopilotChatSession(obj: unknown): DataknobsConversationDict {
  if (!isCopilotChatSession(obj)) {
    throw new InvalidArgumentError('Expected a Copilot Chat session ({"requesterUsername", "responderUsername", "requests": [...]}).');
  }
  const data = obj as Json & { requests: unknown[] };
  const sessionId = typeof data.sessionId === 'string' && data.sessionId ? data.sessionId : undefined;
  if (!sessionId) throw new InvalidArgumentError('The Copilot Chat session has no "sessionId".');
  const created = isoFromEpoch(data.creationDate, 'ms') ?? new Date().toISOString();
  const builder = new DataknobsBuilder(sessionId, created);
  let parent = BUILT_ROOT;
  data.requests.forEach((raw, i) => {
    if (!isObject(raw)) throw new InvalidArgumentError(`Request ${i} of Copilot Chat session "${sessionId}" is not an object.`);
    const asked = isoFromEpoch(raw.timestamp, 'ms');
    const requestId = typeof raw.requestId === 'string' ? raw.requestId : `${sessionId}#${i}`;
    const userMeta: Json = { importedFrom: { format: 'copilot', id: requestId, ...variables(raw.variableData) } };
    parent = builder.add(parent, { role: 'user', content: copilotRequestText(raw), timestamp: asked, metadata: userMeta });
    if (!Array.isArray(raw.response) && !isObject(raw.result)) return;
    const answer = responseText(Array.isArray(raw.response) ? raw.response : []);
    const result = isObject(raw.result) ? raw.result : {};
    const source: Json = { format: 'copilot', id: typeof raw.responseId === 'string' ? raw.responseId : requestId };
    if (answer.tools.length) source.tools = answer.tools;
    if (answer.editedFiles.length) source.editedFiles = answer.editedFiles;
    if (isObject(raw.agent) && typeof raw.agent.id === 'string') source.agent = raw.agent.id;
    const error = isObject(result.errorDetails) && typeof result.errorDetails.message === 'string' ? result.errorDetails.message : undefined;
    if (error) source.error = error;
    if (raw.isCanceled === true) source.canceled = true;
    const meta: Json = { importedFrom: source };
    if (typeof raw.modelId === 'string') meta.model = raw.modelId;
    const elapsed = isObject(result.timings) && typeof result.timings.totalElapsed === 'number' ? result.timings.totalElapsed : undefined;
    const answered = typeof raw.timestamp === 'number' && elapsed !== undefined ? isoFromEpoch(raw.timestamp + elapsed, 'ms') : asked;
    const content = answer.text || (error ? `[Copilot Chat error: ${error}]` : '');
    parent = builder.add(parent, { role: 'assistant', content, thinking: answer.thinking || undefined, timestamp: answered, metadata: meta });
  });
  builder.setCurrent(parent);
  const source: Json = { format: 'copilot', id: sessionId };
  if (typeof data.responderUsername === 'string') source.responder = data.responderUsername;
  return builder.build({ title: copilotSessionTitle(data), importedFrom: source }, isoFromEpoch(data.lastMessageDate, 'ms'));
}

/** The names of what a question carried (`variableData.variables`: files, selections, tools). */
function variables(raw: unknown): Json {
  const list = isObject(raw) && Array.isArray(raw.variables) ? raw.variables.filter(isObject) : [];
  const names = list.map((v) => (typeof v.name === 'string' ? v.name : typeof v.id === 'string' ? v.id : '')).filter(Boolean);
  return names.length ? { variables: names } : {};
}

function markdownValue(v: unknown): string {
  if (typeof v === 'string') return v;
  return isObject(v) && typeof v.value === 'string' ? v.value : '';
}

/** The last segment of a URI (`{path}` components, a `{uri, range}` location or a string). */
function uriName(v: unknown): string {
  const target = isObject(v) && isObject(v.uri) ? v.uri : v;
  const path = typeof target === 'string' ? target : isObject(target) && typeof target.path === 'string' ? target.path : '';
  return path.split('/').filter(Boolean).pop() ?? '';
}

/** What a response says: its Markdown with inline references as code spans, its thinking, and what it did. */
function responseText(parts: unknown[]): { text: string; thinking: string; tools: Json[]; editedFiles: string[] } {
  let text = '';
  const thinking: string[] = [];
  const tools: Json[] = [];
  const editedFiles: string[] = [];
  const paragraph = (s: string) => {
    if (!s) return;
    text += text && !text.endsWith('\n') ? `\n\n${s}` : s;
  };
  for (const part of parts) {
    if (!isObject(part)) continue;
    const kind = part.kind;
    if (kind === undefined || kind === 'markdownContent' || kind === 'markdownVuln') {
      text += markdownValue(kind === undefined ? part : part.content);
    } else if (kind === 'inlineReference') {
      const name = typeof part.name === 'string' && part.name ? part.name : uriName(part.inlineReference);
      if (name) text += `\`${name}\``;
    } else if (kind === 'thinking') {
      const value = Array.isArray(part.value) ? part.value.join('') : markdownValue(part.value);
      if (value) thinking.push(value);
    } else if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') {
      const said = markdownValue(part.pastTenseMessage) || markdownValue(part.invocationMessage);
      tools.push({ toolId: part.toolId ?? null, toolCallId: part.toolCallId ?? null, message: said });
      if (said) paragraph(`*${said}*\n\n`);
    } else if (kind === 'textEditGroup' || kind === 'notebookEditGroup') {
      const name = uriName(part.uri);
      if (name && !editedFiles.includes(name)) editedFiles.push(name);
    } else if (kind === 'warning') {
      paragraph(`> ${markdownValue(part.content)}\n\n`);
    }
  }
  if (editedFiles.length) paragraph(`*Edited ${editedFiles.map((f) => `\`${f}\``).join(', ')}.*`);
  return { text: text.trim(), thinking: thinking.join('\n\n'), tools, editedFiles };
}
