/**
 * Flows: multi-step workflows kept in `prompts/flows/<name>.yaml` beside the prompts. A flow is a small
 * state machine over a memory object: agent steps ask the model (with a prompt of the library, tools and
 * an optional JSON Schema for its answer), tool steps call one tool with arguments rendered from memory,
 * a finish step renders the final answer. Every step's messages are nodes of the conversation, marked
 * with `metadata.flow` (`FlowNodeInfo`), so a flow can be read, resumed and re-run from any step.
 */
import type { PromptParam, SourceOffset } from '../libraryFiles/fileTypes';
import type { CompiledExpression } from './flowExpressions';


/** Steps a flow may take when its file sets no `maxSteps`. */
export const DEFAULT_FLOW_MAX_STEPS = 20;

/** A template of a flow: a prompt of the library by name, or inline text with its place in the flow file. */
export type FlowTemplate = { prompt: string; line: number; column: number } | { inline: string; offset: SourceOffset };

/** One rule of a state's `next`: go `to` a state when `when` holds (always, without `when`). */
export interface FlowTransition {
  to: string;
  when?: CompiledExpression;
}

/** What every kind of state has. */
interface StateBase {
  name: string;
  /** Rules in order; the first whose `when` holds wins. */
  next: FlowTransition[];
  /** States the conductor may pick when no rule matches (default: the rules' targets, else every other state). */
  choices?: string[];
  /** Memory updates after the step, each an expression over the memory (`round: "round + 1"`). */
  set: Array<{ key: string; value: CompiledExpression }>;
  /** Where the state is in the flow file. */
  line: number;
  column: number;
}

/** A model step: a user message rendered from memory, answered by the model (with tools, as JSON when `output`). */
export interface AgentState extends StateBase {
  type: 'agent';
  /** System prompt for this step's requests (the chat's own is kept when absent). */
  system?: FlowTemplate;
  user: FlowTemplate;
  /** Names of the tools it may call (none: no tools). */
  tools: string[];
  /** JSON Schema of the answer; its fields are merged into memory. */
  output?: Record<string, unknown>;
  /** Memory key of the answer's text (default `result`). */
  result: string;
  /** Model for this step only. */
  model?: string;
}

/** A step without a model: one tool called with arguments rendered from memory. */
export interface ToolState extends StateBase {
  type: 'tool';
  tool: string;
  /** Argument values; strings are templates over memory (one that is exactly `{{key}}` takes the value as it is). */
  args: Record<string, unknown>;
  /** Memory key of the tool's output text (default `result`). */
  result: string;
}

/** The last step: the final answer rendered from memory. */
export interface FinishState extends StateBase {
  type: 'finish';
  template: FlowTemplate;
}

export type FlowState = AgentState | ToolState | FinishState;

/** How the conductor is asked: a user template (from the library or inline), and optionally a system one. */
export interface FlowConductor {
  system?: FlowTemplate;
  /** Absent: Arbor's own question, listing the state, the memory and the choices. */
  user?: FlowTemplate;
}

/** A loaded flow file. */
export interface FlowDefinition {
  name: string;
  description?: string;
  /** Path relative to the prompts folder, `/` separators (`flows/review-fix.yaml`). */
  path: string;
  /** sha256 of the file's bytes, hex: the flow's version, recorded on every node it writes. */
  sha256: string;
  /** The flow's parameters, in the prompt library's shape (the host shows the same form). */
  inputs: PromptParam[];
  /** Memory the flow starts with, under the inputs. */
  memory: Record<string, unknown>;
  start: string;
  maxSteps: number;
  conductor?: FlowConductor;
  states: Map<string, FlowState>;
}

/** A flow run's progress, as `runFlow` and `resumeFlow` yield it. */
export type FlowEvent =
  | { type: 'flow-started'; flow: string; version: string; runId: string; state: string; step: number; memory: Record<string, unknown>; resumed: boolean; versionChanged: boolean }
  | { type: 'step-started'; state: string; step: number; stateType: FlowState['type'] }
  | { type: 'step-finished'; state: string; step: number; memory: Record<string, unknown>; next: string | null; nodeId: string; by: 'rule' | 'default' | 'conductor' | 'finish' }
  | { type: 'flow-finished'; answer: string; memory: Record<string, unknown>; nodeId: string }
  | { type: 'flow-stopped'; state: string; step: number; memory: Record<string, unknown> }
  | { type: 'flow-failed'; error: Error; state?: string; step?: number; memory: Record<string, unknown> };
