import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPromptFolder } from '../../../src/core/promptFolder/checkPrompts';
import { PromptFolderLibrary } from '../../../src/core/promptFolder/promptFolderLibrary';
import { flowEdges } from '../../../src/core/flows/flowGraph';
import { tempPrompts, type TempPrompts } from '../prompts/tempPrompts';

const repo = path.resolve(__dirname, '../../..');
let folder: TempPrompts | undefined;
afterEach(async () => {
  await folder?.remove();
  folder = undefined;
});

const GOOD = `name: loop
description: A small loop.
inputs:
  topic: {required: true}
memory: {round: 0}
start: ask
states:
  ask:
    type: agent
    user: question
    next:
      - when: "round < 2"
        to: again
      - to: done
  again:
    type: agent
    userTemplate: "Again about {{topic}}"
    set: {round: "round + 1"}
    next: ask
  done:
    type: finish
    template: "Done with {{topic}} after {{round}} rounds."
`;

describe('flow files in prompts/flows/', () => {
  it('load with the library, with inputs in the prompt parameter shape and the edges of the diagram', async () => {
    folder = await tempPrompts({ 'user/question.md': 'Tell me about {{topic}}.', 'flows/loop.yaml': GOOD });
    const library = await PromptFolderLibrary.open(folder.dir);
    try {
      expect(library.diagnostics()).toEqual([]);
      const flow = library.getFlow('loop');
      expect(flow?.path).toBe('flows/loop.yaml');
      expect(flow?.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(flow?.inputs).toEqual([{ name: 'topic', required: true }]);
      expect(flow?.maxSteps).toBe(20);
      expect(flowEdges(flow!)).toEqual([
        { from: 'ask', to: 'again', kind: 'rule', when: 'round < 2' },
        { from: 'ask', to: 'done', kind: 'default' },
        { from: 'again', to: 'ask', kind: 'default' },
      ]);
    } finally {
      library.dispose();
    }
  });

  it('report each problem at its line and column, as prompt problems are', async () => {
    const bad = `start: nowhere
states:
  ask:
    type: agent
    user: no-such-prompt
    output: {type: object, properties: {v: {type: nonsense}}}
    next:
      - when: "verdict == 'ok' &&"
        to: fix
      - when: "constructor.name == 'Object'"
        to: done
  done:
    type: finish
    template: "{{#if x}}unclosed"
  lonely:
    type: tool
    tool: run_command
    next: done
`;
    folder = await tempPrompts({ 'flows/bad.yaml': bad });
    const report = await checkPromptFolder(folder.dir);
    const lines = report.problems.map((d) => `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`);
    const find = (text: string) => lines.find((l) => l.includes(text));
    expect(find('start state "nowhere"')).toMatch(/^flows\/bad\.yaml:1:8: error/);
    expect(find('no-such-prompt')).toMatch(/^flows\/bad\.yaml:5:11: error: state "ask" names the user prompt "no-such-prompt", which is not in prompts\/user\//);
    expect(find('not a valid JSON Schema')).toMatch(/^flows\/bad\.yaml:6:13: error/);
    // The parser's position inside the quoted expression: the column of the file.
    expect(find('is not valid')).toMatch(/^flows\/bad\.yaml:8:\d+: error: Expression "verdict == 'ok' &&" is not valid/);
    expect(Number(find('is not valid')!.split(':')[2])).toBeGreaterThan(15);
    expect(find('constructor')).toMatch(/^flows\/bad\.yaml:10:\d+: error: Expression "constructor.name == 'Object'" is refused/);
    expect(find('"fix", which is not a state')).toMatch(/^flows\/bad\.yaml:8:\d+: error/);
    expect(find('template syntax error')).toMatch(/^flows\/bad\.yaml:14:\d+: error/);
    expect(report.errors).toBeGreaterThanOrEqual(7);
    expect(report.flows).toBe(0);
  });

  it('say when a state has no way on, a state is never reached, or no finish is', async () => {
    folder = await tempPrompts({ 'flows/stuck.yaml': 'start: a\nstates:\n  a:\n    type: agent\n    userTemplate: hi\n  lonely:\n    type: finish\n    template: bye\n' });
    const report = await checkPromptFolder(folder.dir);
    const lines = report.problems.map((d) => `${d.line}:${d.column}: ${d.severity}: ${d.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^4:5: error: state "a" has no `next` and the flow has no conductor/),
        expect.stringMatching(/^7:5: warning: state "lonely" is never reached from the start state "a"/),
        expect.stringMatching(/warning: no finish state is reached/),
      ]),
    );
  });

  it('the two samples of the repository load and check clean', async () => {
    const report = await checkPromptFolder(path.join(repo, 'prompts'));
    expect(report.problems).toEqual([]);
    expect(report.flows).toBe(2);
    const library = await PromptFolderLibrary.open(path.join(repo, 'prompts'));
    try {
      const review = library.getFlow('review-fix')!;
      expect([...review.states.keys()]).toEqual(['review', 'fix', 'summary']);
      expect(review.states.get('review')).toMatchObject({ type: 'agent', tools: ['read_file', 'list_files', 'grep', 'git_diff'], output: { required: ['verdict', 'issues'] } });
      expect(review.states.get('fix')).toMatchObject({ type: 'agent', tools: ['read_file', 'edit_file', 'create_file'] });
      const explain = library.getFlow('explain-failing-test')!;
      expect(explain.states.get('run')).toMatchObject({ type: 'tool', tool: 'run_command', result: 'output' });
      expect(explain.inputs).toEqual([expect.objectContaining({ name: 'command', default: 'npm test' })]);
    } finally {
      library.dispose();
    }
  });
});
