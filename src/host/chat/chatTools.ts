/**
 * One chat's tools: whether it offers them (the toolbar toggle), the executor of a run over the tools
 * the window offers, the approval of each call (at once by policy or grant, else a card in the chat that
 * waits for the user's Allow or Deny), and the live state of the run's calls for their cards.
 */
import { DESCRIBE_TOOL_NAME, describeToolTool, filterAllowedTools, readConversationMetadata, ToolExecutor, type ApprovalDecision, type ApprovalRequest, type ConversationManager, type ConversationNode, type Tool, type ToolCallEvent, type ToolDefinition } from '../../core/index';
import type { NoticeMessage, ToolChangePreview, ToolDecisionMessage } from '../../shared/protocol';
import type { TextFileChange } from '../checkpoints/fileCheckpoints';
import type { OfferedTool } from '../tools/offeredTool';
import { callNeed, grantKey, keptGrant, offeredTools, policyFor, type ToolPolicy } from '../tools/toolApprovals';
import type { LiveToolCall, ToolCallLookup } from '../tools/toolCallViews';
import { chosenTools, isToolPinned } from '../tools/toolChoice';
import type { ToolServices } from '../tools/toolServices';
import { calledToolNames, fitToolWindow, latestUserText, leftOutSummary, type ToolWindow, type ToolWindowRequest } from '../tools/toolWindow';

/** The notice's button that opens the tools picker. */
export const CHOOSE_TOOLS_ACTION = { command: 'arbor.chooseTools', title: 'Choose Tools…' } as const;
/** The notice's button that offers a larger window (an Ollama model trained for more than it runs with). */
export const RAISE_WINDOW_ACTION = { command: 'arbor.raiseContextWindow', title: 'Raise the Window…' } as const;

/** Conversation metadata key: `true` when the user turned tools off in this chat. */
export const TOOLS_OFF_KEY = 'toolsOff';

/** Most characters of one tool result the conversation keeps. */
const MAX_TOOL_OUTPUT_CHARS = 100_000;

/** What a chat's tools need of the window. */
export interface ChatToolsDeps {
  tools: ToolServices;
  conversationId: string;
  /** `arbor.tools.approval`. */
  policies(): Readonly<Record<string, ToolPolicy>>;
  /** `arbor.tools.enabled`: whether chats offer tools unless turned off in the chat. */
  enabledByDefault(): boolean;
  /** `arbor.tools.maxSteps`. */
  maxSteps(): number;
  /** The cards changed: post a new state. */
  changed(): void;
  warn(message: string): void;
  /** Records the files a tool result node changed (its checkpoint). */
  recordFiles(manager: ConversationManager, nodeId: string, changes: TextFileChange[]): Promise<void>;
}

/** A run's tools, ready for `runWithTools`. */
export interface PreparedToolRun {
  /** Holds every tool the chat offers (a tool left out of a request to fit the window can still be called after `describe_tool`). */
  executor: ToolExecutor;
  /** Every definition the chat offers, before fitting to the window. */
  definitions: readonly ToolDefinition[];
  /** Wire names of the tools the user pinned: they stay offered whatever the window. */
  pinned: ReadonlySet<string>;
  /** Records the file changes of a tool result as the checkpoint of its node, as soon as the node is stored. */
  recordResult(manager: ConversationManager, node: ConversationNode): Promise<void>;
  /** Records what is left (a result stored while its changes were not yet taken): call when the run ended. */
  recordFiles(manager: ConversationManager): Promise<void>;
  maxSteps: number;
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
  onEvent(event: ToolCallEvent): void;
}

/** See the file's header. */
export class ChatTools implements ToolCallLookup {
  /** The tools of the last run (or of the last look), by wire name, for the cards. */
  private known = new Map<string, OfferedTool>();
  private readonly liveCalls = new Map<string, LiveToolCall>();
  private readonly waiting = new Map<string, (decision: ToolDecisionMessage) => void>();

  constructor(private readonly deps: ChatToolsDeps) {}

  /** Whether this chat offers tools. */
  enabled(manager: ConversationManager): boolean {
    const off = (manager.getMetadata() as Record<string, unknown>)[TOOLS_OFF_KEY];
    return typeof off === 'boolean' ? !off : this.deps.enabledByDefault();
  }

  /**
   * The tools that can be offered now without starting anything (the servers already running), read again
   * by `refresh` when the tools on offer change: what the meter fits into the window, once chosen.
   */
  private ready: readonly OfferedTool[] = [];
  /** The chosen ready tools' definitions and pinned wire names, for one choice (the meter asks on every keystroke). */
  private chosenReady?: { key: string; definitions: readonly ToolDefinition[]; pinned: ReadonlySet<string> };
  private facts?: { at: string; query: string; called: ReadonlySet<string> };
  /** What the last left-out notice was about (model, window, tools), or `undefined` when nothing was left out. */
  private lastLeftOut?: string;

  /** Reads the ready tools again (the chat opened, a server started or stopped). */
  refresh(): void {
    this.ready = this.deps.tools.ready();
    this.chosenReady = undefined;
  }

  /**
   * Follows the tools that are ready for the meter (a server that started, a tool that came or went calls
   * `changed`), and, in a chat with tools on, starts the servers it will offer now, so the meter counts their
   * tools before the first request. Returns the unsubscribe.
   */
  watch(manager: Promise<ConversationManager>, changed: () => void): () => void {
    const refresh = () => {
      this.refresh();
      changed();
    };
    const stop = this.deps.tools.onDidChangeReady(refresh);
    refresh();
    void manager.then((m) => this.enabled(m) && this.deps.tools.warmUp(), () => undefined);
    return stop;
  }

  /** The chat's tools as it chose them (the picker, else the default), with the policy's `off` left out. */
  private chosen(manager: ConversationManager, tools: readonly OfferedTool[]): { tools: OfferedTool[]; pinned: ReadonlySet<string> } {
    const chat = readConversationMetadata(manager.getMetadata() as Record<string, unknown>, 'toolChoice');
    const fallback = this.deps.tools.defaultChoice();
    const kept = chosenTools(offeredTools(tools, this.deps.policies()), chat, fallback);
    return { tools: kept, pinned: new Set(kept.filter((t) => isToolPinned(t, chat, fallback)).map((t) => t.tool.name)) };
  }

  /** The chosen ready tools as definitions, computed again only when the tools, the choice or the policies changed. */
  private readyDefinitions(manager: ConversationManager): { definitions: readonly ToolDefinition[]; pinned: ReadonlySet<string> } {
    const metadata = manager.getMetadata() as Record<string, unknown>;
    const key = JSON.stringify([manager.conversationId, metadata.toolChoice ?? null, this.deps.tools.defaultChoice() ?? null, this.deps.policies()]);
    if (this.chosenReady?.key !== key) {
      const { tools, pinned } = this.chosen(manager, this.ready);
      this.chosenReady = { key, definitions: new ToolExecutor(tools.map((t) => t.tool)).definitions(), pinned };
    }
    return this.chosenReady;
  }

  /**
   * The tools the next request of this chat carries, fitted into the window as the request will fit them
   * (`undefined` with tools off). `request` counts the rest of the request; `draft` is the message being
   * written, which the relevant tools are chosen by (else the latest user message).
   */
  window(manager: ConversationManager, request: Omit<ToolWindowRequest, 'definitions' | 'keep' | 'query'>, draft: string, run?: Pick<PreparedToolRun, 'definitions' | 'pinned'>): ToolWindow | undefined {
    if (!this.enabled(manager)) return undefined;
    const path = this.pathFacts(manager);
    const { definitions, pinned } = run ?? this.readyDefinitions(manager);
    return fitToolWindow({
      ...request,
      definitions,
      query: draft.trim() ? draft : path.query,
      keep: new Set([...path.called, ...pinned]),
    });
  }

  /**
   * Says what the window left out ("12 of 40 tools offered to fit …"), with buttons to choose the tools or
   * raise the window: once per model, window and set of tools, as how many fit moves with each message.
   */
  leftOutNotice(window: ToolWindow | undefined, model: string, limit: number | undefined, canRaise = false): NoticeMessage | undefined {
    const summary = window && leftOutSummary(window, model, limit);
    const key = summary && `${model}\u0000${limit}\u0000${window.total}`;
    if (key === this.lastLeftOut) return undefined;
    this.lastLeftOut = key;
    if (!summary || !window) return undefined;
    const asked = window.offered.some((d) => d.function.name === DESCRIBE_TOOL_NAME) ? ' The model can ask for the others by name (describe_tool).' : '';
    return { type: 'notice', level: 'info', message: `${summary}: the most relevant to your message, and those already used.${asked}`, actions: canRaise ? [CHOOSE_TOOLS_ACTION, RAISE_WINDOW_ACTION] : [CHOOSE_TOOLS_ACTION] };
  }

  /** The path's latest user message and called tools, read once per position (the meter asks on every keystroke). */
  private pathFacts(manager: ConversationManager): { query: string; called: ReadonlySet<string> } {
    const at = `${manager.conversationId}\u0000${manager.currentNodeId}`;
    if (this.facts?.at !== at) {
      const path = manager.getHistory();
      this.facts = { at, query: latestUserText(path), called: calledToolNames(path) };
    }
    return this.facts;
  }

  /** The toolbar toggle. */
  async setEnabled(manager: ConversationManager, enabled: boolean): Promise<void> {
    await manager.setMetadata({ [TOOLS_OFF_KEY]: !enabled });
  }

  /**
   * The tools for a run of this chat, or `undefined` when it offers none (turned off, or none are there).
   * `allow` (a prompt file's `tools:` or `allowed-tools:`) keeps only the tools it names, for this run;
   * `describe` adds `describe_tool`, for a run whose requests may leave tools out to fit the window.
   */
  async prepare(manager: ConversationManager, allow?: readonly string[], options: { describe?: boolean } = {}): Promise<PreparedToolRun | undefined> {
    if (!this.enabled(manager)) return undefined;
    // The tools picker: only the tools ticked in this chat, else in the default, else built-in and MCP ones.
    const offered = await this.deps.tools.offered();
    let { tools } = this.chosen(manager, offered);
    const { pinned } = this.chosen(manager, tools);
    if (allow) {
      const kept = new Set(filterAllowedTools(tools.map((t) => ({ name: t.tool.name, displayName: t.displayName, server: t.server })), allow).map((t) => t.name));
      tools = tools.filter((t) => kept.has(t.tool.name));
    }
    if (tools.length === 0) return undefined;
    this.known = new Map(tools.map((t) => [t.tool.name, t]));
    // The texts a file tool reports go to the store's checkpoints, not into the result node's metadata.
    const stash = new Map<string, TextFileChange[]>();
    const own = tools.map((t) => (t.source === 'builtin' && !t.tool.readOnly ? withFileChangesTaken(t.tool, stash) : t.tool));
    const logger = { warn: (message: string) => this.deps.warn(message) };
    const definitions = new ToolExecutor(own, { logger }).definitions();
    // describe_tool answers the full text of any tool, so a model can read, then call, one the window left out.
    const describe = options.describe ? [describeToolTool(() => definitions)] : [];
    const executor = new ToolExecutor([...own, ...describe], { maxOutputChars: MAX_TOOL_OUTPUT_CHARS, logger });
    for (const tool of describe) this.known.set(tool.name, { tool, source: 'builtin', displayName: tool.name });
    // What this request lists is what the next one will: the meter follows it.
    this.ready = offered;
    this.chosenReady = undefined;
    return {
      executor,
      definitions,
      pinned,
      recordResult: async (manager, node) => {
        const callId = node.message.toolCallId;
        const changes = callId !== undefined ? stash.get(callId) : undefined;
        if (callId === undefined || !changes) return;
        stash.delete(callId);
        await this.deps.recordFiles(manager, node.nodeId, changes);
      },
      recordFiles: async (manager) => {
        const ids = manager.getPathIds();
        for (const [callId, changes] of stash) {
          const nodeId = [...ids].reverse().find((id) => manager.getNode(id).message.toolCallId === callId);
          if (nodeId !== undefined) await this.deps.recordFiles(manager, nodeId, changes);
        }
        stash.clear();
      },
      maxSteps: this.deps.maxSteps(),
      approve: (request) => this.approve(request),
      onEvent: (event) => this.onEvent(event),
    };
  }

  describe(toolName: string): { displayName: string; source: OfferedTool['source'] } | undefined {
    const offered = this.known.get(toolName);
    return offered ? { displayName: offered.displayName, source: offered.source } : undefined;
  }

  live(callId: string): LiveToolCall | undefined {
    return this.liveCalls.get(callId);
  }

  /** The user answered a card; false when no call waits under that id (answered already, or stopped). */
  decide(message: ToolDecisionMessage): boolean {
    const resolve = this.waiting.get(message.callId);
    if (!resolve) return false;
    resolve(message);
    return true;
  }

  /** A run ended: no card waits or runs any more. */
  clear(): void {
    this.liveCalls.clear();
    this.waiting.clear();
  }

  private async approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    const offered = this.known.get(request.tool.name);
    if (!offered) return { deny: 'This tool is not offered in this chat any more.' };
    // A tool that changes the workspace judges the call first: an allow-listed command runs; a refused
    // path or command runs too, to fail with the tool's own reason; a path or command it asks about is
    // asked about whatever was granted before, and a protected file (`once`) keeps no grant from its Allow.
    const verdict = await offered.checkCall?.(request.input).catch(() => undefined);
    if (verdict && verdict.kind !== 'ask') return 'allow';
    const policy = policyFor(offered, this.deps.policies());
    const need = callNeed(offered, request.input, verdict, policy, this.deps.tools.grants(this.deps.conversationId));
    if (need.kind === 'run') return 'allow';
    const callId = request.call.id;
    const preview = offered.previewChange ? await changePreview(offered, request.input) : undefined;
    const { once, covers } = need;
    this.liveCalls.set(callId, { state: 'pendingApproval', approval: { reason: need.reason, ...(once ? { once } : {}), ...(covers ? { covers } : {}), ...(preview ? { preview } : {}) } });
    this.deps.changed();
    const decision = await new Promise<ToolDecisionMessage | undefined>((resolve) => {
      const onAbort = () => resolve(undefined);
      request.signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(callId, (message) => {
        request.signal.removeEventListener('abort', onAbort);
        resolve(message);
      });
    });
    this.waiting.delete(callId);
    if (!decision) return { deny: 'Stopped by the user.' };
    if (decision.deny !== undefined || !decision.scope) return { deny: decision.deny ?? '' };
    const kept = keptGrant(need, decision.scope);
    if (kept) await this.deps.tools.grant(this.deps.conversationId, grantKey(offered, request.input), kept);
    if (decision.input === undefined) return 'allow';
    let edited: unknown;
    try {
      edited = JSON.parse(decision.input);
    } catch (err) {
      return { deny: `The user edited the arguments into text that is not JSON (${err instanceof Error ? err.message : String(err)}); nothing ran.` };
    }
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) return { deny: 'The user edited the arguments into something that is not a JSON object; nothing ran.' };
    return JSON.stringify(edited) === JSON.stringify(request.input) ? 'allow' : { allow: edited as Record<string, unknown> };
  }

  private onEvent(event: ToolCallEvent): void {
    if (event.status === 'running') this.liveCalls.set(event.callId, { state: 'running', ...(event.startedAt ? { startedAt: event.startedAt } : {}) });
    else if (event.status !== 'pendingApproval') this.liveCalls.delete(event.callId);
    // A call that runs without asking still shows as pending for the moment its approval takes: no post for that.
    if (event.status !== 'pendingApproval') this.deps.changed();
  }
}

/** The change a file tool's call would make, for its card; what is wrong with the call when it cannot be made. */
async function changePreview(offered: OfferedTool, input: Record<string, unknown>): Promise<ToolChangePreview> {
  try {
    const p = await (offered.previewChange as NonNullable<OfferedTool['previewChange']>)(input);
    return { path: p.shown, diff: p.diff, added: p.added, removed: p.removed, created: p.before === undefined };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * `tool` with the texts of the files it changed taken out of its result's `metadata.fileChanges` (the
 * hashes and counts stay) into `stash`, by call id, for the checkpoint of the result's node.
 */
function withFileChangesTaken(tool: Tool, stash: Map<string, TextFileChange[]>): Tool {
  return {
    ...tool,
    run: async (input, ctx) => {
      const out = await tool.run(input, ctx);
      const records = typeof out === 'object' ? out.metadata?.fileChanges : undefined;
      if (typeof out !== 'object' || !Array.isArray(records)) return out;
      const entries = records as Array<{ path: string; before: string | null; after: string } & Record<string, unknown>>;
      stash.set(ctx.call.id, entries.map((e) => ({ abs: e.path, before: e.before, after: e.after })));
      return { ...out, metadata: { ...out.metadata, fileChanges: entries.map(({ before: _before, after: _after, ...rest }) => rest) } };
    },
  };
}
