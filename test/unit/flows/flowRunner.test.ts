import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { flowToolsFrom, resumeFlow, runFlow } from '../../../src/core/flows/flowApi';
import { flowNodeInfo } from '../../../src/core/flows/flowMarks';
import type { FlowEvent } from '../../../src/core/flows/flowTypes';
import { readNodeMetadata } from '../../../src/core/metadataKeys';
import type { ApprovalRequest } from '../../../src/core/tools/toolLoop';
import { RequestTooLargeError } from '../../../src/core/errors';
import { exactTokenCounter } from '../../../src/core/llm/tokenCount';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { collect, editTool, flowWorld, REVIEW_FIX, verdict, type FlowWorld } from './flowFixtures';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let world: FlowWorld | undefined;
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.reset());
afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const finished = (events: FlowEvent[]) => events.filter((e): e is Extract<FlowEvent, { type: 'step-finished' }> => e.type === 'step-finished');

describe('a flow run in the conversation', () => {
  for (const api of ['openai', 'ollama'] as const) {
    it(`follows a rule, then a default, loops once through a tool step's agent and renders the finish (${api})`, async () => {
      world = await flowWorld(server, { 'review-fix': REVIEW_FIX }, api);
      const edits: Array<Record<string, unknown>> = [];
      const approvals: ApprovalRequest[] = [];
      server.enqueue([
        verdict('changes_needed', ['x is wrong']),
        { content: '', toolCalls: [{ name: 'edit_file', arguments: { path: 'src/a.ts', text: 'fixed' } }] },
        { content: 'Fixed x.' },
        verdict('ok'),
      ]);
      const tools = flowToolsFrom([editTool(edits)], (request) => {
        approvals.push(request);
        return 'allow';
      });
      const start = world.manager.currentNodeId;
      const events = await collect(runFlow(world.manager, world.flow('review-fix'), { target: 'src/a.ts' }, { tools }));

      expect(events[0]).toMatchObject({ type: 'flow-started', flow: 'review-fix', state: 'review', step: 1, memory: { round: 0, target: 'src/a.ts' }, resumed: false });
      expect(finished(events).map((e) => [e.state, e.next, e.by])).toEqual([
        ['review', 'fix', 'rule'],
        ['fix', 'review', 'default'],
        ['review', 'summary', 'default'],
        ['summary', null, 'finish'],
      ]);
      const done = events.at(-1);
      expect(done).toMatchObject({ type: 'flow-finished', answer: 'src/a.ts: ok after 1 fix(es). Fixed x.', memory: { round: 1, verdict: 'ok', issues: [] } });
      expect(edits).toEqual([{ path: 'src/a.ts', text: 'fixed' }]);
      expect(approvals.map((a) => a.tool.name)).toEqual(['edit_file']);

      // The reviewer's request carried its library system prompt and its rendered user prompt, and asked for JSON.
      const first = server.chatRequests()[0].body as { messages: Array<{ role: string; content: string }> };
      expect(first.messages[0]).toMatchObject({ role: 'system', content: 'You review src/a.ts strictly.' });
      expect(first.messages.at(-1)).toMatchObject({ role: 'user', content: 'Review src/a.ts.' });
      // The fixer offered its tool; the second review saw the fix notes.
      expect(JSON.stringify(server.chatRequests()[1].body)).toContain('edit_file');
      expect((server.chatRequests()[3].body as { messages: Array<{ content: string }> }).messages.at(-1)?.content).toBe('Review src/a.ts. Fixed since: Fixed x.');

      // Every node the flow wrote is marked with the run; each step's last node holds the memory after it.
      const path = world.manager.getPathIds();
      const written = path.slice(path.indexOf(start) + 1).map((id) => world!.manager.getNode(id));
      const marks = written.map((n) => flowNodeInfo(n));
      expect(marks.every((m) => m?.runId === marks[0]?.runId && m?.name === 'review-fix' && m?.version === world!.flow('review-fix').sha256)).toBe(true);
      expect(written.map((n) => `${n.message.role}:${flowNodeInfo(n)?.step}`)).toEqual(['user:1', 'assistant:1', 'user:2', 'assistant:2', 'tool:2', 'assistant:2', 'user:3', 'assistant:3', 'assistant:4']);
      const toolNode = written.find((n) => n.message.role === 'tool')!;
      expect(readNodeMetadata(toolNode.metadata, 'toolResult')?.status).toBe('done');
      const closing = written.filter((n) => flowNodeInfo(n)?.memory);
      expect(closing.map((n) => [flowNodeInfo(n)?.state, flowNodeInfo(n)?.next])).toEqual([
        ['review', 'fix'],
        ['fix', 'review'],
        ['review', 'summary'],
        ['summary', null],
      ]);
      expect(flowNodeInfo(closing[1])?.memory).toMatchObject({ round: 1, fixNotes: 'Fixed x.' });
      expect(flowNodeInfo(written[2])?.memoryIn).toMatchObject({ round: 0, verdict: 'changes_needed', issues: ['x is wrong'] });
      expect(written.at(-1)?.message.content).toBe('src/a.ts: ok after 1 fix(es). Fixed x.');
    });
  }

  it("asks with the run's model and options (the chat's), and a state's own model wins", async () => {
    const flow = REVIEW_FIX.replace('    userTemplate: "Fix these:', '    model: state-model\n    userTemplate: "Fix these:');
    world = await flowWorld(server, { 'review-fix': flow }, 'openai');
    server.enqueue([verdict('changes_needed', ['x']), { content: 'Fixed.' }, verdict('ok')]);
    const tools = flowToolsFrom([editTool([])], () => 'allow');
    await collect(runFlow(world.manager, world.flow('review-fix'), { target: 'src/a.ts' }, { tools, configOverrides: { model: 'chat-model', temperature: 0.25 } }));
    const sent = server.chatRequests().map((r) => r.body as { model: string; temperature?: number });
    expect(sent.map((b) => b.model)).toEqual(['chat-model', 'state-model', 'chat-model']);
    expect(sent.map((b) => b.temperature)).toEqual([0.25, 0.25, 0.25]);
  });

  it('asks the conductor when no rule holds, and only accepts one of the allowed states', async () => {
    world = await flowWorld(server, {
      routed: `start: a
conductor: true
states:
  a:
    type: agent
    userTemplate: "Say hello."
    result: greeting
    choices: [b, c]
    next:
      - when: "greeting == 'never'"
        to: b
  b: {type: finish, template: "went to b"}
  c: {type: finish, template: "went to c after {{greeting}}"}
`,
    });
    // The conductor first names a state it may not pick: the answer fails its schema and is asked again.
    server.enqueue([{ content: 'hello' }, { content: '{"next": "a"}' }, { content: '{"next": "c", "reason": "the greeting is done"}' }]);
    const events = await collect(runFlow(world.manager, world.flow('routed')));
    expect(finished(events).map((e) => [e.state, e.next, e.by])).toEqual([
      ['a', 'c', 'conductor'],
      ['c', null, 'finish'],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'went to c after hello' });
    expect(server.chatRequests()).toHaveLength(3);
    expect(JSON.stringify(server.chatRequests()[2].body)).toContain('$.next: must be one of \\"b\\", \\"c\\"');
    const asked = server.chatRequests()[1].body as { messages: Array<{ content: string }>; response_format?: { json_schema?: { schema?: unknown } } };
    expect(asked.response_format?.json_schema?.schema).toMatchObject({ properties: { next: { enum: ['b', 'c'] } }, required: ['next'] });
    expect(asked.messages.at(-1)?.content).toContain('Pick the next state, one of: b, c.');
    const conductorNodes = world.manager.getCurrentNodes().filter((n) => flowNodeInfo(n)?.conductor);
    // The conductor's question and both its answers (the correction turn between them is the structured call's own).
    expect(conductorNodes.map((n) => n.message.role)).toEqual(['user', 'assistant', 'assistant']);
    // Every node of the step, the correction turn too, is marked with the flow.
    const stepNodes = world.manager.getCurrentNodes().filter((n) => flowNodeInfo(n)?.step === 1);
    expect(stepNodes.map((n) => n.message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  });

  it('fails after maxSteps with its memory in the error', async () => {
    world = await flowWorld(server, {
      loop: `start: a
maxSteps: 3
memory: {count: 0}
states:
  a:
    type: agent
    userTemplate: "Again ({{count}})."
    set: {count: "count + 1"}
    next: a
`,
    });
    server.enqueue([{ content: 'one' }, { content: 'two' }, { content: 'three' }]);
    const events = await collect(runFlow(world.manager, world.flow('loop')));
    const failed = events.at(-1) as Extract<FlowEvent, { type: 'flow-failed' }>;
    expect(failed.type).toBe('flow-failed');
    expect(failed.memory).toMatchObject({ count: 3, result: 'three' });
    expect(failed.error.message).toContain('stopped after 3 steps (maxSteps)');
    expect(failed.error.message).toContain('"count": 3');
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('holds every request of the run to its window: a step that would not fit fails unsent, one that fits goes', async () => {
    const flows = {
      long: `start: a
inputs: { text: { required: true } }
states:
  a:
    type: agent
    userTemplate: "Read this: {{text}}"
    next: done
  done:
    type: finish
    template: "{{result}}"
`,
    };
    world = await flowWorld(server, flows);
    const counter = await exactTokenCounter('o200k_base');
    const text = 'the discount floor applies to every cart '.repeat(200);
    const small = { maxPromptTokens: 500, counter, model: 'arbor-test-model' };
    const refused = await collect(runFlow(world.manager, world.flow('long'), { text }, { window: small }));
    const failed = refused.at(-1) as Extract<FlowEvent, { type: 'flow-failed' }>;
    expect(failed.type).toBe('flow-failed');
    expect(failed.error).toBeInstanceOf(RequestTooLargeError);
    expect(server.chatRequests()).toHaveLength(0);

    // In a conversation of its own: the refused step's message stays in the first one, as every message does.
    await world.dispose();
    world = await flowWorld(server, flows);
    server.enqueue([{ content: 'read' }]);
    const sent = await collect(runFlow(world.manager, world.flow('long'), { text: 'short' }, { window: small }));
    expect(sent.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'read' });
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('refuses a rule that reaches outside its memory at run time, naming the expression', async () => {
    world = await flowWorld(server, {
      reach: `start: a
states:
  a:
    type: agent
    userTemplate: "Hi"
    next:
      - when: "result.length > 3"
        to: b
      - to: b
  b: {type: finish, template: done}
`,
    });
    server.enqueue([{ content: 'a long answer' }]);
    const events = await collect(runFlow(world.manager, world.flow('reach')));
    const failed = events.at(-1) as Extract<FlowEvent, { type: 'flow-failed' }>;
    expect(failed).toMatchObject({ type: 'flow-failed', state: 'a', step: 1, memory: { result: 'a long answer' } });
    expect(failed.error.message).toMatch(/^Expression "result.length > 3" is refused: it reads "length" of a string/);
  });

  it('runs a tool step without a model: the call and its result are nodes, the result and its metadata go to memory', async () => {
    world = await flowWorld(server, {
      tests: `inputs:
  command: {default: npm test}
  timeout: {default: 60}
start: run
states:
  run:
    type: tool
    tool: run_tests
    args: {command: "{{command}} --reporter=dot", timeoutSeconds: "{{timeout}}"}
    result: output
    next:
      - when: "outputInfo.command.exitCode == 0"
        to: passed
      - to: explain
  explain:
    type: agent
    userTemplate: "Explain: {{output}}"
    result: explanation
    next: answer
  passed: {type: finish, template: passed}
  answer: {type: finish, template: "{{explanation}}"}
`,
    });
    const inputs: unknown[] = [];
    const runTests = {
      name: 'run_tests',
      description: 'Runs the tests.',
      inputSchema: { type: 'object', properties: { command: { type: 'string' }, timeoutSeconds: { type: 'integer' } }, required: ['command'] },
      readOnly: false,
      run: (input: unknown) => {
        inputs.push(input);
        return { content: 'FAIL a.test.ts: expected 2, got 3', metadata: { command: { exitCode: 1 } } };
      },
    };
    server.enqueue([{ content: 'a.ts adds one too many.' }]);
    const tools = flowToolsFrom([runTests], () => 'allow');
    const events = await collect(runFlow(world.manager, world.flow('tests'), {}, { tools }));
    expect(inputs).toEqual([{ command: 'npm test --reporter=dot', timeoutSeconds: 60 }]);
    expect(finished(events).map((e) => [e.state, e.next])).toEqual([
      ['run', 'explain'],
      ['explain', 'answer'],
      ['answer', null],
    ]);
    expect(finished(events)[0].memory).toMatchObject({ output: 'FAIL a.test.ts: expected 2, got 3', outputStatus: 'done', outputInfo: { command: { exitCode: 1 } } });
    expect(events.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'a.ts adds one too many.' });
    // Only the agent step asked the model, and its request carried the call and the result as a tool run does.
    expect(server.chatRequests()).toHaveLength(1);
    const sent = (server.chatRequests()[0].body as { messages: Array<{ role: string; tool_calls?: unknown[]; tool_call_id?: string }> }).messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'user']);
    expect(sent[2].tool_call_id).toBe((sent[1].tool_calls as Array<{ id: string }>)[0].id);
    const toolNode = world.manager.getCurrentNodes().find((n) => n.message.role === 'tool')!;
    expect(readNodeMetadata(toolNode.metadata, 'toolResult')?.status).toBe('done');
    expect(flowNodeInfo(toolNode)).toMatchObject({ state: 'run', step: 1, next: 'explain' });
  });

  it('fails a tool step whose call the user denies, keeping the denial as its result', async () => {
    world = await flowWorld(server, { t: `start: run\nstates:\n  run:\n    type: tool\n    tool: run_tests\n    next: done\n  done: {type: finish, template: ok}\n` });
    const tool = { name: 'run_tests', description: 'Runs the tests.', inputSchema: { type: 'object' }, readOnly: false, run: () => 'ran' };
    const events = await collect(runFlow(world.manager, world.flow('t'), {}, { tools: flowToolsFrom([tool], () => ({ deny: 'not now' })) }));
    expect(events.at(-1)).toMatchObject({ type: 'flow-failed', state: 'run' });
    expect((events.at(-1) as { error: Error }).error.message).toContain('was denied (not now)');
    expect(world.manager.getNode(world.manager.currentNodeId)).toMatchObject({ message: { role: 'tool' }, metadata: { toolResult: { status: 'denied' } } });
  });
});

describe('stopping, resuming and re-running a flow', () => {
  it('Stop mid-step ends the flow and keeps what was stored', async () => {
    world = await flowWorld(server, { 'review-fix': REVIEW_FIX });
    server.enqueue([verdict('changes_needed', ['x']), { content: 'Fixing it now and more words', hangAfterTokens: 2 }]);
    const stop = new AbortController();
    const tools = flowToolsFrom([editTool([])], () => 'allow');
    const events = await collect(runFlow(world.manager, world.flow('review-fix'), { target: 'a.ts' }, { tools, signal: stop.signal, onChunk: () => stop.abort() }));
    expect(events.at(-1)).toMatchObject({ type: 'flow-stopped', state: 'fix', step: 2, memory: { verdict: 'changes_needed' } });
    expect(finished(events).map((e) => e.state)).toEqual(['review']);
    const last = world.manager.getNode(world.manager.currentNodeId);
    expect(last.message.role).toBe('assistant');
    expect(last.metadata.interrupted).toBe(true);
    expect(flowNodeInfo(last)).toMatchObject({ state: 'fix', step: 2 });
    expect(flowNodeInfo(last)?.memory).toBeUndefined();
  });

  it('after a kill mid-flow, a fresh manager over the same store continues from the last completed step', async () => {
    world = await flowWorld(server, { 'review-fix': REVIEW_FIX });
    server.enqueue([verdict('changes_needed', ['x']), { content: 'Half a fix', hangAfterTokens: 1 }]);
    const stop = new AbortController();
    const tools = flowToolsFrom([editTool([])], () => 'allow');
    await collect(runFlow(world.manager, world.flow('review-fix'), { target: 'a.ts' }, { tools, signal: stop.signal, onChunk: () => stop.abort() }));
    const halfStep = world.manager.getCurrentNodes().find((n) => flowNodeInfo(n)?.step === 2 && n.message.role === 'user')!;
    const reviewEnd = world.manager.getCurrentNodes().find((n) => flowNodeInfo(n)?.step === 1 && flowNodeInfo(n)?.memory)!;

    const manager = await world.reopen();
    server.enqueue([{ content: 'Fixed x.' }, verdict('ok')]);
    const events = await collect(resumeFlow(manager, world.flow('review-fix'), undefined, { tools }));
    expect(events[0]).toMatchObject({ type: 'flow-started', resumed: true, state: 'fix', step: 2, memory: { verdict: 'changes_needed', round: 0 }, versionChanged: false });
    expect(events.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'a.ts: ok after 1 fix(es). Fixed x.' });
    // The step that was cut is left on its own branch; the new one is its sibling under the completed review.
    const newFix = manager.getCurrentNodes().find((n) => flowNodeInfo(n)?.step === 2 && n.message.role === 'user')!;
    expect(newFix.nodeId).not.toBe(halfStep.nodeId);
    expect(newFix.parentId).toBe(reviewEnd.nodeId);
    expect(manager.getChildren(reviewEnd.nodeId).map((n) => n.nodeId).sort()).toEqual([halfStep.nodeId, newFix.nodeId].sort());
    const runIds = new Set(manager.getCurrentNodes().map((n) => flowNodeInfo(n)?.runId).filter(Boolean));
    expect(runIds.size).toBe(1);

    // A finished run says so instead of running again.
    const again = await collect(resumeFlow(manager, world.flow('review-fix'), undefined, { tools }));
    expect(again).toEqual([expect.objectContaining({ type: 'flow-failed' })]);
    expect((again[0] as { error: Error }).error.message).toContain('already finished on this branch');
  });

  it('after a kill between steps, resumes right below the last completed step', async () => {
    world = await flowWorld(server, { 'review-fix': REVIEW_FIX });
    server.enqueue([verdict('ok')]);
    // The process dies as soon as the first step is stored: nothing of the next step exists.
    for await (const e of runFlow(world.manager, world.flow('review-fix'), { target: 'a.ts' })) if (e.type === 'step-finished') break;
    const manager = await world.reopen();
    const end = manager.currentNodeId;
    const events = await collect(resumeFlow(manager, world.flow('review-fix')));
    expect(events[0]).toMatchObject({ type: 'flow-started', resumed: true, state: 'summary', step: 2 });
    expect(events.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'a.ts: ok after 0 fix(es). ' });
    expect(manager.getNode(manager.currentNodeId).parentId).toBe(end);
  });

  it('with no flow on the branch, says so', async () => {
    world = await flowWorld(server, { 'review-fix': REVIEW_FIX });
    const events = await collect(resumeFlow(world.manager, world.flow('review-fix')));
    expect(events).toEqual([expect.objectContaining({ type: 'flow-failed' })]);
    expect((events[0] as { error: Error }).error.message).toBe('There is no flow run on the current branch to resume.');
  });

  it('Branch from Here on a middle step re-runs that step on a new branch with the memory it started from', async () => {
    world = await flowWorld(server, { 'review-fix': REVIEW_FIX });
    const tools = flowToolsFrom([editTool([])], () => 'allow');
    server.enqueue([verdict('changes_needed', ['x']), { content: 'Fixed x.' }, verdict('ok')]);
    await collect(runFlow(world.manager, world.flow('review-fix'), { target: 'a.ts' }, { tools }));
    const nodes = world.manager.getCurrentNodes();
    const fixAnswer = nodes.find((n) => flowNodeInfo(n)?.state === 'fix' && n.message.role === 'assistant')!;
    const fixQuestion = nodes.find((n) => flowNodeInfo(n)?.state === 'fix' && n.message.role === 'user')!;
    const oldLeaf = world.manager.currentNodeId;

    server.enqueue([{ content: 'Fixed x differently.' }, verdict('changes_needed', ['y']), { content: 'Fixed y.' }, verdict('ok')]);
    const events = await collect(resumeFlow(world.manager, world.flow('review-fix'), fixAnswer.nodeId, { tools }));
    expect(events[0]).toMatchObject({ type: 'flow-started', state: 'fix', step: 2, resumed: true, memory: flowNodeInfo(fixQuestion)?.memoryIn });
    expect(finished(events).map((e) => e.state)).toEqual(['fix', 'review', 'fix', 'review', 'summary']);
    expect(events.at(-1)).toMatchObject({ type: 'flow-finished', answer: 'a.ts: ok after 2 fix(es). Fixed y.' });
    // The re-run step is a sibling of the old one; the old branch is untouched.
    const newQuestion = world.manager.getCurrentNodes().find((n) => flowNodeInfo(n)?.state === 'fix' && n.message.role === 'user')!;
    expect(newQuestion.nodeId).not.toBe(fixQuestion.nodeId);
    expect(newQuestion.parentId).toBe(fixQuestion.parentId);
    expect(world.manager.hasNode(oldLeaf)).toBe(true);
    expect(world.manager.isSelfOrAncestor(fixQuestion.nodeId, oldLeaf)).toBe(true);
    // The re-run's request held the step's question as rendered from the memory it started from.
    expect((server.chatRequests()[3].body as { messages: Array<{ content: string }> }).messages.at(-1)?.content).toBe('Fix these: x; ');
  });
});
