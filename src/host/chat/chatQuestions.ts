/**
 * What a chat does with a question: a message typed or picked from `/` (a prompt, another tool's prompt
 * file, a flow, `/compact`), the same sent to several models, an edited question, Regenerate and Retry.
 * Each adds what it must to the conversation (two user messages never follow each other), then hands
 * the answering to `ChatAnswers`, `SeveralAnswers` or `ChatFlows`.
 */
import type { ConversationMetadata } from '../../core/index';
import { severalModelsProblem } from '../../shared/protocol';
import type { EditMessage, RegenerateMessage, RetryMessage, SendMessage, SendSeveralMessage, ToWebview } from '../../shared/protocol';
import type { ChatAnswers } from './chatAnswers';
import type { ChatFlows } from './chatFlows';
import { sendImages } from './chatImages';
import { editedUserMessage, storedFileAttachments, titleFromMessage, userMessageMetadata } from '../conversations/conversationRules';
import { editorValues } from './editorActions';
import { foreignSendContext } from '../prompts/foreignPrompts';
import type { PromptRequestOverrides } from '../prompts/foreignPromptSend';
import { addPromptMessages, type PromptSendContext } from '../prompts/promptSend';
import type { ChatServices } from './chatServices';
import type { SeveralAnswers } from './several/severalAnswers';
import { composeUserMessage } from '../base/workspacePaths';

/** What the questions of one chat work with. */
export interface ChatQuestionsDeps {
  services: ChatServices;
  conversationId: string;
  answers: ChatAnswers;
  several: SeveralAnswers;
  flows: ChatFlows;
  /** Whether any answer, several-models run, summary or flow is under way in the chat. */
  busy(): boolean;
  post(message: ToWebview): void;
  /** `/compact [focus]`: the older turns become a summary (the chat shows it is busy meanwhile). */
  compact(focus: string | undefined): Promise<void>;
}

/** See the file's header. */
export class ChatQuestions {
  constructor(private readonly deps: ChatQuestionsDeps) {}

  /** A message sent: a flow runs, `/compact` compacts, anything else is added and answered. */
  async send(msg: SendMessage): Promise<void> {
    const { answers, flows } = this.deps;
    if (msg.promptKind === 'flow') return await flows.start(msg);
    if (answers.refuseWhileBusy(msg)) return;
    const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(msg.text.trim());
    if (compact && !msg.promptName) {
      await this.deps.compact(compact[1]?.trim());
      this.deps.post({ type: 'streamDone', requestId: msg.requestId });
      return;
    }
    const added = await this.addQuestion(msg);
    if (added) await answers.answer(msg, msg.model ?? added.overrides?.model, added.overrides);
  }

  /**
   * Ask Several Models: the message is added as `send` adds it, then each picked model answers it at
   * once. Refused (the webview says why) while another answer streams or for a wrong list of models.
   */
  async sendSeveral(msg: SendSeveralMessage): Promise<void> {
    const problem = severalModelsProblem(msg.models);
    if (this.deps.busy() || problem) {
      this.deps.post({ type: 'streamDone', requestId: msg.requestId, error: { message: problem ?? 'An answer is still streaming: stop it or wait for it first.', kind: problem ? 'input' : 'busy', retryable: !problem } });
      return;
    }
    if (!(await this.addQuestion(msg))) {
      this.deps.post({ type: 'streamDone', requestId: msg.requestId });
      return;
    }
    const manager = await this.deps.services.manager(this.deps.conversationId);
    await this.deps.several.ask(msg.requestId, manager.currentNodeId, msg.models);
  }

  /** Regenerate: a new answer beside `msg.nodeId`, with the model picked for it (or the chat's). */
  async regenerate(msg: RegenerateMessage): Promise<void> {
    if (this.deps.answers.refuseWhileBusy(msg)) return;
    const manager = await this.deps.services.manager(this.deps.conversationId);
    await manager.branchFrom(msg.nodeId);
    await this.deps.answers.answer(msg, msg.model);
  }

  /** An edited question becomes its sibling and is answered; a prompt's form filled again renders the prompt anew. */
  async edit(msg: EditMessage): Promise<void> {
    const { answers, services } = this.deps;
    if (answers.refuseWhileBusy(msg)) return;
    const manager = await services.manager(this.deps.conversationId);
    const original = manager.getNode(msg.nodeId);
    if (msg.promptName) {
      // With what was attached to the original (files are read again).
      const attachments = await services.workspaceFiles.resolveAttachments(storedFileAttachments(original));
      await manager.branchFrom(msg.nodeId);
      const overrides = await addPromptMessages(this.promptContext(), manager, { promptName: msg.promptName, kind: 'user', text: msg.text, params: msg.params ?? {}, attachments });
      return await answers.answer(msg, overrides?.model, overrides);
    }
    const edited = editedUserMessage(original, msg.text);
    await manager.branchFrom(msg.nodeId);
    await manager.addMessage({ role: 'user', content: edited.content, raw: true, metadata: edited.metadata });
    await answers.answer(msg);
  }

  /** Retry after a failed answer: the question is answered again (beside a partial answer kept). */
  async retry(msg: RetryMessage): Promise<void> {
    if (this.deps.answers.refuseWhileBusy(msg)) return;
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const current = manager.getNode(manager.currentNodeId);
    if (current.message.role === 'assistant') await manager.branchFrom(current.nodeId);
    await this.deps.answers.answer(msg);
  }

  /**
   * Adds the message of `send` (a typed one or a `/` prompt) where the next answer goes, with what a
   * prompt file sets for its request (model, tools, system); undefined when there was nothing to add.
   */
  private async addQuestion(msg: SendMessage | SendSeveralMessage): Promise<{ overrides?: PromptRequestOverrides } | undefined> {
    const { services } = this.deps;
    const manager = await services.manager(this.deps.conversationId);
    const reader = services.workspaceFiles;
    const { images, attachments } = await sendImages(msg.images, msg.attachments, (p) => reader.readBytes(p), services.settings.imagesMaxBytes);
    const resolved = await reader.resolveAttachments(attachments);
    // Two user messages never follow each other: a message sent while the last one is unanswered (its
    // request failed) or on a user message chosen with Branch from Here becomes its sibling, `‹ n/m ›`.
    const current = manager.getNode(manager.currentNodeId);
    if (current.message.role === 'user') await manager.branchFrom(current.nodeId);
    let overrides: PromptRequestOverrides | undefined;
    if (msg.promptKind === 'flow') throw new Error(`/${msg.promptName ?? ''} is a flow: send it on its own (flows run one at a time, not with Ask Several Models).`);
    if (msg.promptName) {
      overrides = await addPromptMessages(this.promptContext(), manager, { promptName: msg.promptName, kind: msg.promptKind ?? 'user', text: msg.text, params: msg.params ?? {}, attachments: resolved });
    } else {
      if (!msg.text.trim() && resolved.length === 0 && images.length === 0) return undefined;
      await manager.addMessage({ role: 'user', content: composeUserMessage(msg.text, resolved), raw: true, metadata: userMessageMetadata(resolved, msg.text), ...(images.length ? { images } : {}) });
      const title = titleFromMessage(manager.getMetadata() as Record<string, unknown>, { text: msg.text, attachments: resolved });
      if (title !== undefined) await manager.setMetadata({ title } satisfies ConversationMetadata);
    }
    return { overrides };
  }

  /** What sending a `/` prompt needs of the services. */
  private promptContext(): PromptSendContext {
    const s = this.deps.services;
    return { trusted: s.trusted, editorValues: () => editorValues(s), promptLibrary: () => s.promptLibrary(), promptBuilder: () => s.promptBuilder(), ...(s.trusted ? { foreign: foreignSendContext(s) } : {}) };
  }
}
