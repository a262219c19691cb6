/**
 * Runs a flow in a conversation, step after step, from the current node: each step's nodes are marked
 * with `metadata.flow` (the step's first node with the memory it started from, its last with the memory
 * after it and the state chosen next), so `resume` can continue after the last completed step (a kill)
 * and `rerunFrom` can run a step again on a new branch (Branch from Here). Yields `FlowEvent`s; never
 * throws for a flow's own failure (it yields `flow-failed`), and a Stop yields `flow-stopped` after
 * keeping everything stored.
 */
import { randomUUID } from 'node:crypto';
import type { ConversationManager } from '../conversation/conversationManager';
import type { CompleteOptions } from '../conversation/managerTypes';
import { readNodeMetadata } from '../metadataKeys';
import type { ConversationPromptBuilder } from '../promptContracts';
import type { LLMStreamChunk } from '../types';
import { requireJson } from '../validation';
import { conductorChoices } from './flowGraph';
import { flowNodeInfo, lastCompletedStep, stepStartOf } from './flowMarks';
import { addFlowMessage, renderFlowTemplate, runAgentStep, runFinishStep, runToolStep, templateParams, type FlowToolProvider, type StepContext } from './flowSteps';
import { type FlowDefinition, type FlowEvent, type FlowState } from './flowTypes';
import { FlowError } from './flowErrors';
import { type FlowNodeInfo } from '../metadataKeys';

/** How a flow runs: Stop, the tools its steps may use, and where streamed text goes. */
export interface FlowRunOptions {
  signal?: AbortSignal;
  /** The tools of a step, by the names it lists (the host's executor, approval and cards). */
  tools?: FlowToolProvider;
  /** Renders the flow's templates; `runFlow` and `resumeFlow` (`flowApi.ts`) pass the manager's own. */
  promptBuilder?: ConversationPromptBuilder;
  /** The model's streamed text of agent steps. */
  onChunk?: (chunk: LLMStreamChunk) => void;
  /** Retries of a JSON answer that fails its schema (agent `output`, the conductor's pick). */
  retries?: number;
  /** The model and its options for every request of the run (the chat's); a state's own `model` wins. */
  configOverrides?: CompleteOptions['configOverrides'];
  /** The window every request of the run is held to (`CompleteOptions.window`): a larger one is refused, not sent. */
  window?: CompleteOptions['window'];
}

/** Where a run goes on from: its state, step number, memory, and run id. */
interface RunPoint {
  state: string;
  step: number;
  memory: Record<string, unknown>;
  runId: string;
  resumed: boolean;
  versionChanged: boolean;
}

/** See the file's header. */
export class FlowRunner {
  constructor(
    private readonly manager: ConversationManager,
    private readonly options: FlowRunOptions = {},
  ) {}

  /** Starts `flow` below the current node with `inputs` (checked against the flow's `inputs`). */
  async *run(flow: FlowDefinition, inputs: Record<string, unknown> = {}): AsyncGenerator<FlowEvent> {
    let memory: Record<string, unknown>;
    try {
      memory = initialMemory(flow, inputs);
    } catch (error) {
      yield { type: 'flow-failed', error: error as Error, memory: { ...inputs } };
      return;
    }
    yield* this.loop(flow, { state: flow.start, step: 1, memory, runId: randomUUID(), resumed: false, versionChanged: false });
  }

  /**
   * Continues the flow run on the current path after its last completed step (the memory and next state
   * it recorded), on a new branch when a half-done step follows it; with no completed step, runs the first
   * step again from the memory it started with. Yields `flow-failed` saying why when it cannot.
   */
  async *resume(flow: FlowDefinition): AsyncGenerator<FlowEvent> {
    let point: RunPoint;
    try {
      const path = this.manager.getPathIds();
      const last = [...path].reverse().map((id) => flowNodeInfo(this.manager.getNode(id))).find((m) => m !== undefined);
      if (!last) throw new FlowError('There is no flow run on the current branch to resume.');
      checkSameFlow(flow, last);
      const done = lastCompletedStep(this.manager, path, last.runId);
      if (done) {
        if (done.info.next === null || done.info.next === undefined) throw new FlowError(`Flow "${flow.name}" already finished on this branch (step ${done.info.step}, state "${done.info.state}"); start it again to run it anew.`, done.info.memory);
        await this.manager.switchToNode(done.nodeId);
        point = { state: done.info.next, step: done.info.step + 1, memory: done.info.memory ?? {}, runId: last.runId, resumed: true, versionChanged: done.info.version !== flow.sha256 };
      } else {
        const first = path.map((id) => ({ id, info: flowNodeInfo(this.manager.getNode(id)) })).find((n) => n.info?.runId === last.runId && n.info.memoryIn);
        if (!first?.info?.memoryIn) throw new FlowError(`The flow run on this branch has no step whose starting memory was kept; start flow "${flow.name}" again.`);
        await this.manager.branchFrom(first.id);
        point = { state: first.info.state, step: first.info.step, memory: first.info.memoryIn, runId: last.runId, resumed: true, versionChanged: first.info.version !== flow.sha256 };
      }
    } catch (error) {
      yield { type: 'flow-failed', error: error as Error, memory: (error as FlowError).memory ?? {} };
      return;
    }
    yield* this.loop(flow, point);
  }

  /**
   * Branch from Here on a node of a flow step: runs that step again on a new branch (a sibling of the
   * step's first node), with the memory as it was when the step started, and goes on from there.
   */
  async *rerunFrom(flow: FlowDefinition, nodeId: string): AsyncGenerator<FlowEvent> {
    let point: RunPoint;
    try {
      const info = flowNodeInfo(this.manager.getNode(nodeId));
      if (!info) throw new FlowError(`Node "${nodeId}" is not part of a flow run: Branch from Here re-runs a flow only from one of its steps.`);
      checkSameFlow(flow, info);
      const start = stepStartOf(this.manager, nodeId, info);
      if (!start.info.memoryIn) throw new FlowError(`Step ${info.step} ("${info.state}") did not keep the memory it started from, so it cannot run again.`);
      await this.manager.branchFrom(start.nodeId);
      point = { state: info.state, step: info.step, memory: start.info.memoryIn, runId: info.runId, resumed: true, versionChanged: info.version !== flow.sha256 };
    } catch (error) {
      yield { type: 'flow-failed', error: error as Error, memory: (error as FlowError).memory ?? {} };
      return;
    }
    yield* this.loop(flow, point);
  }

  private async *loop(flow: FlowDefinition, point: RunPoint): AsyncGenerator<FlowEvent> {
    let { state: stateName, step, memory } = point;
    const { signal } = this.options;
    yield { type: 'flow-started', flow: flow.name, version: flow.sha256, runId: point.runId, state: stateName, step, memory, resumed: point.resumed, versionChanged: point.versionChanged };
    for (;;) {
      const state = flow.states.get(stateName);
      if (!state) {
        yield failed(new FlowError(`Flow "${flow.name}" has no state "${stateName}" (the file changed since this run?).`, memory), stateName, step, memory);
        return;
      }
      if (step > flow.maxSteps) {
        const error = new FlowError(`Flow "${flow.name}" stopped after ${flow.maxSteps} steps (maxSteps) before state "${stateName}". Memory: ${JSON.stringify(memory, null, 2)}`, memory);
        yield failed(error, stateName, step, memory);
        return;
      }
      if (signal?.aborted) {
        yield { type: 'flow-stopped', state: stateName, step, memory };
        return;
      }
      yield { type: 'step-started', state: stateName, step, stateType: state.type };
      const marker: FlowNodeInfo = { name: flow.name, version: flow.sha256, runId: point.runId, state: stateName, step };
      const ctx: StepContext = { manager: this.manager, flow, marker, ...this.stepOptions() };
      const startNode = this.manager.currentNodeId;
      // What the step got to, for a failure's report (a rule that fails sees the step's result).
      let latest = memory;
      try {
        if (state.type === 'finish') {
          const { text, node } = await runFinishStep(ctx, state, memory);
          yield { type: 'step-finished', state: stateName, step, memory, next: null, nodeId: node.nodeId, by: 'finish' };
          yield { type: 'flow-finished', answer: text, memory, nodeId: node.nodeId };
          return;
        }
        const outcome = state.type === 'agent' ? await runAgentStep(ctx, state, memory) : await runToolStep(ctx, state, memory);
        if (outcome.stopped || signal?.aborted) {
          yield { type: 'flow-stopped', state: stateName, step, memory };
          return;
        }
        latest = outcome.memory;
        const after = applySets(state, outcome.memory);
        latest = after;
        requireJson(after, `the memory after state "${stateName}"`);
        const { next, by } = await this.nextState(ctx, flow, state, after);
        const nodeId = await this.markStep(startNode, marker, after, next);
        memory = after;
        yield { type: 'step-finished', state: stateName, step, memory, next, nodeId, by };
        stateName = next;
        step++;
      } catch (error) {
        if (signal?.aborted) {
          yield { type: 'flow-stopped', state: stateName, step, memory };
          return;
        }
        yield failed(error as Error, stateName, step, (error as FlowError).memory ?? latest);
        return;
      }
    }
  }

  private stepOptions(): Omit<StepContext, 'manager' | 'flow' | 'marker'> {
    const { promptBuilder, tools, signal, onChunk, retries, configOverrides, window } = this.options;
    return {
      ...(promptBuilder ? { promptBuilder } : {}),
      ...(tools ? { tools } : {}),
      ...(signal ? { signal } : {}),
      ...(onChunk ? { onChunk } : {}),
      ...(retries !== undefined ? { retries } : {}),
      ...(configOverrides ? { configOverrides } : {}),
      ...(window ? { window } : {}),
    };
  }

  /** The first rule that holds; else the conductor's pick; else a failure naming the state. */
  private async nextState(ctx: StepContext, flow: FlowDefinition, state: FlowState, memory: Record<string, unknown>): Promise<{ next: string; by: 'rule' | 'default' | 'conductor' }> {
    for (const t of state.next) {
      if (!t.when) return { next: t.to, by: 'default' };
      if (t.when.evaluate(memory)) return { next: t.to, by: 'rule' };
    }
    const choices = conductorChoices(flow, state);
    if (!flow.conductor || choices.length === 0) {
      throw new FlowError(`In state "${state.name}" of flow "${flow.name}" no rule holds (${state.next.map((t) => t.when?.source).join('; ')}) and there is no conductor to pick the next state.`, memory);
    }
    return { next: await this.askConductor(ctx, flow, state, memory, choices), by: 'conductor' };
  }

  /** Asks the model for the next state, as JSON `{next}` whose value must be one of `choices`. */
  private async askConductor(ctx: StepContext, flow: FlowDefinition, state: FlowState, memory: Record<string, unknown>, choices: string[]): Promise<string> {
    const conductor = flow.conductor ?? {};
    const params = templateParams(memory, ctx.marker, { flow_choices: choices.join(', '), flow_name: flow.name, flow_description: flow.description ?? '' });
    const user = conductor.user ?? { inline: DEFAULT_CONDUCTOR, offset: { line: 1, column: 0 } };
    await addFlowMessage(ctx, user, params, undefined, true);
    const system = conductor.system ? await renderFlowTemplate(ctx, conductor.system, 'system', params) : undefined;
    const schema = { type: 'object', properties: { next: { type: 'string', enum: choices }, reason: { type: 'string' } }, required: ['next'] };
    const response = await this.manager.complete({
      metadata: { flow: { ...ctx.marker, conductor: true } },
      outputSchema: schema,
      ...(this.options.configOverrides ? { configOverrides: this.options.configOverrides } : {}),
      ...(this.options.window ? { window: this.options.window } : {}),
      ...(this.options.retries !== undefined ? { retries: this.options.retries } : {}),
      ...(system ? { systemPromptOverride: system.text } : {}),
      ...(this.options.signal ? { signal: this.options.signal } : {}),
    });
    const next = (response.parsed as { next?: unknown } | undefined)?.next;
    if (typeof next !== 'string' || !choices.includes(next)) throw new FlowError(`The conductor of flow "${flow.name}" did not pick one of ${choices.join(', ')} in state "${state.name}".`, memory);
    return next;
  }

  /** Marks every node of the step (below `startNode`) with the flow, and its last with the memory and next state. */
  private async markStep(startNode: string, marker: FlowNodeInfo, memory: Record<string, unknown>, next: string): Promise<string> {
    const path = this.manager.getPathIds();
    const from = path.indexOf(startNode) + 1;
    const ids = path.slice(from);
    const last = ids[ids.length - 1];
    for (const id of ids.slice(0, -1)) {
      if (!readNodeMetadata(this.manager.getNode(id).metadata, 'flow')) await this.manager.setNodeMetadata(id, 'flow', marker);
    }
    const own = readNodeMetadata(this.manager.getNode(last).metadata, 'flow');
    await this.manager.setNodeMetadata(last, 'flow', { ...marker, ...(own?.memoryIn ? { memoryIn: own.memoryIn } : {}), ...(own?.conductor ? { conductor: true } : {}), memory, next });
    return last;
  }
}

/** Arbor's own question to the conductor when the flow names no prompt for it. */
const DEFAULT_CONDUCTOR = `You route the flow "{{flow_name}}"{{#if flow_description}} ({{flow_description}}){{/if}}. Step {{flow_step}} (state "{{flow_state}}") is done and no rule decided what comes next.

The flow's memory:
{{flow_memory}}

Pick the next state, one of: {{flow_choices}}. Answer with a JSON object {"next": "<state>", "reason": "<one sentence>"}.`;

function failed(error: Error, state: string, step: number, memory: Record<string, unknown>): FlowEvent {
  return { type: 'flow-failed', error, state, step, memory };
}

function checkSameFlow(flow: FlowDefinition, info: FlowNodeInfo): void {
  if (info.name !== flow.name) throw new FlowError(`This branch ran flow "${info.name}", not "${flow.name}".`);
  if (!flow.states.has(info.state)) throw new FlowError(`Flow "${flow.name}" has no state "${info.state}" any more (the file changed since this run); start it again.`);
}

/** The memory a run starts with: the flow's `memory`, the inputs' defaults, then the inputs given. */
export function initialMemory(flow: FlowDefinition, inputs: Record<string, unknown>): Record<string, unknown> {
  requireJson(inputs, 'the flow inputs');
  const known = new Set(flow.inputs.map((p) => p.name));
  const unknown = Object.keys(inputs).filter((k) => !known.has(k));
  if (unknown.length) throw new FlowError(`Flow "${flow.name}" has no input ${unknown.map((k) => `"${k}"`).join(', ')} (its inputs: ${[...known].join(', ') || 'none'}).`);
  const memory: Record<string, unknown> = structuredClone(flow.memory);
  for (const p of flow.inputs) if (p.default !== undefined) memory[p.name] = structuredClone(p.default);
  Object.assign(memory, structuredClone(inputs));
  const missing = flow.inputs.filter((p) => p.required && (memory[p.name] === undefined || memory[p.name] === null || memory[p.name] === ''));
  if (missing.length) throw new FlowError(`Flow "${flow.name}" needs ${missing.map((p) => `"${p.name}"`).join(', ')}: fill ${missing.length === 1 ? 'it' : 'them'} in to start it.`);
  return memory;
}

function applySets(state: FlowState, memory: Record<string, unknown>): Record<string, unknown> {
  const out = { ...memory };
  // Each `set` sees the memory as the step left it, so their order does not matter.
  for (const { key, value } of state.set) out[key] = value.evaluate(memory);
  return out;
}
