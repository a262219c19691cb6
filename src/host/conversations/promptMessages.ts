/**
 * What a message made from a prompt template shows and how it names its conversation: the template's
 * version and whether the file changed since, the values it was filled with, the rendered text. Pure
 * (no `vscode`): the library is asked through a `PromptVersionLookup`.
 */
import { isForeignPromptPath, nodeMetadata } from '../../core/index';
import type { ConversationNode, FileSystemPromptLibrary } from '../../core/index';
import type { PromptMessageInfo } from '../../shared/protocol';
import { firstLine } from '../base/labels';

/**
 * The git blob id of the file a prompt has now: a string, `null` when the library has no such prompt,
 * `undefined` when there is no library to ask (restricted mode, not loaded yet). `path` is the one the
 * message recorded (another tool's prompt file is found by it).
 */
export type PromptVersionLookup = (kind: PromptMessageInfo['kind'], name: string, path?: string) => string | null | undefined;

/** Asks the library for the version each prompt file has now (`undefined` without a library). */
export function promptVersionLookup(library: FileSystemPromptLibrary | undefined): PromptVersionLookup | undefined {
  if (!library) return undefined;
  return (kind, name) => (kind === 'messages' ? library.getMessagePrompt(name) : library.getUserPrompt(name))?.gitBlobId ?? null;
}

/** Which `/` folder a stored prompt path is from. */
function kindOf(path: string): PromptMessageInfo['kind'] | undefined {
  if (path.startsWith('user/')) return 'user';
  if (path.startsWith('messages/')) return 'messages';
  // Another tool's prompt file (`.github/prompts/…`): a `/` prompt like the library's user prompts.
  if (isForeignPromptPath(path)) return 'user';
  return undefined;
}

/** The text typed beside the form: what the message shows (`/name text`) without the `/name`. */
export function typedPromptText(displayText: string | undefined, name: string): string {
  if (!displayText) return '';
  const prefix = `/${name}`;
  return displayText.startsWith(prefix) ? displayText.slice(prefix.length).trim() : displayText;
}

/** The prompt part of a message's view, or `undefined` when no `/` or few-shot template made it. */
export function promptMessageInfo(node: ConversationNode, lookup?: PromptVersionLookup): PromptMessageInfo | undefined {
  const md = nodeMetadata(node.metadata);
  const ref = md.prompt;
  if (!ref) return undefined;
  const kind = kindOf(ref.path) ?? (node.promptName && node.message.role === 'user' ? 'user' : undefined);
  if (!kind) return undefined;
  const now = lookup?.(kind, ref.name, ref.path);
  const status: PromptMessageInfo['status'] = now === undefined ? 'unknown' : now === null ? 'missing' : now === ref.gitBlobId ? 'current' : 'changed';
  return {
    name: ref.name,
    kind,
    path: ref.path,
    gitBlobId: ref.gitBlobId,
    status,
    ...(md.promptParams ? { params: md.promptParams } : {}),
    text: kind === 'user' ? typedPromptText(md.displayText, ref.name) : '',
    rendered: node.message.content,
  };
}

/** What a `/` prompt message is made of, for naming its conversation. */
export interface PromptTitleSource {
  name: string;
  text: string;
  params?: Readonly<Record<string, string>>;
  description?: string;
}

/**
 * The title a prompt message gives its conversation: the typed text, else the filled parameters
 * (`code: subtotalCents(lines)`, the first that has a value), else the prompt's description, else its
 * name; never the bare `/name` trigger.
 */
export function promptTitle(source: PromptTitleSource): string {
  if (source.text.trim()) return firstLine(source.text, 80);
  const filled = Object.entries(source.params ?? {}).find(([, value]) => value.trim() !== '');
  if (filled) return firstLine(filled[1], 80);
  if (source.description?.trim()) return firstLine(source.description, 80);
  return source.name;
}
