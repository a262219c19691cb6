/**
 * What each message from a chat's webview does (the switch is exhaustive: the compiler flags a message
 * type without a case). Most hand the work to the chat's parts (questions, answers, branching, context,
 * tools, flows, Ask Several Models) or to the editor; the chat's own steps come in through the deps.
 */
import * as vscode from 'vscode';
import { readNodeMetadata, type NodeMetadata } from '../../core/index';
import { assertNever, isStreamedRequest } from '../../shared/protocol';
import type { Attachment, FromWebview } from '../../shared/protocol';
import type { ChatAnswers } from './chatAnswers';
import type { ChatBranching } from './chatBranching';
import type { ChatContext } from './chatContext';
import type { ChatFlows } from './chatFlows';
import type { ChatOptions } from './chatOptions';
import type { ChatQuestions } from './chatQuestions';
import type { ChatServices } from './chatServices';
import type { ChatTools } from './chatTools';
import { chatToolPickerDeps, chooseTools } from './chatToolPicker';
import type { ChatWebview } from './chatWebview';
import type { ChatWindow } from './chatWindow';
import { bookmarkUpdate, noteUpdate } from '../conversations/conversationRules';
import { findWorkspaceFiles, insertIntoEditor, openWorkspaceFile, selectionAttachment } from './editorActions';
import { runErrorAction } from './errorActions';
import { toErrorView } from './errorView';
import { openPromptVersionDiff } from '../prompts/promptVersions';
import { excludedInstructionsUpdate } from '../prompts/instructionChips';
import { openFileChange, restoreFilesTo } from '../checkpoints/fileCheckpoints';
import { compareAnswers } from './several/compareAnswers';
import type { SeveralAnswers } from './several/severalAnswers';

/** The chat a message acts on: its parts, and the controller's own steps. */
export interface ChatMessagesDeps {
  services: ChatServices;
  conversationId: string;
  webview: ChatWebview;
  /** The part of the path the webview holds. */
  window: ChatWindow;
  branching: ChatBranching;
  options: ChatOptions;
  context: ChatContext;
  answers: ChatAnswers;
  tools: ChatTools;
  several: SeveralAnswers;
  flows: ChatFlows;
  questions: ChatQuestions;
  /** The page loaded (or loaded again): everything it shows is sent fresh. */
  onReady(): Promise<void>;
  postState(): Promise<void>;
  postUsage(): Promise<void>;
  postModels(): Promise<void>;
  /** Runs a change with the conversation marked busy (see `ChatController.mutate`). */
  mutate(work: () => Promise<void>): Promise<void>;
  switchTo(nodeId: string): Promise<void>;
  startBranch(nodeId: string): Promise<void>;
  attach(attachments: Attachment[], text?: string): void;
  /** `/compact` and Compact up to Here, with the chat marked busy. */
  compactNow(options: { uptoNodeId?: string; focus?: string }): Promise<void>;
  /** Runs the writing of a summary with the chat marked busy. */
  whileSummarising(work: () => Promise<void>): Promise<void>;
}

/** See the file's header. */
export class ChatMessages {
  constructor(private readonly deps: ChatMessagesDeps) {}

  /** Does what a message from the webview asks; a failure shows as a notice, or ends the stream it belongs to. */
  async handle(msg: FromWebview): Promise<void> {
    const { services, conversationId, webview, answers, several, flows, questions, context, branching, tools, options, mutate, postState } = this.deps;
    try {
      switch (msg.type) {
        case 'ready':
          return await this.deps.onReady();
        case 'send':
          return await mutate(() => questions.send(msg));
        case 'stop':
          if (answers.active && (answers.active.request.requestId === msg.requestId || !msg.requestId)) answers.stop(answers.active);
          several.stop(msg.requestId);
          flows.stop();
          return;
        case 'regenerate':
          return await mutate(() => questions.regenerate(msg));
        case 'edit':
          return await mutate(() => questions.edit(msg));
        case 'switch':
          return await this.deps.switchTo(msg.nodeId);
        case 'summariseBranch':
          return await mutate(async () => this.deps.whileSummarising(async () => context.summariseBranch(await services.manager(conversationId), msg.fromNodeId)));
        case 'removeBranchSummary':
          await services.withManager(conversationId, (m) => context.removeBranchSummary(m, msg.nodeId));
          return await postState();
        case 'branchHere':
          return await this.deps.startBranch(msg.nodeId);
        case 'cancelBranch':
          await services.withManager(conversationId, (m) => branching.cancel(m));
          return await postState();
        case 'openPromptDiff':
          return await this.openPromptDiff(msg.nodeId);
        case 'draft':
          context.setDraft(msg.text, msg.attachments);
          return await this.deps.postUsage();
        case 'undoCompaction':
          await services.withManager(conversationId, (m) => m.undoCompaction(msg.nodeId));
          return await postState();
        case 'compactHere':
          return await mutate(() => this.deps.compactNow({ uptoNodeId: msg.nodeId }));
        case 'loadEarlier':
          this.deps.window.loadEarlier();
          return await postState();
        case 'setBookmark':
          return await this.annotate(msg.nodeId, bookmarkUpdate(msg.bookmarked));
        case 'setNote':
          return await this.annotate(msg.nodeId, noteUpdate(msg.note));
        case 'retry':
          return await mutate(() => questions.retry(msg));
        case 'copy':
          await vscode.env.clipboard.writeText(msg.text);
          return;
        case 'insert':
          await insertIntoEditor(services, msg.text);
          return;
        case 'applyCode':
          await services.codeApply.apply({ conversationId, nodeId: msg.nodeId, code: msg.code });
          // The answer's file chips show what it changed.
          return await postState();
        case 'openFile':
          await openWorkspaceFile(services, msg.path, msg.startLine, msg.endLine);
          return;
        case 'selectModel':
          return await this.selectModel(msg.model);
        case 'selectSystemPrompt':
          return await options.selectSystemPrompt(msg.name);
        case 'setRequestOptions':
          return await options.setRequestOptions(msg.options);
        case 'runAction':
          // Choose Tools… on a notice acts on this chat, whichever is active.
          if (msg.command === 'arbor.chooseTools') return (await chooseTools(chatToolPickerDeps(services, conversationId))) ? await postState() : undefined;
          return await runErrorAction(msg.command, { services, conversationId });
        case 'findFiles': {
          const result = await findWorkspaceFiles(services, msg.query).catch((err) => ({ error: err }));
          webview.reply(msg, Array.isArray(result) ? { type: 'response', result } : { type: 'response', error: toErrorView(result.error) });
          return;
        }
        case 'attachSelection': {
          const selection = selectionAttachment(services);
          if (selection) this.deps.attach([selection]);
          else webview.post({ type: 'notice', level: 'info', message: 'Select some text in an editor first, then attach it with #selection.' });
          return;
        }
        case 'toolDecision':
          if (!tools.decide(msg)) webview.post({ type: 'notice', level: 'info', message: 'That call is no longer waiting: it was answered or the run stopped.' });
          return;
        case 'restoreFiles':
          return await restoreFilesTo(services, await services.manager(conversationId), msg.nodeId);
        case 'openFileChange':
          return await openFileChange(services, await services.manager(conversationId), msg.nodeId, msg.path);
        case 'setInstructionExcluded': {
          const update = excludedInstructionsUpdate((await services.manager(conversationId)).getMetadata() as Record<string, unknown>, msg.path, msg.excluded);
          await services.withManager(conversationId, (m) => m.setMetadata(update));
          // The meter counts what the next request sends.
          return await postState();
        }
        case 'sendSeveral':
          return await mutate(() => questions.sendSeveral(msg));
        case 'mergeAnswers':
          if (answers.refuseWhileBusy(msg)) return;
          return await mutate(() => several.merge(msg));
        case 'compareAnswers':
          return await compareAnswers(services, await services.manager(conversationId), msg.leftNodeId, msg.rightNodeId);
        case 'setToolsEnabled':
          await tools.setEnabled(await services.manager(conversationId), msg.enabled);
          return await postState();
        case 'chooseTools':
          // The next request carries what was ticked; the meter follows once it is sent.
          if (await chooseTools(chatToolPickerDeps(services, conversationId))) return await postState();
          return;
        case 'flowStop':
          return flows.stop();
        case 'flowResume':
          return await mutate(() => flows.resume());
        case 'flowRerun':
          return await mutate(() => flows.rerun(msg.nodeId));
        default:
          assertNever(msg);
      }
    } catch (err) {
      services.logger.error(`Chat request "${msg.type}" failed`, err);
      const view = toErrorView(err);
      if (isStreamedRequest(msg)) {
        webview.reply(msg, { type: 'streamDone', error: view });
        await postState();
      } else {
        webview.post({ type: 'notice', level: 'error', message: view.message });
      }
    }
  }

  /**
   * Bookmarks or notes a message. The change redraws the chat through the conversation's change
   * event, which waits while an answer streams: then the chat is redrawn here at once.
   */
  private async annotate(nodeId: string, update: NodeMetadata): Promise<void> {
    await this.deps.services.withManager(this.deps.conversationId, (m) => m.setNodeMetadata(nodeId, { ...update }));
    if (this.deps.answers.active) await this.deps.postState();
  }

  /** The chat answers with `model` from now on, and new chats start with it (`arbor.model`); other chats keep theirs. */
  private async selectModel(model: string): Promise<void> {
    if (!model.trim()) return;
    // The conversation's change redraws the chat; a changed default re-lists the models (settings event).
    if (await this.deps.services.selectModel(model, this.deps.conversationId)) await this.deps.postModels();
  }

  /** Opens the diff between the template version that rendered a prompt message and the file now. */
  private async openPromptDiff(nodeId: string): Promise<void> {
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const ref = readNodeMetadata(manager.getNode(nodeId).metadata, 'prompt');
    if (!ref) throw new Error('This message was not made from a prompt template, so there is no version to compare.');
    await openPromptVersionDiff(this.deps.services, ref);
  }
}
