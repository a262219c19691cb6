/**
 * What the chat shows of flows, built from the library's flows and the tree's `metadata.flow` markers:
 * the `/` menu's entries, the inputs a form's text values become, the marker of a message, and the flow
 * panel of the run going on now or of the last run on the path. Pure (no `vscode`), unit tested.
 */
import { flowEdges, flowNodeInfo, type ConversationNode, type FlowDefinition, type FlowEvent, type FlowNodeInfo } from '../../core/index';
import type { FlowMarkView, FlowPanelView, FlowStateView, PromptSummary } from '../../shared/protocol';

/** The flows as the `/` menu offers them: kind and source `flow`, their inputs as the form's fields. */
export function flowSummaries(flows: readonly FlowDefinition[]): PromptSummary[] {
  return flows.map((f) => ({
    name: f.name,
    kind: 'flow' as const,
    source: 'flow',
    description: f.description ?? `flow ${f.path}`,
    params: f.inputs.map((p) => ({
      name: p.name,
      required: !!p.required,
      ...(p.default === undefined ? {} : { default: typeof p.default === 'string' ? p.default : JSON.stringify(p.default) }),
      ...(p.description ? { description: p.description } : {}),
    })),
  }));
}

/**
 * The inputs of a run from the form's text values: empty fields are left out (the flow's default
 * applies); a field whose default is not text (a number, a list) is read as JSON, and must be JSON.
 */
export function flowInputs(flow: FlowDefinition, params: Readonly<Record<string, string>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(params)) {
    if (typeof text !== 'string' || text.trim() === '') continue;
    const param = flow.inputs.find((p) => p.name === name);
    if (param && param.default !== undefined && typeof param.default !== 'string') {
      try {
        out[name] = JSON.parse(text);
      } catch {
        throw new Error(`The field "${name}" of flow "${flow.name}" takes JSON (like its default, ${JSON.stringify(param.default)}); "${text}" is not JSON.`);
      }
    } else out[name] = text;
  }
  return out;
}

/** The marker of a message a flow wrote, or `undefined`. */
export function flowMarkView(node: ConversationNode): FlowMarkView | undefined {
  const info = flowNodeInfo(node);
  if (!info) return undefined;
  return { name: info.name, state: info.state, step: info.step, runId: info.runId, ...(info.conductor ? { conductor: true } : {}) };
}

/** The marker as text: "review-fix · review · step 3" (the tree's rows and the chat say the same). */
export function flowMarkText(mark: Pick<FlowMarkView, 'name' | 'state' | 'step'>): string {
  return `${mark.name} · ${mark.state} · step ${mark.step}`;
}

/** Where a flow run is, as the panel needs it (from the events of a run, or read back from the path). */
export interface FlowRunTrack {
  flow: string;
  runId: string;
  status: FlowPanelView['status'];
  state?: string;
  step: number;
  memory: Record<string, unknown>;
  error?: string;
}

/**
 * The last flow run on a path (`nodes` root→end): finished when its last completed step was a finish,
 * else unfinished, at the state its last completed step chose (or the step it was in when none completed).
 */
export function flowRunOnPath(nodes: readonly ConversationNode[]): FlowRunTrack | undefined {
  let last: FlowNodeInfo | undefined;
  for (let i = nodes.length - 1; i >= 0 && !last; i--) last = flowNodeInfo(nodes[i]);
  if (!last) return undefined;
  const runId = last.runId;
  let done: FlowNodeInfo | undefined;
  let firstIn: Record<string, unknown> | undefined;
  for (const node of nodes) {
    const info = flowNodeInfo(node);
    if (info?.runId !== runId) continue;
    if (info.memory) done = info;
    if (!firstIn && info.memoryIn) firstIn = info.memoryIn;
  }
  if (done && done.next === null) return { flow: last.name, runId, status: 'finished', step: done.step, memory: done.memory ?? {} };
  if (done && done.next && last.step <= done.step) return { flow: last.name, runId, status: 'unfinished', state: done.next, step: done.step + 1, memory: done.memory ?? {} };
  // A step began after the last completed one (or none completed): the run was cut inside it.
  return { flow: last.name, runId, status: 'unfinished', state: last.state, step: last.step, memory: done?.memory ?? last.memoryIn ?? firstIn ?? {} };
}

/** The track after one event of a run (`undefined` before `flow-started`). */
export function trackFlowEvent(track: FlowRunTrack | undefined, event: FlowEvent): FlowRunTrack | undefined {
  switch (event.type) {
    case 'flow-started':
      return { flow: event.flow, runId: event.runId, status: 'running', state: event.state, step: event.step, memory: event.memory };
    case 'step-started':
      return track && { ...track, status: 'running', state: event.state, step: event.step };
    case 'step-finished':
      return track && { ...track, memory: event.memory, ...(event.next === null ? {} : { state: event.next, step: event.step + 1 }) };
    case 'flow-finished':
      return track && { ...track, status: 'finished', state: undefined, memory: event.memory };
    case 'flow-stopped':
      return track && { ...track, status: 'stopped', state: event.state, step: event.step, memory: event.memory };
    case 'flow-failed': {
      const base: FlowRunTrack = track ?? { flow: '', runId: '', status: 'failed', step: event.step ?? 0, memory: {} };
      return { ...base, status: 'failed', ...(event.state !== undefined ? { state: event.state } : {}), ...(event.step !== undefined ? { step: event.step } : {}), memory: event.memory, error: event.error.message };
    }
  }
}

/** The states of a flow with their edges, in the file's order, for the panel's diagram. */
export function flowStateViews(flow: FlowDefinition): FlowStateView[] {
  const edges = flowEdges(flow);
  return [...flow.states.values()].map((s) => ({
    name: s.name,
    type: s.type,
    edges: edges.filter((e) => e.from === s.name).map((e) => ({ to: e.to, kind: e.kind, ...(e.when ? { when: e.when } : {}) })),
  }));
}

/** The panel of a run: its track, drawn over its flow (`undefined`: the file is gone from the library). */
export function flowPanelView(track: FlowRunTrack, flow: FlowDefinition | undefined): FlowPanelView {
  return {
    flow: track.flow,
    ...(flow?.description ? { description: flow.description } : {}),
    runId: track.runId,
    status: track.status,
    ...(track.state !== undefined ? { state: track.state } : {}),
    step: track.step,
    maxSteps: flow?.maxSteps ?? 0,
    states: flow ? flowStateViews(flow) : [],
    start: flow?.start ?? '',
    memory: track.memory,
    ...(track.error ? { error: track.error } : {}),
    ...(flow ? {} : { missing: true }),
  };
}

/**
 * What a row of the Conversations tree adds for the flow messages among its `nodes`: the marker of its one
 * step ("review-fix · review · step 3"), or the flow and its steps ("review-fix · steps 1–4"); '' for none.
 */
export function flowRowText(nodes: readonly ConversationNode[]): string {
  const infos = nodes.map((n) => flowNodeInfo(n)).filter((i): i is FlowNodeInfo => i !== undefined);
  if (infos.length === 0) return '';
  const names = [...new Set(infos.map((i) => i.name))];
  const steps = infos.map((i) => i.step);
  const low = Math.min(...steps);
  const high = Math.max(...steps);
  if (names.length === 1 && low === high) return flowMarkText(infos[0]);
  return `${names.join(', ')} · ${low === high ? `step ${low}` : `steps ${low}–${high}`}`;
}
