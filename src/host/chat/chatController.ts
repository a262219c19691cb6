import * as vscode from 'vscode';
import { readConversationMetadata, ROOT_NODE_ID } from '../../core/index';
import type { Attachment, NoticeMessage, FromWebview, ToWebview } from '../../shared/protocol';
import { ImageSupportCache, imageViews } from './chatImages';
import { buildChatState } from './chatView';
import { ChatAnswers } from './chatAnswers';
import { ChatBranching } from './chatBranching';
import { branchSummaryOffer, ChatContext } from './chatContext';
import { ChatMessages } from './chatMessages';
import { chatModels } from './chatModels';
import { ChatOptions } from './chatOptions';
import { ChatWebview } from './chatWebview';
import { ChatWindow } from './chatWindow';
import { conversationModel } from '../conversations/conversationModel';
import { chatTitle } from '../conversations/conversationRules';
import { toErrorView } from './errorView';
import { teamStoreFailure } from '../stores/teamStoreErrors';
import { tabLabel } from './tabClaims';
import { Disposable, toDisposable } from '../base/lifecycle';
import type { ChatServices } from './chatServices';
import { ChatTools } from './chatTools';
import { recordedInstructions } from '../prompts/instructionChips';
import { recordChanges } from '../checkpoints/fileCheckpoints';
import { createSeveralAnswers } from './several/chatSeveral';
import type { SeveralAnswers } from './several/severalAnswers';
import { ChatFlows } from './chatFlows';
import { ChatQuestions } from './chatQuestions';
import { ChatPromptList } from './chatPromptList';

/** How many of the newest path messages get their instruction chips checked against the files now. */
const INSTRUCTION_VERSIONS_SPAN = 200;

/**
 * One chat panel's conversation: answers every message the webview sends (exhaustively, in
 * `chatMessages.ts`), streams model answers into it, and posts a fresh `state` after every change.
 * Posts are queued until the webview says `ready` (`chatWebview.ts`), and re-sent when it reloads.
 */
export class ChatController extends Disposable {
  /** The page: posts wait until it says `ready`. */
  private readonly webview: ChatWebview;
  /** The part of the path the webview holds. */
  private readonly window = new ChatWindow();
  /** A message is being sent or edited and its answer has not started: it is not "unanswered" yet. */
  private sending = false;
  /** A compaction is being written. */
  private compacting = false;
  /** Branch from Here and the unanswered question. */
  private readonly branching = new ChatBranching();
  /** Whether each model takes images, learned in the background (a redraw follows a "no"). */
  private readonly imageSupport = new ImageSupportCache(() => void this.postState());
  /** The header's system prompt and request options. */
  private readonly options: ChatOptions;
  /** The context meter, compactions and branch summaries. */
  private readonly context: ChatContext;
  /** The model's answers, streamed. */
  private readonly answers: ChatAnswers;
  /** Tools offered in this chat, their approvals and cards. */
  private readonly tools: ChatTools;
  /** Ask Several Models runs and their merges. */
  private readonly several: SeveralAnswers;
  /** Flows run in this chat, and the flow panel. */
  private readonly flows: ChatFlows;
  /** What a sent, edited, regenerated or retried question does. */
  private readonly questions: ChatQuestions;
  /** The `/` menu, and the template versions prompt messages compare with. */
  private readonly promptList: ChatPromptList;
  /** What each message from the webview does. */
  private readonly messages: ChatMessages;
  /** A state post is scheduled (tool cards change in bursts). */
  private stateSoon?: ReturnType<typeof setTimeout>;
  /** A message to scroll to once the webview shows the path (`showMessage`). */
  private revealId?: string;
  private readonly _onDidDispose = this._register(new vscode.EventEmitter<void>());
  /** Fires when the panel closed. */
  readonly onDidDispose = this._onDidDispose.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly conversationId: string,
    private readonly services: ChatServices,
  ) {
    super();
    this.webview = this._register(new ChatWebview(panel, () => this.isDisposed));
    this.options = new ChatOptions(services, conversationId, (message) => this.post(message));
    this.tools = new ChatTools({
      tools: services.tools,
      conversationId,
      policies: () => services.settings.toolApproval,
      enabledByDefault: () => services.settings.toolsEnabled,
      maxSteps: () => services.settings.toolMaxSteps,
      changed: () => this.postStateSoon(),
      warn: (message) => services.logger.warn(message),
      recordFiles: (manager, nodeId, changes) => recordChanges(services, manager, nodeId, changes),
    });
    this._register(toDisposable(() => clearTimeout(this.stateSoon)));
    this.context = new ChatContext(services, this.options, (...args) => this.tools.window(...args));
    this.answers = new ChatAnswers({
      tools: this.tools,
      services,
      conversationId,
      context: this.context,
      options: this.options,
      branching: this.branching,
      reply: (request, answer) => this.webview.reply(request, answer),
      post: (message) => this.post(message),
      notify: (notice) => this.notify(notice),
      postState: () => this.postState(),
      otherRunning: () => this.several.running || this.flows.running,
    });
    this.flows = new ChatFlows({ services, conversationId, tools: this.tools, post: (m) => this.post(m), postState: () => this.postState(), otherRunning: () => this.answers.active !== undefined || this.several.running, configOverrides: (manager, model) => this.options.configOverrides(manager, model), window: (model) => this.context.guard(model) });
    this.several = createSeveralAnswers(services, conversationId, { options: this.options, branching: this.branching, post: (m) => this.post(m), postState: () => this.postState() });
    this.promptList = this._register(new ChatPromptList({ services, post: (m) => this.post(m), postState: () => this.postState(), postOptions: () => this.options.postOptions() }));
    this.questions = new ChatQuestions({
      services,
      conversationId,
      answers: this.answers,
      several: this.several,
      flows: this.flows,
      busy: () => this.busy,
      post: (m) => this.post(m),
      compact: (focus) => this.compactNow({ focus }),
    });
    this.messages = new ChatMessages({
      services,
      conversationId,
      webview: this.webview,
      window: this.window,
      branching: this.branching,
      options: this.options,
      context: this.context,
      answers: this.answers,
      tools: this.tools,
      several: this.several,
      flows: this.flows,
      questions: this.questions,
      onReady: () => this.onReady(),
      postState: () => this.postState(),
      postUsage: () => this.postUsage(),
      postModels: () => this.postModels(),
      mutate: (work) => this.mutate(work),
      switchTo: (nodeId) => this.switchTo(nodeId),
      startBranch: (nodeId) => this.startBranch(nodeId),
      attach: (attachments, text) => this.attach(attachments, text),
      compactNow: (options) => this.compactNow(options),
      whileSummarising: (work) => this.whileSummarising(work),
    });
    this._register(panel.webview.onDidReceiveMessage((msg: FromWebview) => this.messages.handle(msg)));
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(
      services.onDidChangeConversation((id) => {
        if (id === this.conversationId && !this.answers.active && !this.several.running) void this.postState();
        // A tool run stores results while no chunk streams: each shows on its card as it is stored.
        else if (id === this.conversationId && this.answers.active?.tools) this.postStateSoon();
        if (id === this.conversationId && this.webview.isReady) void this.options.postOptions();
      }),
    );
    this._register(
      services.onDidChangeSettings(() => {
        void this.postState();
        void this.postModels();
        void this.options.postOptions();
      }),
    );
    // An instruction file changed: its chips say so, and the meter counts it anew.
    this._register(services.instructions.onDidChange(() => this.postStateSoon()));
    this._register(
      services.onDidChangeTrust(() => {
        void this.postState();
        void this.promptList.post();
      }),
    );
    this._register(
      services.onDidLoadLibrary(() => {
        void this.promptList.post();
        void this.options.postOptions();
      }),
    );
    // VS Code's models came or went: the pickers list them again; their token counts, and tools that came or went, redraw the meter.
    this._register(services.vscodeLm.onDidChangeModels(() => void this.postModels()));
    this._register(services.vscodeLm.onDidCountTokens(() => void this.postUsage()));
    this._register(toDisposable(this.tools.watch(services.manager(conversationId), () => void this.postUsage())));
    this._register(services.foreignPrompts.onDidChange(() => void this.promptList.post()));
  }

  /** Whether a model answer is streaming. */
  get busy(): boolean {
    return this.answers.active !== undefined || this.several.running || this.compacting || this.flows.running;
  }

  private post(message: ToWebview): void {
    this.webview.post(message);
  }

  /** Adds context to the message being written (Ask About Selection). */
  attach(attachments: Attachment[], text?: string): void {
    this.post({ type: 'attach', attachments, text });
  }

  /** Branch from Here (the tree's menu, a message's button): see `ChatBranching.start`. */
  async startBranch(nodeId: string): Promise<void> {
    // On a flow's message: re-run the flow from that step, or branch as usual.
    const choice = await this.flows.branchChoice(nodeId);
    if (choice === 'cancel') return;
    if (choice === 'rerun') return await this.mutate(() => this.flows.rerun(nodeId));
    await this.services.withManager(this.conversationId, (m) => this.branching.start(m, nodeId));
    await this.postState();
  }

  /** Compact up to Here (the tree's menu): the older turns up to `nodeId` become a summary below it. Errors show as a notice. */
  async compactUpTo(nodeId: string): Promise<void> {
    await this.messages.handle({ type: 'compactHere', nodeId });
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

  /** Opens the path at the end of the branch through `nodeId` the reader last followed (Switch to Here). */
  async switchTo(nodeId: string): Promise<void> {
    this.branching.clear();
    const left = await this.services.withManager(this.conversationId, async (m) => {
      const before = m.currentNodeId;
      await m.switchToNode(m.getLastVisitedLeaf(nodeId));
      return { from: before, count: m.getBranchLeftCount(before) };
    });
    await this.postState();
    // Leaving a branch of a few turns: offer to carry what it found into this one.
    this.notify(branchSummaryOffer(left));
  }

  /** Scrolls the chat to a message of the path shown and highlights it (Go to Bookmark, a search result). */
  async showMessage(nodeId: string): Promise<void> {
    this.revealId = nodeId;
    await this.postState();
  }

  /**
   * Runs a change with the conversation marked busy (see `ChatServices.whileBusy`). A new branch the
   * reader started ends with it, and until its answer starts the path's end is not "unanswered".
   */
  private mutate(work: () => Promise<void>): Promise<void> {
    this.branching.clear();
    return this.services.whileBusy(this.conversationId, async () => {
      this.sending = true;
      try {
        await work();
      } finally {
        this.sending = false;
      }
    });
  }

  /** Posts the state in a moment, once for a burst of changes. */
  private postStateSoon(): void {
    if (this.stateSoon) return;
    this.stateSoon = setTimeout(() => {
      this.stateSoon = undefined;
      void this.postState();
    }, 16);
  }

  /** Sends the whole chat state; the panel's title follows the conversation's. */
  async postState(): Promise<void> {
    try {
      const manager = await this.services.manager(this.conversationId);
      if (this.isDisposed) return;
      const metadata = manager.getMetadata() as Record<string, unknown>;
      const title = chatTitle(metadata, manager.getChildren(ROOT_NODE_ID));
      this.panel.title = tabLabel(title);
      // The window mirrors what the webview holds: no state is built for a webview not listening yet.
      if (!this.webview.isReady) return;
      const s = this.services.settings;
      const pathIds = manager.getPathIds();
      const fileChanges = await manager.getFileChangesByNode().catch(() => ({}));
      // The versions of the instruction files recorded near the end of the path (where the reader is), to mark changed ones.
      const versions = await this.services.instructions.versions(recordedInstructions(pathIds.slice(-INSTRUCTION_VERSIONS_SPAN).map((id) => manager.getNode(id))));
      const images = await imageViews(manager, pathIds).catch(() => ({}));
      const model = conversationModel(metadata, s);
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
            branchPoint: this.branching.view(manager),
            unanswered: this.branching.unansweredAt(manager, this.answers.active !== undefined || this.several.running || this.sending),
            promptVersion: this.promptList.versions(),
            compaction: manager.getCompactionInEffect(),
            tools: { enabled: this.tools.enabled(manager), lookup: this.tools },
            fileChanges,
            instructions: { excluded: readConversationMetadata(metadata, 'excludedInstructions') ?? [], versions },
            images,
            imageSupport: this.imageSupport.get(manager, model, s.imagesMaxBytes),
          },
          this.window,
        ),
      });
      if (reveal !== undefined) this.post({ type: 'reveal', nodeId: reveal });
      this.post({ type: 'flowPanel', panel: await this.flows.panel(manager) });
      void this.postUsage();
    } catch (err) {
      this.services.logger.error(`Could not show conversation ${this.conversationId}`, err);
      const view = toErrorView(err);
      // The team store unreachable: its fixes and Retry, which asks for the chat again once it answers.
      const fixes = teamStoreFailure(err) ? { actions: view.actions ?? [], retryLoad: true } : {};
      this.post({ type: 'notice', level: 'error', message: view.message, ...fixes });
    }
  }

  private async onReady(): Promise<void> {
    this.webview.markReady();
    this.window.reset();
    await this.postState();
    this.webview.flushPending();
    this.answers.replay();
    this.several.replay();
    void this.postModels();
    void this.promptList.post();
    void this.options.postOptions();
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

  /** Posts how full the next request's context is, the draft included. */
  private async postUsage(): Promise<void> {
    if (!this.webview.isReady || this.isDisposed) return;
    const usage = await this.context.usage(await this.services.manager(this.conversationId));
    this.post({ type: 'usage', usage });
  }

  /** Posts a notice, when there is one to post. */
  private notify(notice: NoticeMessage | undefined): void {
    if (notice) this.post(notice);
  }

  /**
   * `/compact` and Compact up to Here: the chat shows it is busy while the summary is written, then a
   * notice says what it did, with Undo.
   */
  private async compactNow(options: { uptoNodeId?: string; focus?: string }): Promise<void> {
    const manager = await this.services.manager(this.conversationId);
    await this.whileSummarising(async () => this.notify(await this.context.compact(manager, options)));
  }

  /** Runs the writing of a summary with the chat marked busy. */
  private async whileSummarising(work: () => Promise<void>): Promise<void> {
    this.compacting = true;
    await this.postState();
    try {
      await work();
    } finally {
      this.compacting = false;
    }
  }

  /** Brings the panel to the front. */
  reveal(): void {
    this.panel.reveal();
  }

  /** Stops a running answer, tells `onDidDispose` listeners, then lets go of every subscription. */
  override dispose(): void {
    if (this.isDisposed) return;
    this.answers.active?.abort.abort();
    this.several.abort();
    this._onDidDispose.fire();
    super.dispose();
  }
}
