/**
 * The state graph of a flow: where each state may go (its rules' targets, its conductor choices), the
 * checks on it (unknown states, dead ends, states nothing reaches), and the list the host draws.
 */
import type { FlowDefinition, FlowState } from './flowTypes';

/** A problem of the graph, at a path of the flow file's YAML. */
export interface FlowGraphProblem {
  path: Array<string | number>;
  message: string;
  severity: 'error' | 'warning';
}

/** One edge of the diagram: `from` may go `to`, by a rule (with its expression), by default, or by the conductor. */
export interface FlowEdge {
  from: string;
  to: string;
  kind: 'rule' | 'default' | 'conductor';
  when?: string;
}

/**
 * The states the conductor may pick in `state`: its `choices`, else its rules' targets, else every other
 * state; empty when the flow has no conductor or the state is a finish.
 */
export function conductorChoices(flow: FlowDefinition, state: FlowState): string[] {
  if (!flow.conductor || state.type === 'finish') return [];
  if (state.choices?.length) return [...state.choices];
  const targets = [...new Set(state.next.map((t) => t.to))];
  return targets.length ? targets : [...flow.states.keys()].filter((s) => s !== state.name);
}

/** Every edge of the flow, for the host's state diagram. */
export function flowEdges(flow: FlowDefinition): FlowEdge[] {
  const edges: FlowEdge[] = [];
  for (const state of flow.states.values()) {
    for (const t of state.next) edges.push({ from: state.name, to: t.to, kind: t.when ? 'rule' : 'default', ...(t.when ? { when: t.when.source } : {}) });
    const ruled = new Set(state.next.map((t) => t.to));
    const hasDefault = state.next.some((t) => !t.when);
    if (!hasDefault) for (const c of conductorChoices(flow, state)) if (!ruled.has(c)) edges.push({ from: state.name, to: c, kind: 'conductor' });
  }
  return edges;
}

/** Unknown target states, states that cannot go on, and states unreachable from `start`. */
export function checkFlowGraph(flow: FlowDefinition): FlowGraphProblem[] {
  const problems: FlowGraphProblem[] = [];
  const names = [...flow.states.keys()];
  for (const state of flow.states.values()) {
    const at = ['states', state.name];
    state.next.forEach((t, i) => {
      if (!flow.states.has(t.to)) problems.push({ path: [...at, 'next', i], message: `state "${state.name}" goes to "${t.to}", which is not a state (states: ${names.join(', ')})`, severity: 'error' });
    });
    state.choices?.forEach((c, i) => {
      if (!flow.states.has(c)) problems.push({ path: [...at, 'choices', i], message: `choice "${c}" of state "${state.name}" is not a state (states: ${names.join(', ')})`, severity: 'error' });
    });
    if (state.choices && !flow.conductor) problems.push({ path: [...at, 'choices'], message: '`choices` are for the conductor, and this flow has none: add `conductor: true` or remove them', severity: 'warning' });
    if (state.type !== 'finish' && !flow.conductor && !state.next.some((t) => !t.when)) {
      problems.push({
        path: state.next.length ? [...at, 'next'] : at,
        message: state.next.length
          ? `state "${state.name}" has no rule without \`when\` and the flow has no conductor: when no rule holds the flow fails; add a last rule {to: <state>} or a conductor`
          : `state "${state.name}" has no \`next\` and the flow has no conductor: add \`next\` (or make it a finish state)`,
        severity: state.next.length ? 'warning' : 'error',
      });
    }
  }
  // Without a known start, reachability means nothing (the start is reported on its own).
  if (!flow.states.has(flow.start)) return problems;
  const reached = new Set<string>([flow.start]);
  const queue = [flow.start];
  while (queue.length) {
    const state = flow.states.get(queue.shift() as string);
    if (!state) continue;
    for (const to of [...state.next.map((t) => t.to), ...conductorChoices(flow, state)]) {
      if (!reached.has(to) && flow.states.has(to)) {
        reached.add(to);
        queue.push(to);
      }
    }
  }
  for (const name of names) {
    if (!reached.has(name)) problems.push({ path: ['states', name], message: `state "${name}" is never reached from the start state "${flow.start}"`, severity: 'warning' });
  }
  if (![...reached].some((n) => flow.states.get(n)?.type === 'finish')) {
    problems.push({ path: ['start'], message: 'no finish state is reached from the start: the flow can only end by failing at `maxSteps`', severity: 'warning' });
  }
  return problems;
}
