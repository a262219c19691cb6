/**
 * One step of a flow in the conversation: an agent step (a user message rendered from memory, answered by
 * the model with its tools, or as JSON for an `output` schema), a tool step (an assistant call node and the
 * tool's result node, stored as a tool run stores them, behind the same approval), or a finish step (the
 * final answer rendered from memory, as an assistant node). Each returns the memory after it.
 */
import type { ConversationManager } from '../conversation/conversationManager';
import type { CompleteOptions } from '../conversation/managerTypes';
import type { ConversationPromptBuilder, PromptRef } from '../promptContracts';
import type { ToolExecutor } from '../tools/toolExecutor';
import type { ToolApprover, ToolCallEvent } from '../tools/toolLoop';
import { toolResultNode } from '../tools/toolResults';
import type { ConversationNode, LLMStreamChunk, ToolCall } from '../types';
import { type AgentState, type FinishState, type FlowDefinition, type FlowTemplate, type ToolState } from './flowTypes';
import { FlowError } from './flowErrors';
import { type FlowNodeInfo } from '../metadataKeys';

/** The tools a step may use, ready to run: the host builds them (its policy, approvals and cards) per step. */
export interface FlowToolRun {
  executor: ToolExecutor;
  approve: ToolApprover;
  /** Most model answers of an agent step's tool run (default: the loop's). */
  maxSteps?: number;
  onEvent?: (event: ToolCallEvent) => void;
  /** A tool result node was stored (file checkpoints). */
  onResultStored?: (node: ConversationNode) => Promise<void> | void;
  /** The step is over (record what is left, dispose the executor). */
  done?: () => Promise<void> | void;
}

/** Gives the tools named by a step, or `undefined` when none of them is available. */
export type FlowToolProvider = (names: readonly string[]) => Promise<FlowToolRun | undefined> | FlowToolRun | undefined;

/** What a step needs besides its state. */
export interface StepContext {
  manager: ConversationManager;
  flow: FlowDefinition;
  promptBuilder?: ConversationPromptBuilder;
  tools?: FlowToolProvider;
  signal?: AbortSignal;
  onChunk?: (chunk: LLMStreamChunk) => void;
  /** Retries of an `output` answer that fails its schema (default: the manager's). */
  retries?: number;
  /** The run's model and options; a state's own `model` wins. */
  configOverrides?: CompleteOptions['configOverrides'];
  /** The window every request is held to. */
  window?: CompleteOptions['window'];
  /** The marker of this step's nodes (without memory). */
  marker: FlowNodeInfo;
}

/** What a step left: the memory after it, and its final text (the finish step's answer). */
export interface StepOutcome {
  memory: Record<string, unknown>;
  text: string;
  stopped: boolean;
}

/** The values templates of a flow see: the memory, plus `flow_memory` (as JSON), `flow_state`, `flow_step`. */
export function templateParams(memory: Record<string, unknown>, marker: FlowNodeInfo, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...memory, flow_memory: JSON.stringify(memory, null, 2), flow_state: marker.state, flow_step: marker.step, ...extra };
}

function needBuilder(ctx: StepContext): ConversationPromptBuilder {
  if (!ctx.promptBuilder) throw new FlowError(`Flow "${ctx.flow.name}" cannot render its templates: the conversation has no prompt builder (open it with the prompt library).`);
  return ctx.promptBuilder;
}

/** Renders a template of the flow (system prompts, the finish answer, tool arguments) to text. */
export async function renderFlowTemplate(ctx: StepContext, template: FlowTemplate, kind: 'system' | 'user', params: Record<string, unknown>): Promise<{ text: string; prompt?: PromptRef }> {
  const builder = needBuilder(ctx);
  const options = { params, includeRag: false };
  const result =
    'prompt' in template
      ? kind === 'system'
        ? await builder.renderSystemPrompt(template.prompt, options)
        : await builder.renderUserPrompt(template.prompt, options)
      : kind === 'system'
        ? await builder.renderInlineSystemPrompt(template.inline, options)
        : await builder.renderInlineUserPrompt(template.inline, options);
  return { text: result.content, ...(result.prompt ? { prompt: result.prompt } : {}) };
}

/** Adds the step's user message (marked with the memory it starts from). */
export async function addFlowMessage(ctx: StepContext, template: FlowTemplate, params: Record<string, unknown>, memoryIn?: Record<string, unknown>, conductor = false): Promise<ConversationNode> {
  needBuilder(ctx);
  const flow: FlowNodeInfo = { ...ctx.marker, ...(memoryIn ? { memoryIn } : {}), ...(conductor ? { conductor } : {}) };
  const source = 'prompt' in template ? { promptName: template.prompt } : { content: template.inline };
  return ctx.manager.addMessage({ role: 'user', ...source, params, includeRag: true, metadata: { flow } });
}

/** Runs an agent step under the current node. */
export async function runAgentStep(ctx: StepContext, state: AgentState, memory: Record<string, unknown>): Promise<StepOutcome> {
  const params = templateParams(memory, ctx.marker);
  await addFlowMessage(ctx, state.user, params, memory);
  const system = state.system ? await renderFlowTemplate(ctx, state.system, 'system', params) : undefined;
  const base: CompleteOptions = {
    metadata: { flow: ctx.marker, ...(system?.prompt ? { systemPrompt: system.prompt } : {}) },
    ...(system ? { systemPromptOverride: system.text } : {}),
    ...(ctx.configOverrides || state.model ? { configOverrides: { ...ctx.configOverrides, ...(state.model ? { model: state.model } : {}) } } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.window ? { window: ctx.window } : {}),
  };
  let text = '';
  if (state.tools.length) {
    const run = await ctx.tools?.(state.tools);
    if (!run) throw new FlowError(`State "${state.name}" of flow "${ctx.flow.name}" needs the tools ${state.tools.join(', ')}, and none of them is available here (are tools turned on in this chat?).`, memory);
    try {
      const result = await ctx.manager.runWithTools({
        ...base,
        executor: run.executor,
        approve: run.approve,
        ...(run.maxSteps ? { maxSteps: run.maxSteps } : {}),
        ...(run.onEvent ? { onEvent: run.onEvent } : {}),
        ...(run.onResultStored ? { onResultStored: run.onResultStored } : {}),
        ...(ctx.onChunk ? { onChunk: (chunk: LLMStreamChunk) => ctx.onChunk?.(chunk) } : {}),
      });
      if (result.stopReason === 'stopped') return { memory, text: '', stopped: true };
      text = result.response?.content ?? '';
    } finally {
      await run.done?.();
    }
  }
  if (state.output) {
    // After a tool run the model has answered in prose: ask for the JSON in a turn of its own.
    if (state.tools.length) await ctx.manager.addMessage({ role: 'user', content: 'Now answer with the JSON object the schema asks for, and nothing else.', raw: true, metadata: { flow: ctx.marker } });
    const response = await ctx.manager.complete({ ...base, outputSchema: state.output, ...(ctx.retries !== undefined ? { retries: ctx.retries } : {}) });
    const parsed = response.parsed;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new FlowError(`State "${state.name}" asked for a JSON object matching its \`output\` schema and got ${parsed === undefined ? 'no parsed value' : 'something else'}.`, memory);
    }
    return { memory: { ...memory, ...(parsed as Record<string, unknown>), [state.result]: response.content }, text: response.content, stopped: false };
  }
  if (!state.tools.length) {
    const stream = ctx.manager.streamComplete(base);
    let next = await stream.next();
    while (!next.done) {
      ctx.onChunk?.(next.value);
      next = await stream.next();
    }
    text = next.value.content;
  }
  return { memory: { ...memory, [state.result]: text }, text, stopped: false };
}

/** Renders a tool step's arguments: strings are templates; one that is exactly `{{key}}` keeps the value's type. */
async function renderArgs(ctx: StepContext, value: unknown, params: Record<string, unknown>): Promise<unknown> {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(value);
    if (whole && Object.hasOwn(params, whole[1])) return structuredClone(params[whole[1]]);
    if (!value.includes('{{')) return value;
    return (await renderFlowTemplate(ctx, { inline: value, offset: { line: 1, column: 0 } }, 'user', params)).text;
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderArgs(ctx, v, params)));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await renderArgs(ctx, v, params);
    return out;
  }
  return value;
}

/**
 * Runs a tool step: the call is stored as an assistant node (no model), put to the host's approval, run,
 * and its result stored as a `tool` node. Its output goes to `memory[result]`, how it ended to `memory[result + 'Status']`
 * (`done`, `failed`), and the tool's own metadata, when it gives some, to `memory[result + 'Info']` (`run_command`: `{command: {exitCode}}`).
 */
export async function runToolStep(ctx: StepContext, state: ToolState, memory: Record<string, unknown>): Promise<StepOutcome> {
  const run = await ctx.tools?.([state.tool]);
  const tool = run?.executor.get(state.tool);
  if (!run || !tool) throw new FlowError(`State "${state.name}" of flow "${ctx.flow.name}" calls the tool "${state.tool}", which is not available here (are tools turned on in this chat?).`, memory);
  try {
    const args = await renderArgs(ctx, state.args, templateParams(memory, ctx.marker));
    const call: ToolCall = { id: `flow_${ctx.marker.runId.slice(0, 8)}_${ctx.marker.step}`, type: 'function', function: { name: state.tool, arguments: JSON.stringify(args) } };
    const answer = await ctx.manager.addMessage({ role: 'assistant', content: '', toolCalls: [call], metadata: { flow: { ...ctx.marker, memoryIn: memory } } });
    const prepared = await run.executor.prepare(call);
    const endedAt = () => new Date().toISOString();
    const store = async (status: 'done' | 'failed' | 'denied' | 'cancelled', content: string, extra: { startedAt?: string; modifiedFiles?: string[]; metadata?: Record<string, unknown> } = {}) => {
      const node = toolResultNode(answer.nodeId, { call, status, content, step: 1, endedAt: endedAt(), ...extra });
      const stored = await ctx.manager.addMessage({ role: 'tool', content, toolCallId: call.id, name: state.tool, metadata: { ...node.metadata, flow: ctx.marker } });
      await run.onResultStored?.(stored);
      return stored;
    };
    if (!prepared.ok) {
      await store('failed', prepared.error);
      throw new FlowError(`State "${state.name}": the arguments of ${state.tool} are not valid: ${prepared.error}`, memory);
    }
    const emit = (status: ToolCallEvent['status'], extra: Partial<ToolCallEvent> = {}) =>
      run.onEvent?.({ step: 1, answerNodeId: answer.nodeId, callId: call.id, toolName: state.tool, status, at: endedAt(), input: prepared.input, ...extra });
    emit('pendingApproval');
    const decision = await run.approve({ call, tool: prepared.tool, input: prepared.input, readOnly: prepared.tool.readOnly, step: 1, answerNodeId: answer.nodeId, signal: ctx.signal ?? new AbortController().signal });
    if (ctx.signal?.aborted) {
      await store('cancelled', 'Not run: the user stopped the flow before this call ran.');
      emit('cancelled');
      return { memory, text: '', stopped: true };
    }
    if (typeof decision === 'object' && decision !== null && 'deny' in decision) {
      await store('denied', `The user denied this call${decision.deny ? `: ${decision.deny}` : '.'}`);
      emit('denied', { message: decision.deny });
      throw new FlowError(`State "${state.name}": the call of ${state.tool} was denied${decision.deny ? ` (${decision.deny})` : ''}, so the flow cannot go on.`, memory);
    }
    let running = prepared;
    if (typeof decision === 'object' && decision !== null && 'allow' in decision) {
      const again = await run.executor.prepare({ ...call, function: { name: state.tool, arguments: JSON.stringify(decision.allow) } });
      if (!again.ok) {
        await store('failed', again.error);
        throw new FlowError(`State "${state.name}": the edited arguments of ${state.tool} are not valid: ${again.error}`, memory);
      }
      running = again;
    }
    const startedAt = endedAt();
    emit('running', { startedAt });
    const outcome = await run.executor.run(running, ctx.signal);
    await store(outcome.status, outcome.content, { startedAt, ...(outcome.modifiedFiles ? { modifiedFiles: outcome.modifiedFiles } : {}), ...(outcome.metadata ? { metadata: outcome.metadata } : {}) });
    emit(outcome.status, { startedAt, endedAt: endedAt() });
    if (outcome.status === 'cancelled') return { memory, text: '', stopped: true };
    const info = outcome.metadata ? { [`${state.result}Info`]: structuredClone(outcome.metadata) } : {};
    return { memory: { ...memory, [state.result]: outcome.content, [`${state.result}Status`]: outcome.status, ...info }, text: outcome.content, stopped: false };
  } finally {
    await run.done?.();
  }
}

/** Renders the finish step's answer and stores it as an assistant node (no model is asked). */
export async function runFinishStep(ctx: StepContext, state: FinishState, memory: Record<string, unknown>): Promise<{ text: string; node: ConversationNode }> {
  const rendered = await renderFlowTemplate(ctx, state.template, 'user', templateParams(memory, ctx.marker));
  const flow: FlowNodeInfo = { ...ctx.marker, memoryIn: memory, memory, next: null };
  const node = await ctx.manager.addMessage({ role: 'assistant', content: rendered.text, metadata: { flow, ...(rendered.prompt ? { prompt: rendered.prompt } : {}) } });
  return { text: rendered.text, node };
}
