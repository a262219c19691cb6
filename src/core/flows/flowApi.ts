/**
 * The flow API as free functions over a manager: `runFlow` and `resumeFlow` run a `FlowRunner` in the
 * manager's conversation with its prompt builder (flows sit above the conversation, which knows nothing of
 * them), and `flowToolsFrom`, which gives each step an executor over the tools it names, for callers without a
 * host of their own (tests, scripts).
 */
import type { ConversationManager } from '../conversation/conversationManager';
import type { Tool } from '../tools/tool';
import { ToolExecutor, type ToolExecutorOptions } from '../tools/toolExecutor';
import type { ToolApprover, ToolCallEvent } from '../tools/toolLoop';
import { FlowRunner, type FlowRunOptions } from './flowRunner';
import type { FlowToolProvider } from './flowSteps';
import type { FlowDefinition, FlowEvent } from './flowTypes';

/**
 * Runs `flow` in `manager`'s conversation below its current node, step by step, each step's messages marked
 * with `metadata.flow`; yields its events. Templates render with the manager's prompt builder unless
 * `options.promptBuilder` gives another.
 */
export function runFlow(manager: ConversationManager, flow: FlowDefinition, inputs: Record<string, unknown> = {}, options: FlowRunOptions = {}): AsyncGenerator<FlowEvent> {
  return new FlowRunner(manager, { promptBuilder: manager.promptBuilder, ...options }).run(flow, inputs);
}

/**
 * Goes on with a flow run of `manager`'s conversation: from `fromNodeId` (a node of one of its steps, Branch
 * from Here) that step runs again on a new branch with the memory it started from; without it the run
 * continues after its last completed step on the current path (after a kill). Yields `flow-failed` saying
 * why when it cannot.
 */
export function resumeFlow(manager: ConversationManager, flow: FlowDefinition, fromNodeId?: string, options: FlowRunOptions = {}): AsyncGenerator<FlowEvent> {
  const runner = new FlowRunner(manager, { promptBuilder: manager.promptBuilder, ...options });
  return fromNodeId === undefined ? runner.resume(flow) : runner.rerunFrom(flow, fromNodeId);
}

/**
 * A tool provider over a fixed set of tools: each step gets a new executor holding only the tools it
 * names (disposed when the step ends), with `approve` deciding every call.
 */
export function flowToolsFrom(tools: readonly Tool[], approve: ToolApprover, options: ToolExecutorOptions & { onEvent?: (event: ToolCallEvent) => void } = {}): FlowToolProvider {
  const { onEvent, ...executorOptions } = options;
  return (names) => {
    const wanted = tools.filter((t) => names.includes(t.name));
    if (wanted.length === 0) return undefined;
    const executor = new ToolExecutor(wanted, executorOptions);
    return { executor, approve, ...(onEvent ? { onEvent } : {}), done: () => executor.dispose() };
  };
}
