/**
 * Adds what a `/` prompt sends to the current path: a user prompt renders into one message; a few-shot
 * (`prompts/messages/`) prompt renders each of its messages into a node of its own, then the typed
 * text follows as the user's message. Both keep the form's values (`promptParams`) so Edit can reopen
 * the form with them, and name an untitled conversation after them.
 */
import { readConversationMetadata, type ConversationManager, type ForeignPromptSet, type ConversationMetadata, type FileSystemPromptLibrary, type NodeMetadata, type PromptBuilder } from '../../core/index';
import { promptDisplayText, userMessageMetadata } from '../conversations/conversationRules';
import { addForeignPromptMessage, reservedPromptNames, type ForeignSendContext, type PromptRequestOverrides } from './foreignPromptSend';
import { promptTitle } from '../conversations/promptMessages';
import { composeUserMessage, type ResolvedAttachment } from '../base/workspacePaths';

/** What sending a prompt needs of the extension (`Services` gives it; tests give real libraries in temp folders). */
export interface PromptSendContext {
  /** The workspace is trusted: its library and retrieval may be used. */
  readonly trusted: boolean;
  /** The editor's `selection`, `file` and `language` for templates. */
  editorValues(): Record<string, string>;
  promptLibrary(): Promise<FileSystemPromptLibrary | undefined>;
  promptBuilder(): Promise<PromptBuilder | undefined>;
  /** Other tools' prompt files (Copilot, Continue, Claude Code), offered beside the library's; absent when untrusted. */
  foreign?: ForeignSendContext & { list(reserved: ReadonlySet<string>): Promise<ForeignPromptSet> };
}

/** A `/` prompt as sent: its name and folder, the form's values, the typed text and the attachments (with their text). */
export interface PromptRequest {
  promptName: string;
  kind: 'user' | 'messages';
  text: string;
  /** The form's values as the webview sent them (empty ones included; they fall back to defaults). */
  params: Readonly<Record<string, string>>;
  attachments: readonly ResolvedAttachment[];
}

/** The form's values that were filled: an empty field means "use the default", so it is not passed. */
export function filledParams(params: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => typeof v === 'string' && v.trim() !== ''));
}

/**
 * The values a template gets: the editor's selection and file, an attached selection in their place,
 * every attachment as `{{attachments}}`, the typed text as `{{input}}`, then the form's values.
 */
function templateValues(context: PromptSendContext, request: PromptRequest, given: Record<string, string>): Record<string, unknown> {
  const selected = request.attachments.find((a) => a.kind === 'selection');
  const fromAttachment = selected ? { selection: selected.text, file: selected.path, language: selected.language ?? '' } : {};
  return { ...context.editorValues(), ...fromAttachment, attachments: composeUserMessage('', request.attachments), input: request.text, ...given };
}

/**
 * Adds the prompt's message(s) after the current node, and titles an untitled conversation from them.
 * Returns what the answer's request should use instead of the chat's (another tool's prompt may name a
 * model, tools or a system message), or nothing.
 */
export async function addPromptMessages(context: PromptSendContext, manager: ConversationManager, request: PromptRequest): Promise<PromptRequestOverrides | undefined> {
  if (request.kind === 'user' && context.foreign) {
    const library = await context.promptLibrary().catch(() => undefined);
    if (!library?.getUserPrompt(request.promptName)) {
      const set = await context.foreign.list(reservedPromptNames(library?.listPrompts() ?? []));
      const prompt = set.prompts.find((p) => p.name === request.promptName);
      if (prompt) return addForeignPromptMessage(context.foreign, manager, { prompt, text: request.text, params: request.params, attachments: request.attachments });
    }
  }
  const given = filledParams(request.params);
  const params = templateValues(context, request, given);
  if (request.kind === 'messages') {
    await addFewShotMessages(context, manager, request, given, params);
  } else {
    await manager.addMessage({
      role: 'user',
      promptName: request.promptName,
      params,
      includeRag: context.trusted,
      metadata: { ...userMessageMetadata(request.attachments, promptDisplayText(request.promptName, request.text)), promptParams: given } satisfies NodeMetadata,
    });
  }
  if (!readConversationMetadata(manager.getMetadata() as Record<string, unknown>, 'title')) {
    const library = await context.promptLibrary().catch(() => undefined);
    const info = library?.listPrompts().find((p) => p.kind === request.kind && p.name === request.promptName);
    // A field left at its default says nothing about this conversation: only values the user changed name it.
    const chosen = Object.fromEntries(Object.entries(given).filter(([name, value]) => defaultText(info?.params.find((p) => p.name === name)?.default) !== value));
    const title = promptTitle({ name: request.promptName, text: request.text, params: chosen, description: info?.description });
    await manager.setMetadata({ title } satisfies ConversationMetadata);
  }
  return undefined;
}

/** A parameter's default as the form shows it (text), or `undefined` when it has none. */
function defaultText(value: unknown): string | undefined {
  return value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
}

async function addFewShotMessages(
  context: PromptSendContext,
  manager: ConversationManager,
  request: PromptRequest,
  given: Record<string, string>,
  params: Record<string, unknown>,
): Promise<void> {
  const builder = context.trusted ? await context.promptBuilder() : undefined;
  if (!builder) {
    throw new Error(`The few-shot prompt "${request.promptName}" needs the workspace prompt library, which is not available (restricted mode or no prompts folder).`);
  }
  const result = await builder.renderMessagesPrompt(request.promptName, { params, includeRag: context.trusted, returnRagMetadata: true });
  const typed = request.text.trim() !== '' || request.attachments.length > 0;
  if (!typed && result.messages.at(-1)?.role !== 'user') {
    // Examples alone would end the path on an example answer: the typed text is the question they lead to.
    throw new Error(`Type what to ask with /${request.promptName}: its example messages go first, then your text.`);
  }
  const shared: NodeMetadata = { ...(result.prompt ? { prompt: result.prompt } : {}), promptParams: given };
  for (const [i, message] of result.messages.entries()) {
    const last = i === result.messages.length - 1;
    const extra: NodeMetadata = last && result.ragMetadata && Object.keys(result.ragMetadata).length > 0 ? { ragMetadata: result.ragMetadata } : {};
    if (last && result.validationWarnings.length > 0) extra.validationWarnings = result.validationWarnings;
    await manager.addMessage({ role: message.role, content: message.content, raw: true, metadata: { ...shared, ...extra } });
  }
  if (typed) {
    await manager.addMessage({ role: 'user', content: composeUserMessage(request.text, request.attachments), raw: true, metadata: userMessageMetadata(request.attachments, request.text) });
  }
}
