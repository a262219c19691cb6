import * as vscode from 'vscode';
import { InvalidOperationError, isContextLengthError, PathTokenCache, readNodeMetadata, ROOT_NODE_ID, tokenCounterFor, type ConversationManager, type ConversationMetadata, type ConversationNode, type FileSystemPromptLibrary, type NodeMetadata } from '../core/index';
import { assertNever, isStreamedRequest } from '../shared/protocol';
import type { AnswerMessage, Attachment, BranchPoint, EditMessage, ErrorView, FromWebview, RegenerateMessage, RequestMessage, RetryMessage, SendMessage, StreamedRequestType, ToWebview } from '../shared/protocol';
import { buildChatState, promptSummaries } from './chatView';
import { attachmentKey, chatUsage, draftText, MeterCounter, usageView } from './contextBudget';
import { chatModels } from './chatModels';
import { ChatOptions } from './chatOptions';
import { ChatWindow } from './chatWindow';
import { conversationModel, pinModelUpdate } from './conversationModel';
import { bookmarkUpdate, chatTitle, editedUserMessage, messageDisplayText, noteUpdate, storedFileAttachments, titleFromMessage, totalCostUpdate, userMessageMetadata } from './conversationRules';
import { editorValues, findWorkspaceFiles, insertIntoEditor, openWorkspaceFile, selectionAttachment } from './editorActions';
import { checkReadyToSend, runErrorAction } from './errorActions';
import { isNoServer, isUserAbort, toErrorView } from './errorView';
import { firstLine } from './labels';
import { Disposable, toDisposable } from './lifecycle';
import { addPromptMessages, type PromptSendContext } from './promptSend';
import { promptVersionLookup } from './promptMessages';
import { openPromptVersionDiff } from './promptVersions';
import type { Services } from './services';
import { noServerHint } from './settings';
import { composeUserMessage } from './workspacePaths';

/** Leaving a branch of at least this many messages (two turns) offers to carry a summary of it. */
const BRANCH_SUMMARY_OFFER_MESSAGES = 4;

/** After Stop, how long to wait for the next chunk before cutting the connection. */
const STOP_GRACE_MS = 1000;

/** An answer's messages without the `requestId`, which `reply` copies from the request. */
type AnswerFields<M extends RequestMessage> = AnswerMessage<M['type']> extends infer A ? (A extends unknown ? Omit<A, 'requestId'> : never) : never;

interface ActiveStream {
  /** The request this stream answers. */
  request: RequestMessage<StreamedRequestType>;
  abort: AbortController;
  /** Stop was pressed: the loop ends at the next chunk (so the answer is kept as stopped, not failed). */
  stopRequested: boolean;
  parentNodeId: string;
  model: string;
  text: string;
  thinking: string;
}

/** The banner of a pending Branch from Here at `node`. */
function branchPointView(node: ConversationNode): BranchPoint {
  const replaces = node.message.role === 'user';
  const text = messageDisplayText(node);
  return { nodeId: node.nodeId, preview: firstLine(text, 60), replaces, ...(replaces ? { text } : {}) };
}

/**
 * One chat panel's conversation: answers every message the webview sends (exhaustively), streams
 * model answers into it, and posts a fresh `state` after every change. Posts are queued until the
 * webview says `ready`, and re-sent when it reloads.
 */
export class ChatController extends Disposable {
  private ready = false;
  /** The part of the path the webview holds. */
  private readonly window = new ChatWindow();
  /** The prompt library whose changes re-send the prompt list, and that subscription. */
  private library?: FileSystemPromptLibrary;
  private librarySub?: vscode.Disposable;
  private readonly pending: ToWebview[] = [];
  private stream?: ActiveStream;
  /** A message is being sent or edited and its answer has not started: it is not "unanswered" yet. */
  private sending = false;
  /** Why the last request failed before any answer, by the user message it was for (this window only). */
  private readonly failures = new Map<string, ErrorView>();
  /** The message being written, for the meter (the webview sends it as it changes). */
  private draft: { text: string; attachments: readonly Attachment[] } = { text: '', attachments: [] };
  /** Sizes of attached files, read once each, for the meter. */
  private readonly fileSizes = new Map<string, number>();
  /** A compaction is being written. */
  private compacting = false;
  /** Counts for the meter, with the chat's per-message cache. */
  private meter?: MeterCounter;
  /** Branch from Here is pending at `nodeId`; Cancel returns to `returnTo`. */
  private branchPoint?: { nodeId: string; returnTo: string };
  /** The header's system prompt and request options. */
  private readonly options: ChatOptions;
  /** A message to scroll to once the webview shows the path (`showMessage`). */
  private revealId?: string;
  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  /** Fires when the panel closed. */
  readonly onDidDispose = this._onDidDispose.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly conversationId: string,
    private readonly services: Services,
  ) {
    super();
    this.options = new ChatOptions(services, conversationId, (message) => this.post(message));
    this._register(panel.webview.onDidReceiveMessage((msg: FromWebview) => this.handle(msg)));
    this._register(panel.onDidDispose(() => this.dispose()));
    // A chat in a background tab has no page (it is not retained): it loads again when shown and says
    // `ready`. Until then nothing posted would arrive, so state waits (and a reveal with it).
    this._register(
      panel.onDidChangeViewState((e) => {
        if (!e.webviewPanel.visible) this.ready = false;
      }),
    );
    this._register(
      services.onDidChangeConversation((id) => {
        if (id === this.conversationId && !this.stream) void this.postState();
        if (id === this.conversationId && this.ready) void this.options.postOptions();
      }),
    );
    this._register(
      services.onDidChangeSettings(() => {
        void this.postState();
        void this.postModels();
        void this.options.postOptions();
      }),
    );
    this._register(
      services.onDidChangeTrust(() => {
        void this.postState();
        void this.postPrompts();
      }),
    );
    this._register(
      services.onDidLoadLibrary(() => {
        void this.postPrompts();
        void this.options.postOptions();
      }),
    );
    this._register(toDisposable(() => this.librarySub?.dispose()));
  }

  /** Whether a model answer is streaming. */
  get busy(): boolean {
    return this.stream !== undefined || this.compacting;
  }

  private post(message: ToWebview): void {
    if (this.isDisposed) return;
    if (!this.ready) {
      // State, models and prompts are sent fresh on `ready`; only one-off messages wait.
      if (message.type === 'attach' || message.type === 'notice') this.pending.push(message);
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  /** Adds context to the message being written (Ask About Selection). */
  attach(attachments: Attachment[], text?: string): void {
    this.post({ type: 'attach', attachments, text });
  }

  /**
   * Branch from Here: shows the path up to `nodeId` and makes the next message start a new branch
   * there. After an answer (or any message but a user's) the next message is a new follow-up beside
   * the others; on a user message it is a new version of that message (its sibling), since two user
   * messages never follow each other. A banner says so until the message is sent or Cancel is pressed.
   */
  async startBranch(nodeId: string): Promise<void> {
    await this.services.withManager(this.conversationId, async (m) => {
      const returnTo = this.branchPoint?.returnTo ?? m.currentNodeId;
      const node = m.getNode(nodeId);
      await m.switchToNode(node.nodeId);
      this.branchPoint = { nodeId: node.nodeId, returnTo };
    });
    await this.postState();
  }

  /** Compact up to Here (the tree's menu): the older turns up to `nodeId` become a summary below it. Errors show as a notice. */
  async compactUpTo(nodeId: string): Promise<void> {
    await this.handle({ type: 'compactHere', nodeId });
  }

  /** Undo Compaction (the palette): back to the full history of the compaction in effect; says so when there is none. */
  async undoCompaction(): Promise<void> {
    try {
      await this.services.withManager(this.conversationId, (m) => m.undoCompaction());
      await this.postState();
    } catch (err) {
      this.post({ type: 'notice', level: 'info', message: toErrorView(err).message });
    }
  }

  /** Cancel on the banner: back to where the reader was before Branch from Here. */
  private async cancelBranch(): Promise<void> {
    const point = this.branchPoint;
    this.branchPoint = undefined;
    if (point) {
      await this.services.withManager(this.conversationId, async (m) => {
        if (m.hasNode(point.returnTo)) await m.switchToNode(point.returnTo);
      });
    }
    await this.postState();
  }

  /** Opens the path at the end of the branch through `nodeId` the reader last followed (Switch to Here). */
  async switchTo(nodeId: string): Promise<void> {
    this.branchPoint = undefined;
    const left = await this.services.withManager(this.conversationId, async (m) => {
      const before = m.currentNodeId;
      await m.switchToNode(m.getLastVisitedLeaf(nodeId));
      return { from: before, count: m.getBranchLeftCount(before) };
    });
    await this.postState();
    // Leaving a branch of a few turns: offer to carry what it found into this one.
    if (left.count >= BRANCH_SUMMARY_OFFER_MESSAGES) {
      this.post({
        type: 'notice',
        level: 'info',
        message: `You left a branch of ${left.count} messages. Carry a short summary of it into this one? The model writes it; it is sent with this branch's requests, and you can remove it.`,
        offerBranchSummary: left.from,
      });
    }
  }

  /** Summarises the branch left at `fromNodeId` into a node below the current one (the offer's button). */
  private async summariseBranch(fromNodeId: string): Promise<void> {
    const manager = await this.services.manager(this.conversationId);
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, this.services.settings);
    this.compacting = true;
    await this.postState();
    try {
      await manager.summariseBranch({ fromNodeId, model });
    } finally {
      this.compacting = false;
    }
  }

  /** Removes a branch summary the reader does not want (only while nothing follows it). */
  private async removeBranchSummary(nodeId: string): Promise<void> {
    await this.services.withManager(this.conversationId, async (m) => {
      if (m.getChildren(nodeId).length > 0) {
        throw new InvalidOperationError('The conversation went on below this summary, so it stays; start a new branch above it instead (Branch from Here).');
      }
      await m.deleteBranch(nodeId);
    });
    await this.postState();
  }

  /** Scrolls the chat to a message of the path shown and highlights it (Go to Bookmark, a search result). */
  async showMessage(nodeId: string): Promise<void> {
    this.revealId = nodeId;
    await this.postState();
  }

  /**
   * Bookmarks or notes a message. The change redraws the chat through the conversation's change
   * event, which waits while an answer streams: then the chat is redrawn here at once.
   */
  private async annotate(nodeId: string, update: NodeMetadata): Promise<void> {
    await this.services.withManager(this.conversationId, (m) => m.setNodeMetadata(nodeId, { ...update }));
    if (this.stream) await this.postState();
  }

  /**
   * Runs a change with the conversation marked busy (see `Services.whileBusy`). A new branch the
   * reader started ends with it, and until its answer starts the path's end is not "unanswered".
   */
  private mutate(work: () => Promise<void>): Promise<void> {
    this.branchPoint = undefined;
    return this.services.whileBusy(this.conversationId, async () => {
      this.sending = true;
      try {
        await work();
      } finally {
        this.sending = false;
      }
    });
  }

  /** Sends the whole chat state; the panel's title follows the conversation's. */
  async postState(): Promise<void> {
    try {
      const manager = await this.services.manager(this.conversationId);
      if (this.isDisposed) return;
      const metadata = manager.getMetadata() as Record<string, unknown>;
      const title = chatTitle(metadata, manager.getChildren(ROOT_NODE_ID));
      this.panel.title = firstLine(title, 40);
      // The window mirrors what the webview holds: no state is built for a webview not listening yet.
      if (!this.ready) return;
      const s = this.services.settings;
      const current = manager.currentNodeId;
      // The banner holds while the reader stays at the branch point (another window may move on).
      if (this.branchPoint && this.branchPoint.nodeId !== current) this.branchPoint = undefined;
      const pathIds = manager.getPathIds();
      const reveal = this.revealId !== undefined && pathIds.includes(this.revealId) ? this.revealId : undefined;
      this.revealId = undefined;
      if (reveal !== undefined) this.window.reach(pathIds.indexOf(reveal));
      this.post({
        type: 'state',
        state: buildChatState(
          {
            conversationId: this.conversationId,
            title,
            currentNodeId: manager.currentNodeId,
            path: {
              pathIds,
              node: (id) => manager.getNode(id),
              siblingIds: (id) => manager.getSiblingIds(id),
            },
            totalCostUsd: manager.getTotalCost(),
            branchCostUsd: manager.getCostByBranch(),
            model: conversationModel(metadata, s),
            provider: s.provider,
            busy: this.busy,
            restricted: !this.services.trusted,
            branchPoint: this.branchPoint && branchPointView(manager.getNode(current)),
            unanswered: this.unansweredAt(manager),
            promptVersion: promptVersionLookup(this.services.trusted ? this.library : undefined),
            compaction: manager.getCompactionInEffect(),
          },
          this.window,
        ),
      });
      if (reveal !== undefined) this.post({ type: 'reveal', nodeId: reveal });
      void this.postUsage();
    } catch (err) {
      this.services.logger.error(`Could not show conversation ${this.conversationId}`, err);
      this.post({ type: 'notice', level: 'error', message: toErrorView(err).message });
    }
  }

  /** The user message at the end of the path when it has no answer and none is on its way. */
  private unansweredAt(manager: ConversationManager): { nodeId: string; error?: ErrorView } | undefined {
    if (this.stream || this.sending) return undefined;
    const node = manager.getNode(manager.currentNodeId);
    if (node.message.role !== 'user' || manager.getChildren(node.nodeId).length > 0) return undefined;
    const error = this.failures.get(node.nodeId);
    return error ? { nodeId: node.nodeId, error } : { nodeId: node.nodeId };
  }

  private async handle(msg: FromWebview): Promise<void> {
    try {
      switch (msg.type) {
        case 'ready':
          return await this.onReady();
        case 'send':
          return await this.mutate(() => this.send(msg));
        case 'stop':
          if (this.stream && (this.stream.request.requestId === msg.requestId || !msg.requestId)) this.stop(this.stream);
          return;
        case 'regenerate':
          return await this.mutate(() => this.regenerate(msg));
        case 'edit':
          return await this.mutate(() => this.edit(msg));
        case 'switch':
          return await this.switchTo(msg.nodeId);
        case 'summariseBranch':
          return await this.mutate(() => this.summariseBranch(msg.fromNodeId));
        case 'removeBranchSummary':
          return await this.removeBranchSummary(msg.nodeId);
        case 'branchHere':
          return await this.startBranch(msg.nodeId);
        case 'cancelBranch':
          return await this.cancelBranch();
        case 'openPromptDiff':
          return await this.openPromptDiff(msg.nodeId);
        case 'draft':
          this.draft = { text: msg.text, attachments: msg.attachments };
          return await this.postUsage();
        case 'undoCompaction':
          await this.services.withManager(this.conversationId, (m) => m.undoCompaction(msg.nodeId));
          return await this.postState();
        case 'compactHere':
          return await this.mutate(() => this.compactNow({ uptoNodeId: msg.nodeId, trigger: 'manual' }));
        case 'loadEarlier':
          this.window.loadEarlier();
          return await this.postState();
        case 'setBookmark':
          return await this.annotate(msg.nodeId, bookmarkUpdate(msg.bookmarked));
        case 'setNote':
          return await this.annotate(msg.nodeId, noteUpdate(msg.note));
        case 'retry':
          return await this.mutate(() => this.retry(msg));
        case 'copy':
          await vscode.env.clipboard.writeText(msg.text);
          return;
        case 'insert':
          await insertIntoEditor(this.services, msg.text);
          return;
        case 'openFile':
          await openWorkspaceFile(this.services, msg.path, msg.startLine, msg.endLine);
          return;
        case 'selectModel':
          return await this.selectModel(msg.model);
        case 'selectSystemPrompt':
          return await this.options.selectSystemPrompt(msg.name);
        case 'setRequestOptions':
          return await this.options.setRequestOptions(msg.options);
        case 'runAction':
          return await runErrorAction(msg.command);
        case 'findFiles': {
          const result = await findWorkspaceFiles(this.services, msg.query).catch((err) => ({ error: err }));
          this.reply(msg, Array.isArray(result) ? { type: 'response', result } : { type: 'response', error: toErrorView(result.error) });
          return;
        }
        case 'attachSelection': {
          const selection = selectionAttachment(this.services);
          if (selection) this.attach([selection]);
          else this.post({ type: 'notice', level: 'info', message: 'Select some text in an editor first, then attach it with #selection.' });
          return;
        }
        default:
          assertNever(msg);
      }
    } catch (err) {
      this.services.logger.error(`Chat request "${msg.type}" failed`, err);
      const view = toErrorView(err);
      if (isStreamedRequest(msg)) {
        this.reply(msg, { type: 'streamDone', error: view });
        await this.postState();
      } else {
        this.post({ type: 'notice', level: 'error', message: view.message });
      }
    }
  }

  private async onReady(): Promise<void> {
    this.ready = true;
    this.window.reset();
    await this.postState();
    for (const m of this.pending.splice(0)) void this.panel.webview.postMessage(m);
    const s = this.stream;
    if (s) {
      this.reply(s.request, { type: 'streamStart', parentNodeId: s.parentNodeId, model: s.model });
      if (s.text || s.thinking) this.reply(s.request, { type: 'streamDelta', delta: s.text, thinkingDelta: s.thinking || undefined });
    }
    void this.postModels();
    void this.postPrompts();
    void this.options.postOptions();
  }

  /** The chat answers with `model` from now on, and new chats start with it (`arbor.model`); other chats keep theirs. */
  private async selectModel(model: string): Promise<void> {
    if (!model.trim()) return;
    // The conversation's change redraws the chat; a changed default re-lists the models (settings event).
    if (await this.services.selectModel(model, this.conversationId)) await this.postModels();
  }

  private async postModels(): Promise<void> {
    let current = this.services.settings.model;
    try {
      current = conversationModel((await this.services.manager(this.conversationId)).getMetadata() as Record<string, unknown>, this.services.settings);
    } catch (err) {
      this.services.logger.warn(`Could not read the model of conversation ${this.conversationId}`, err);
    }
    const { warning, ...choices } = await chatModels(this.services, current);
    this.post({ type: 'models', ...choices });
    if (warning) this.post({ type: 'notice', level: 'warning', message: warning });
  }

  private async postPrompts(): Promise<void> {
    try {
      const library = this.services.trusted ? await this.services.promptLibrary() : undefined;
      this.followLibrary(library);
      this.post({ type: 'prompts', prompts: promptSummaries(library?.listPrompts() ?? []) });
    } catch (err) {
      this.services.logger.warn('Could not list prompts', err);
      this.post({ type: 'prompts', prompts: [] });
    }
  }

  /**
   * Re-sends the prompt list when the library's files change. One subscription, moved to each new
   * library: the library is often opened before the panel (for diagnostics), so its load event alone
   * would miss it, and subscribing on every load kept the old libraries' listeners.
   */
  private followLibrary(library: FileSystemPromptLibrary | undefined): void {
    if (library === this.library || this.isDisposed) return;
    this.librarySub?.dispose();
    this.library = library;
    // Prompt messages say whether their template changed since: each library, and each change of it, redraws them.
    this.librarySub = library?.onDidChange(() => {
      void this.postPrompts();
      void this.options.postOptions();
      void this.postState();
    });
    if (library) void this.postState();
  }

  /**
   * Posts an answer to a request with the request's id; the compiler holds it to the messages
   * `WebviewRequests` lists as answers to that request.
   */
  private reply<M extends RequestMessage>(request: M, answer: AnswerFields<M>): void {
    // Omit<A, 'requestId'> plus the id is A again for each answer A; the compiler cannot see that through the generic.
    this.post({ ...answer, requestId: request.requestId } as unknown as AnswerMessage<M['type']>);
  }

  private refuseWhileBusy(request: RequestMessage<StreamedRequestType>): boolean {
    if (!this.stream) return false;
    this.reply(request, { type: 'streamDone', error: { message: 'An answer is still streaming: stop it or wait for it first.', kind: 'busy', retryable: true } });
    return true;
  }

  private async send(msg: SendMessage): Promise<void> {
    if (this.refuseWhileBusy(msg)) return;
    const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(msg.text.trim());
    if (compact && !msg.promptName) {
      await this.compactNow({ focus: compact[1]?.trim(), trigger: 'manual' });
      this.reply(msg, { type: 'streamDone' });
      return;
    }
    const manager = await this.services.manager(this.conversationId);
    const resolved = await this.services.workspaceFiles.resolveAttachments(msg.attachments);
    // Two user messages never follow each other: a message sent while the last one is unanswered (its
    // request failed) or on a user message chosen with Branch from Here becomes its sibling, `‹ n/m ›`.
    const current = manager.getNode(manager.currentNodeId);
    if (current.message.role === 'user') await manager.branchFrom(current.nodeId);
    if (msg.promptName) {
      await addPromptMessages(this.promptContext(), manager, { promptName: msg.promptName, kind: msg.promptKind ?? 'user', text: msg.text, params: msg.params ?? {}, attachments: resolved });
    } else {
      if (!msg.text.trim() && resolved.length === 0) return;
      await manager.addMessage({ role: 'user', content: composeUserMessage(msg.text, resolved), raw: true, metadata: userMessageMetadata(resolved, msg.text) });
      const title = titleFromMessage(manager.getMetadata() as Record<string, unknown>, { text: msg.text, attachments: resolved });
      if (title !== undefined) await manager.setMetadata({ title } satisfies ConversationMetadata);
    }
    await this.answer(msg, msg.model);
  }

  private async regenerate(msg: RegenerateMessage): Promise<void> {
    if (this.refuseWhileBusy(msg)) return;
    const manager = await this.services.manager(this.conversationId);
    await manager.branchFrom(msg.nodeId);
    await this.answer(msg, msg.model);
  }

  private async edit(msg: EditMessage): Promise<void> {
    if (this.refuseWhileBusy(msg)) return;
    const manager = await this.services.manager(this.conversationId);
    const original = manager.getNode(msg.nodeId);
    if (msg.promptName) {
      // The form was filled again: render the prompt anew, with what was attached to the original (files are read again).
      const attachments = await this.services.workspaceFiles.resolveAttachments(storedFileAttachments(original));
      await manager.branchFrom(msg.nodeId);
      await addPromptMessages(this.promptContext(), manager, { promptName: msg.promptName, kind: 'user', text: msg.text, params: msg.params ?? {}, attachments });
      return await this.answer(msg);
    }
    const edited = editedUserMessage(original, msg.text);
    await manager.branchFrom(msg.nodeId);
    await manager.addMessage({ role: 'user', content: edited.content, raw: true, metadata: edited.metadata });
    await this.answer(msg);
  }

  private async retry(msg: RetryMessage): Promise<void> {
    if (this.refuseWhileBusy(msg)) return;
    const manager = await this.services.manager(this.conversationId);
    const current = manager.getNode(manager.currentNodeId);
    if (current.message.role === 'assistant') await manager.branchFrom(current.nodeId);
    await this.answer(msg);
  }

  /** Streams the model's answer to the current node into the webview; the node is kept even when stopped. */
  private async answer(request: RequestMessage<StreamedRequestType>, model?: string): Promise<void> {
    const manager = await this.services.manager(this.conversationId);
    const metadata = manager.getMetadata() as Record<string, unknown>;
    const chosen = model && model.trim() ? model.trim() : conversationModel(metadata, this.services.settings);
    // The first answer pins the default on the chat, so a model picked later in another chat leaves this one be.
    const pin = pinModelUpdate(metadata, this.services.settings);
    if (pin) await manager.setMetadata(pin);
    await this.compactIfFull(manager, chosen);
    const stream: ActiveStream = { request, abort: new AbortController(), stopRequested: false, parentNodeId: manager.currentNodeId, model: chosen, text: '', thinking: '' };
    this.stream = stream;
    this.failures.delete(stream.parentNodeId);
    this.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model: chosen });
    let error: ReturnType<typeof toErrorView> | undefined;
    // What the counter makes of this request, to learn from the server's own count once it answers.
    let sentEstimate: number | undefined;
    try {
      await checkReadyToSend(this.services);
      const plan = await this.options.plan(manager, chosen);
      sentEstimate = await this.meterCounter(chosen).then(
        (c) => c.cache.counter.countMessages([...(plan.systemPromptOverride ? [{ role: 'system' as const, content: plan.systemPromptOverride }] : []), ...manager.getHistory()]),
        () => undefined,
      );
      await this.services.whileBusy(this.conversationId, async () => {
        for (let attempt = 0; ; attempt++) {
          try {
            for await (const chunk of manager.streamComplete({ signal: stream.abort.signal, ...plan })) {
              // The chunk is shown even after Stop: the stream has already counted it into the saved answer.
              if (chunk.delta || chunk.thinkingDelta) {
                stream.text += chunk.delta;
                if (chunk.thinkingDelta) stream.thinking += chunk.thinkingDelta;
                this.reply(request, { type: 'streamDelta', delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
              }
              if (stream.stopRequested) break;
            }
            return;
          } catch (err) {
            // The model refused the request as too long: compact without a model call (never drop silently), then ask once more.
            if (attempt > 0 || !isContextLengthError(err) || stream.text || stream.stopRequested) throw err;
            const limit = await this.contextLimit(chosen);
            const keepRecentTokens = Math.min(this.services.settings.keepRecentTokens, limit ? Math.floor(limit / 4) : Infinity);
            const node = await manager.compact({ trigger: 'overflow', fallback: true, model: chosen, keepRecentTokens });
            this.noticeCompaction(node, undefined);
            stream.parentNodeId = manager.currentNodeId;
            this.reply(request, { type: 'streamStart', parentNodeId: stream.parentNodeId, model: chosen });
          }
        }
      });
    } catch (err) {
      if (!stream.stopRequested && !isUserAbort(err, stream.abort.signal)) {
        error = toErrorView(err);
        this.services.logger.warn(`Answer failed: ${error.message}`);
        // No answer was kept (nothing had arrived): the error and Retry stay on the question.
        if (manager.currentNodeId === stream.parentNodeId) this.failures.set(stream.parentNodeId, error);
        if (isNoServer(err)) {
          const hasKey = !!(await this.services.apiKeys.get());
          this.post({ type: 'notice', level: 'error', message: `No model server is reachable. ${noServerHint(this.services.settings, hasKey)}` });
        }
      }
    } finally {
      this.stream = undefined;
      if (!error && manager.currentNodeId !== stream.parentNodeId) {
        const counter = await this.meterCounter(chosen).catch(() => undefined);
        if (counter && sentEstimate !== undefined) this.calibrate(counter, sentEstimate, manager.getNode(manager.currentNodeId));
      }
      this.reply(request, { type: 'streamDone', error });
      // The list shows the cost from the metadata; it is written only when it changed.
      const update = totalCostUpdate(manager.getMetadata() as Record<string, unknown>, manager.getTotalCost());
      if (update) await manager.setMetadata(update).catch(() => undefined);
      await this.postState();
    }
  }

  /** The model's context length, when the provider says. */
  private async contextLimit(model: string): Promise<number | undefined> {
    try {
      return await this.services.contextLengths.get(await this.services.provider(), model);
    } catch {
      return undefined;
    }
  }

  /** Posts how full the next request's context is, the draft included. */
  private async postUsage(): Promise<void> {
    if (!this.ready || this.isDisposed) return;
    const manager = await this.services.manager(this.conversationId);
    const s = this.services.settings;
    const limit = await this.contextLimit(conversationModel(manager.getMetadata() as Record<string, unknown>, s));
    for (const a of this.draft.attachments) {
      const key = attachmentKey(a);
      if (a.text !== undefined || this.fileSizes.has(key)) continue;
      const [read] = await this.services.workspaceFiles.resolveAttachments([a]).catch(() => [{ text: '' }]);
      this.fileSizes.set(key, read.text.length);
    }
    const counter = await this.meterCounter(conversationModel(manager.getMetadata() as Record<string, unknown>, s));
    const system = await this.options.systemPromptText(manager);
    const usage = chatUsage(manager, limit, draftText(this.draft.text, this.draft.attachments, this.fileSizes), counter, system);
    this.post({ type: 'usage', usage: usageView(usage, s) });
  }

  /**
   * The meter's counter for `model`: exact for OpenAI models gpt-tokenizer knows, otherwise the estimate
   * calibrated by what the server reported; the chat's cache keeps each message's count.
   */
  private async meterCounter(model: string): Promise<MeterCounter> {
    const counter = await tokenCounterFor(this.services.settings.provider, model);
    if (this.meter) this.meter.cache.counter = counter;
    else this.meter = new MeterCounter(new PathTokenCache(counter));
    return this.meter;
  }

  /** Teaches an estimating counter the server's own count of the request just answered (`usage.promptTokens`). */
  private calibrate(counter: MeterCounter, estimated: number, answer: ConversationNode | undefined): void {
    const reported = answer ? readNodeMetadata(answer.metadata, 'usage')?.promptTokens : undefined;
    if (reported) counter.cache.counter.calibrate(estimated, reported);
  }

  /**
   * Compacts now (`/compact`, Compact up to Here): a summary of the older turns becomes a node, the
   * chat moves to it, and a notice says what it did, with Undo.
   */
  private async compactNow(options: { uptoNodeId?: string; focus?: string; trigger: 'manual' }): Promise<void> {
    const manager = await this.services.manager(this.conversationId);
    const s = this.services.settings;
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, s);
    this.compacting = true;
    await this.postState();
    try {
      const node = await manager.compact({ ...options, model, keepRecentTokens: s.keepRecentTokens });
      this.noticeCompaction(node, undefined);
    } finally {
      this.compacting = false;
    }
  }

  /** Compacts before a request that would fill more than `arbor.context.autoCompactPercent` of the window. */
  private async compactIfFull(manager: ConversationManager, model: string): Promise<void> {
    const s = this.services.settings;
    if (s.autoCompactPercent <= 0) return;
    const limit = await this.contextLimit(model);
    if (!limit) return;
    const counter = await this.meterCounter(model);
    const systemOverride = await this.options.systemPromptText(manager);
    const before = chatUsage(manager, limit, '', counter, systemOverride);
    const node = await manager.compactIfFull({ limit, fraction: s.autoCompactPercent / 100, reserve: before.reserved, counter, systemOverride, model, keepRecentTokens: s.keepRecentTokens });
    if (node) this.noticeCompaction(node, { fraction: before.fraction ?? 0, limit, model });
  }

  /** Tells the reader a compaction was made, what it saved, and that Undo brings the history back. */
  private noticeCompaction(node: ConversationNode, auto: { fraction: number; limit: number; model: string } | undefined): void {
    const info = readNodeMetadata(node.metadata, 'compaction');
    if (!info) return;
    const saved = `${info.tokensBefore.toLocaleString('en-US')} → ${info.tokensAfter.toLocaleString('en-US')} tokens`;
    const what = `${info.coveredCount} older message${info.coveredCount === 1 ? '' : 's'}`;
    const how = info.method === 'fallback' ? ' without a model (your messages kept, answers shortened)' : '';
    const message = info.trigger === 'overflow'
      ? `${info.model ?? 'The model'} refused the request as longer than it can read, so Arbor summarised ${what}${how} and asked again (${saved}). Undo brings the full history back.`
      : auto
      ? `The conversation filled ${Math.round(auto.fraction * 100)}% of ${auto.model}'s ${auto.limit.toLocaleString('en-US')}-token window, so Arbor summarised ${what}${how} before sending (${saved}). Undo brings the full history back.`
      : `Summarised ${what}${how} (${saved}). Undo brings the full history back.`;
    this.post({ type: 'notice', level: 'info', message, undoCompaction: node.nodeId });
  }

  /**
   * Stops an answer. Leaving the loop ends the stream the way a reader that stops early does, so the
   * partial answer is saved as stopped; a server that sends nothing more is cut by the signal after
   * a moment instead.
   */
  private stop(stream: ActiveStream): void {
    if (stream.stopRequested) return;
    stream.stopRequested = true;
    setTimeout(() => {
      if (this.stream === stream) stream.abort.abort();
    }, STOP_GRACE_MS);
  }

  /** What sending a `/` prompt needs of the services. */
  private promptContext(): PromptSendContext {
    const s = this.services;
    return { trusted: s.trusted, editorValues: () => editorValues(s), promptLibrary: () => s.promptLibrary(), promptBuilder: () => s.promptBuilder() };
  }

  /** Opens the diff between the template version that rendered a prompt message and the file now. */
  private async openPromptDiff(nodeId: string): Promise<void> {
    const manager = await this.services.manager(this.conversationId);
    const ref = readNodeMetadata(manager.getNode(nodeId).metadata, 'prompt');
    if (!ref) throw new Error('This message was not made from a prompt template, so there is no version to compare.');
    await openPromptVersionDiff(this.services, ref);
  }

  /** Brings the panel to the front. */
  reveal(): void {
    this.panel.reveal();
  }

  /** Stops a running answer, tells `onDidDispose` listeners, then lets go of every subscription. */
  override dispose(): void {
    if (this.isDisposed) return;
    this.stream?.abort.abort();
    this._onDidDispose.fire();
    super.dispose();
  }
}
