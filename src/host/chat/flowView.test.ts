import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFlows, type ConversationNode, type FlowDefinition, type FlowNodeInfo, type Role } from '../../core/index';
import { flowInputs, flowMarkView, flowPanelView, flowRowText, flowRunOnPath, flowStateViews, flowSummaries, trackFlowEvent } from './flowView';

const PROMPTS = path.resolve(__dirname, '../../../prompts');

async function sample(name: string): Promise<FlowDefinition> {
  const { flows } = await loadFlows(PROMPTS);
  const flow = flows.find((f) => f.name === name);
  if (!flow) throw new Error(`the repository's prompts/flows/ has no ${name}`);
  return flow;
}

/** Nodes as dot paths ('0.0' is the child of '0'), each with an optional flow marker. */
function node(nodeId: string, role: Role, flow?: Partial<FlowNodeInfo>): ConversationNode {
  const dot = nodeId.lastIndexOf('.');
  const parentId = nodeId === '' ? null : dot < 0 ? '' : nodeId.slice(0, dot);
  const position = nodeId === '' ? 0 : Number(nodeId.slice(dot + 1));
  const metadata = flow ? { flow: { name: 'review-fix', version: 'v1', runId: 'r1', state: 'review', step: 1, ...flow } } : {};
  return { nodeId, parentId, position, message: { role, content: `${role} ${nodeId}` }, timestamp: '2026-01-01T00:00:00.000Z', metadata };
}

describe('flowSummaries', () => {
  it('offers each flow as a `/` entry of kind flow with its inputs as the form (defaults as text)', async () => {
    const [summary] = flowSummaries([await sample('review-fix')]);
    expect(summary).toMatchObject({ name: 'review-fix', kind: 'flow', source: 'flow' });
    expect(summary.description).toMatch(/^Review code, fix/);
    expect(summary.params).toEqual([
      { name: 'target', required: true, description: expect.stringContaining('What to review') },
      { name: 'focus', required: false, default: 'correctness, error handling and tests', description: expect.any(String) },
    ]);
  });
});

describe('flowInputs', () => {
  it('leaves empty fields to their defaults and keeps text as text', async () => {
    expect(flowInputs(await sample('review-fix'), { target: 'src/', focus: '  ' })).toEqual({ target: 'src/' });
  });

  it('reads a field whose default is not text as JSON, and says so when it is not JSON', async () => {
    const flow = await sample('review-fix');
    const withNumber: FlowDefinition = { ...flow, inputs: [...flow.inputs, { name: 'rounds', default: 3 }] };
    expect(flowInputs(withNumber, { rounds: '2' })).toEqual({ rounds: 2 });
    expect(() => flowInputs(withNumber, { rounds: 'two' })).toThrow(/"rounds".*takes JSON.*"two" is not JSON/);
  });
});

describe('flowRunOnPath', () => {
  it('is undefined on a path no flow wrote', () => {
    expect(flowRunOnPath([node('', 'system'), node('0', 'user'), node('0.0', 'assistant')])).toBeUndefined();
  });

  it('is unfinished at the state the last completed step chose, with the memory after it', () => {
    const nodes = [
      node('', 'system'),
      node('0', 'user', { memoryIn: { round: 0 } }),
      node('0.0', 'assistant', { memory: { round: 0, verdict: 'changes_needed' }, next: 'fix' }),
      node('0.0.0', 'user', { state: 'fix', step: 2, memoryIn: { round: 0, verdict: 'changes_needed' } }),
    ];
    expect(flowRunOnPath(nodes.slice(0, 3))).toEqual({ flow: 'review-fix', runId: 'r1', status: 'unfinished', state: 'fix', step: 2, memory: { round: 0, verdict: 'changes_needed' } });
    // Cut inside step 2: it resumes there, from the memory step 1 left.
    expect(flowRunOnPath(nodes)).toMatchObject({ status: 'unfinished', state: 'fix', step: 2, memory: { verdict: 'changes_needed' } });
  });

  it('is finished after a finish step, and reads only the newest run on the path', () => {
    const nodes = [
      node('', 'system'),
      node('0', 'assistant', { runId: 'old', state: 'summary', step: 1, memory: { a: 1 }, next: null }),
      node('0.0', 'user', { runId: 'r2', memoryIn: { b: 1 } }),
      node('0.0.0', 'assistant', { runId: 'r2', state: 'summary', step: 2, memory: { b: 2 }, next: null }),
    ];
    expect(flowRunOnPath(nodes)).toEqual({ flow: 'review-fix', runId: 'r2', status: 'finished', step: 2, memory: { b: 2 } });
  });
});

describe('trackFlowEvent', () => {
  it('follows a run from its start through a step to a stop, and a failure keeps the error and the memory', () => {
    let track = trackFlowEvent(undefined, { type: 'flow-started', flow: 'review-fix', version: 'v', runId: 'r', state: 'review', step: 1, memory: { round: 0 }, resumed: false, versionChanged: false });
    track = trackFlowEvent(track, { type: 'step-finished', state: 'review', step: 1, memory: { round: 0, verdict: 'changes_needed' }, next: 'fix', nodeId: 'n', by: 'rule' });
    expect(track).toMatchObject({ status: 'running', state: 'fix', step: 2, memory: { verdict: 'changes_needed' } });
    expect(trackFlowEvent(track, { type: 'flow-stopped', state: 'fix', step: 2, memory: { round: 0 } })).toMatchObject({ status: 'stopped', state: 'fix', step: 2 });
    expect(trackFlowEvent(track, { type: 'flow-failed', error: new Error('no rule holds'), state: 'fix', step: 2, memory: { round: 1 } })).toMatchObject({ status: 'failed', error: 'no rule holds', memory: { round: 1 } });
    expect(trackFlowEvent(track, { type: 'flow-finished', answer: 'done', memory: { round: 1 }, nodeId: 'n' })).toMatchObject({ status: 'finished', state: undefined });
  });
});

describe('flowPanelView', () => {
  it('draws every state of the flow with its edges (rules with their expression) and the step limit', async () => {
    const flow = await sample('review-fix');
    const panel = flowPanelView({ flow: 'review-fix', runId: 'r', status: 'running', state: 'fix', step: 2, memory: { round: 0 } }, flow);
    expect(panel.states.map((s) => `${s.name}:${s.type}`)).toEqual(['review:agent', 'fix:agent', 'summary:finish']);
    expect(panel.states[0].edges).toEqual([
      { to: 'fix', kind: 'rule', when: "verdict == 'changes_needed' && round < 3" },
      { to: 'summary', kind: 'default' },
    ]);
    expect(panel).toMatchObject({ status: 'running', state: 'fix', step: 2, maxSteps: 12, start: 'review', memory: { round: 0 } });
    expect(panel.missing).toBeUndefined();
  });

  it('says when the flow file is gone (no diagram, nothing to resume)', () => {
    expect(flowPanelView({ flow: 'gone', runId: 'r', status: 'unfinished', step: 1, memory: {} }, undefined)).toMatchObject({ missing: true, states: [], maxSteps: 0 });
  });

  it('lists the states in the file order', async () => {
    expect(flowStateViews(await sample('explain-failing-test')).length).toBeGreaterThan(1);
  });
});

describe('markers', () => {
  it('marks a flow message with its flow, state and step, and leaves others unmarked', () => {
    expect(flowMarkView(node('0', 'assistant', { state: 'review', step: 3, conductor: true }))).toEqual({ name: 'review-fix', state: 'review', step: 3, runId: 'r1', conductor: true });
    expect(flowMarkView(node('0', 'assistant'))).toBeUndefined();
  });

  it('gives a tree row the marker of its one step, or the flow and its steps', () => {
    expect(flowRowText([node('0', 'user', { step: 3 }), node('0.0', 'assistant', { step: 3 })])).toBe('review-fix · review · step 3');
    expect(flowRowText([node('0', 'user', {}), node('0.0', 'assistant', { state: 'fix', step: 2 }), node('0.0.0', 'assistant', { state: 'summary', step: 4 })])).toBe('review-fix · steps 1–4');
    expect(flowRowText([node('0', 'user')])).toBe('');
  });

});
