/**
 * Flows in one chat: starts a flow from the `/` menu (its form's values are the inputs), re-runs one from a
 * step (Branch from Here on a flow message) or resumes an unfinished one, streams each agent step's answer
 * like any answer, runs tool calls through the chat's tools (approvals, cards, file checkpoints), and keeps
 * the run's progress for the flow panel. Stop aborts the run.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { flowNodeInfo, resumeFlow, runFlow, type ConversationManager, type ConversationMetadata, type FlowDefinition, type FlowEvent, type FlowRunOptions, type FlowToolProvider } from '../../core/index';
import type { FlowPanelView, NoticeMessage, SendMessage, ToWebview } from '../../shared/protocol';
import { conversationModel } from '../conversations/conversationModel';
import { toErrorView } from './errorView';
import { titleFromMessage } from '../conversations/conversationRules';
import { flowInputs, flowMarkText, flowPanelView, flowRunOnPath, trackFlowEvent, type FlowRunTrack } from './flowView';
import type { ChatServices } from './chatServices';
import type { ChatTools } from './chatTools';

/** What the flows of a chat need of it. */
export interface ChatFlowsDeps {
  services: ChatServices;
  conversationId: string;
  tools: ChatTools;
  post(message: ToWebview): void;
  postState(): Promise<void>;
  /** Another answer streams in this chat: a flow does not start beside it. */
  otherRunning(): boolean;
  /** The chat's model and options as its requests send them (a state's own `model` still wins). */
  configOverrides(manager: ConversationManager, model: string): Promise<FlowRunOptions['configOverrides']>;
  /** The window the chat's model reads: every request of the flow is held to it (a larger one fails the step, unsent). */
  window?(model: string): Promise<FlowRunOptions['window']>;
}

/** A flow running now. */
interface ActiveFlow {
  requestId: string;
  abort: AbortController;
  track: FlowRunTrack;
}

/** What Branch from Here on a node does: the usual new branch, a re-run of the flow's step, or nothing (the pick was dismissed). */
export type BranchChoice = 'branch' | 'rerun' | 'cancel';

/** See the file's header. */
export class ChatFlows {
  private active?: ActiveFlow;
  /** The last run that ended here, stopped or failed: the panel says so while the path still ends in it. */
  private ended?: FlowRunTrack;

  constructor(private readonly deps: ChatFlowsDeps) {}

  /** Whether a flow runs in this chat. */
  get running(): boolean {
    return this.active !== undefined;
  }

  /** Stop: the run's signal aborts (the step running is cut; the panel then says where it stopped). */
  stop(): void {
    this.active?.abort.abort();
  }

  /** Starts the flow `msg.promptName` with the form's values, below the current node; answers `msg`'s stream. */
  async start(msg: SendMessage): Promise<void> {
    if (this.refuse(msg.requestId)) return;
    const manager = await this.deps.services.manager(this.deps.conversationId);
    let flow: FlowDefinition;
    let inputs: Record<string, unknown>;
    try {
      flow = await this.flow(msg.promptName ?? '');
      inputs = flowInputs(flow, msg.params ?? {});
    } catch (err) {
      this.deps.post({ type: 'streamDone', requestId: msg.requestId, error: toErrorView(err) });
      return;
    }
    // Two user messages never follow each other: a flow started on an unanswered question goes beside it.
    const current = manager.getNode(manager.currentNodeId);
    if (current.message.role === 'user') await manager.branchFrom(current.nodeId);
    // A chat a flow starts is named after it (and its first text input), as a typed message names one.
    const firstText = Object.values(inputs).find((v): v is string => typeof v === 'string' && v.trim() !== '');
    const title = titleFromMessage(manager.getMetadata() as Record<string, unknown>, { text: msg.text.trim() || `${flow.name}${firstText ? `: ${firstText}` : ''}`, attachments: [] });
    if (title !== undefined) await manager.setMetadata({ title } satisfies ConversationMetadata);
    await this.run(msg.requestId, manager, flow, (options) => runFlow(manager, flow, inputs, options));
  }

  /** Runs the step of the flow node `nodeId` again on a new branch (memory as it was then), and goes on. */
  async rerun(nodeId: string): Promise<void> {
    const requestId = `flow-${randomUUID()}`;
    if (this.refuse(requestId)) return;
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const info = flowNodeInfo(manager.getNode(nodeId));
    if (!info) throw new Error('This message was not written by a flow: Re-run works on the messages of a flow step.');
    const flow = await this.flow(info.name);
    await this.run(requestId, manager, flow, (options) => resumeFlow(manager, flow, nodeId, options));
  }

  /** Resume: the flow run the current path ends in goes on after its last completed step. */
  async resume(): Promise<void> {
    const requestId = `flow-${randomUUID()}`;
    if (this.refuse(requestId)) return;
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const track = flowRunOnPath(manager.getPathIds().map((id) => manager.getNode(id)));
    if (!track) throw new Error('The current branch has no flow run to resume.');
    const flow = await this.flow(track.flow);
    await this.run(requestId, manager, flow, (options) => resumeFlow(manager, flow, undefined, options));
  }

  /**
   * Branch from Here on `nodeId`: on a flow message, asks whether to re-run the flow from that step or to
   * branch as usual; on any other message, the usual branch.
   */
  async branchChoice(nodeId: string): Promise<BranchChoice> {
    const manager = await this.deps.services.manager(this.deps.conversationId);
    const info = flowNodeInfo(manager.getNode(nodeId));
    if (!info) return 'branch';
    const items: Array<vscode.QuickPickItem & { choice: BranchChoice }> = [
      { label: 'Re-run the flow from this step', description: flowMarkText(info), detail: 'Runs this step again on a new branch, with the memory it started from, then goes on.', choice: 'rerun' },
      { label: 'Branch from here', description: 'write a new message', detail: 'Your next message starts a new branch at this message.', choice: 'branch' },
    ];
    const picked = await vscode.window.showQuickPick(items, { title: `Branch from Here: flow "${info.name}"`, placeHolder: 'Re-run the flow from this step, or branch as usual' });
    return picked?.choice ?? 'cancel';
  }

  /** The flow panel: the run going on, else the last run on the current path (`null`: none). */
  async panel(manager: ConversationManager): Promise<FlowPanelView | null> {
    let track = this.active?.track;
    if (!track) {
      const onPath = flowRunOnPath(manager.getPathIds().map((id) => manager.getNode(id)));
      // A run that ended here says how (stopped, failed) while the path still ends in it.
      track = this.ended && onPath?.runId === this.ended.runId ? this.ended : onPath;
    }
    if (!track) return null;
    const library = this.deps.services.trusted ? await this.deps.services.promptLibrary().catch(() => undefined) : undefined;
    return flowPanelView(track, library?.getFlow(track.flow));
  }

  private refuse(requestId: string): boolean {
    if (!this.active && !this.deps.otherRunning()) return false;
    this.deps.post({ type: 'streamDone', requestId, error: { message: 'An answer or a flow is still running: stop it or wait for it first.', kind: 'busy', retryable: true } });
    return true;
  }

  private async flow(name: string): Promise<FlowDefinition> {
    if (!this.deps.services.trusted) throw new Error('Flows come from the workspace\'s prompts/flows/ folder, which is not read in restricted mode: trust the workspace to run them.');
    const library = await this.deps.services.promptLibrary();
    const flow = library?.getFlow(name);
    if (!flow) {
      const known = library?.listFlows().map((f) => f.name) ?? [];
      throw new Error(`There is no flow "${name}" in prompts/flows/ (${known.length ? `flows: ${known.join(', ')}` : 'no flow loaded; see the Problems panel'}).`);
    }
    return flow;
  }

  /** Runs a flow's events to their end: streams, tracks and redraws; the stream `requestId` ends with it. */
  private async run(requestId: string, manager: ConversationManager, flow: FlowDefinition, make: (options: FlowRunOptions) => AsyncGenerator<FlowEvent>): Promise<void> {
    const active: ActiveFlow = { requestId, abort: new AbortController(), track: { flow: flow.name, runId: '', status: 'running', step: 0, memory: {} } };
    this.active = active;
    this.ended = undefined;
    const model = conversationModel(manager.getMetadata() as Record<string, unknown>, this.deps.services.settings);
    let parent: string | undefined;
    const startStream = () => {
      parent = manager.currentNodeId;
      this.deps.post({ type: 'streamStart', requestId, parentNodeId: parent, model });
    };
    let notice: NoticeMessage | undefined;
    try {
      await this.deps.services.whileBusy(this.deps.conversationId, async () => {
        const configOverrides = await this.deps.configOverrides(manager, model);
        const window = await this.deps.window?.(model);
        const events = make({
          ...(configOverrides ? { configOverrides } : {}),
          ...(window ? { window } : {}),
          signal: active.abort.signal,
          tools: this.toolProvider(manager),
          onChunk: (chunk) => {
            // Each answer streams below the node it answers (a tool run stores nodes between them).
            if (manager.currentNodeId !== parent) startStream();
            if (chunk.delta || chunk.thinkingDelta) this.deps.post({ type: 'streamDelta', requestId, delta: chunk.delta, thinkingDelta: chunk.thinkingDelta });
          },
        });
        for await (const event of events) {
          active.track = trackFlowEvent(active.track, event) ?? active.track;
          if (event.type === 'step-started') startStream();
          if (event.type === 'flow-started' && event.versionChanged) notice = { type: 'notice', level: 'warning', message: `The flow file of "${flow.name}" changed since this run began: it goes on with the file as it is now.` };
          if (event.type === 'flow-failed') notice = { type: 'notice', level: 'error', message: `Flow "${flow.name}" failed${event.state ? ` in state "${event.state}"` : ''}: ${event.error.message}` };
          if (notice) {
            this.deps.post(notice);
            notice = undefined;
          }
          await this.deps.postState();
        }
      });
    } finally {
      this.active = undefined;
      // A run cut without its own last event (an exception) counts as stopped; one that failed before it began has no id and no panel.
      if (active.track.runId && active.track.status !== 'finished') this.ended = active.track.status === 'running' ? { ...active.track, status: 'stopped' } : active.track;
      this.deps.post({ type: 'streamDone', requestId });
      await this.deps.postState();
    }
  }

  /** A step's tools from the chat's: its approvals and cards, file checkpoints of what they change. */
  private toolProvider(manager: ConversationManager): FlowToolProvider {
    return async (names) => {
      const run = await this.deps.tools.prepare(manager, names);
      if (!run) return undefined;
      return {
        executor: run.executor,
        approve: run.approve,
        maxSteps: run.maxSteps,
        onEvent: (event) => run.onEvent(event),
        onResultStored: (node) => run.recordResult(manager, node),
        done: async () => {
          this.deps.tools.clear();
          await run.recordFiles(manager);
          await run.executor.dispose().catch((err: unknown) => this.deps.services.logger.warn(`Could not close the tools' resources: ${String(err)}`));
        },
      };
    };
  }
}
