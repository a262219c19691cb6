import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, OpenAIProvider, SqlJsConversationStorage } from '../../../core/index';
import type { ErrorView, ToWebview } from '../../../shared/protocol';
import { FakeLlmServer } from '../../../../test/fixtures/fakeLlmServer';
import { SeveralAnswers } from './severalAnswers';
import { answerDocument, severalView, shownAnswer } from './severalView';

/** Ask Several Models and Merge of one chat, on a real store against a local fake model server. */
const server = new FakeLlmServer({ defaultTokenDelayMs: 1, models: ['model-a', 'model-b', 'model-c'] });
let dir: string;
let storage: SqlJsConversationStorage;

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-several-host-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** A chat's runs on a fresh conversation with one question; records every posted message and failure. */
async function chat(question: string) {
  const manager = await ConversationManager.create({ llm: new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'model-a', maxRetries: 0 }), storage });
  const q = await manager.addMessage({ role: 'user', content: question });
  const posted: ToWebview[] = [];
  const failures: Array<[string, ErrorView]> = [];
  let ended = 0;
  const several = new SeveralAnswers({
    manager: async () => manager,
    plan: async (_m, model) => ({ configOverrides: { model } }),
    checkReady: async () => undefined,
    whileBusy: (work) => work(),
    post: (message) => posted.push(message),
    failed: (id, error) => failures.push([id, error]),
    retrying: () => undefined,
    warn: () => undefined,
    ended: async () => {
      ended++;
    },
  });
  return { manager, q, posted, failures, several, ended: () => ended };
}

const of = <T extends ToWebview['type']>(posted: ToWebview[], type: T) => posted.filter((m): m is Extract<ToWebview, { type: T }> => m.type === type);

describe('Ask Several Models', () => {
  it('streams each model into its own column, stores the answers as siblings and shows the last picked', async () => {
    const { manager, q, posted, several, ended } = await chat('Explain recursion');
    await several.ask('r1', q.nodeId, ['model-b', 'model-a']);
    expect(of(posted, 'severalStart')).toEqual([{ type: 'severalStart', requestId: 'r1', parentNodeId: q.nodeId, models: ['model-b', 'model-a'] }]);
    for (const [column, model] of ['model-b', 'model-a'].entries()) {
      const text = of(posted, 'severalDelta').filter((d) => d.column === column).map((d) => d.delta).join('');
      expect(text).toBe(`[${model}] Echo: Explain recursion`);
    }
    expect(of(posted, 'severalColumnDone').map((d) => [d.column, d.error])).toEqual(expect.arrayContaining([[0, undefined], [1, undefined]]));
    expect(posted.at(-1)).toEqual({ type: 'streamDone', requestId: 'r1' });
    expect(ended()).toBe(1);
    const answers = manager.getChildren(q.nodeId);
    expect(answers.map((a) => a.metadata.model).sort()).toEqual(['model-a', 'model-b']);
    // The model picked last (model-a) is shown, with ‹ n/2 ›.
    expect(manager.getNode(manager.currentNodeId).metadata.model).toBe('model-a');
    const view = severalView(answers[0], answers);
    expect(view?.answers.map((a) => a.model)).toEqual(answers.map((a) => a.metadata.model));
    expect(view?.answers.every((a) => a.hasText)).toBe(true);
  });

  it('shows one model failing in its column while the other answers, and says so after', async () => {
    const { manager, q, posted, failures, several } = await chat('Go [[error:model-b]]');
    await several.ask('r2', q.nodeId, ['model-a', 'model-b']);
    const done = of(posted, 'severalColumnDone');
    expect(done.find((d) => d.column === 1)?.error?.message).toMatch(/model-b failed on purpose/);
    expect(done.find((d) => d.column === 0)?.error).toBeUndefined();
    expect(manager.getChildren(q.nodeId).map((a) => a.metadata.model)).toEqual(['model-a']);
    // model-b (picked last) left no answer: model-a's is shown; the run itself did not fail.
    expect(manager.getNode(manager.currentNodeId).metadata.model).toBe('model-a');
    expect(posted.at(-1)).toEqual({ type: 'streamDone', requestId: 'r2' });
    expect(of(posted, 'notice')[0]?.message).toMatch(/^model-b gave no answer: .*failed on purpose/);
    expect(failures).toEqual([]);
  });

  it('leaves the error on the question when no model answered', async () => {
    const { manager, q, posted, failures, several } = await chat('Go [[error]]');
    await several.ask('r3', q.nodeId, ['model-a', 'model-b']);
    expect(manager.getChildren(q.nodeId)).toEqual([]);
    expect(manager.currentNodeId).toBe(q.nodeId);
    const last = posted.at(-1);
    expect(last?.type === 'streamDone' && last.error?.message).toMatch(/failed on purpose/);
    expect(failures.map(([id]) => id)).toEqual([q.nodeId]);
  });

  it('Stop stops every column and keeps what each had written, marked stopped', async () => {
    const { manager, q, posted, several } = await chat('Count [[slow]]');
    const run = several.ask('r4', q.nodeId, ['model-a', 'model-b']);
    // Wait until both columns streamed something, then Stop.
    while (new Set(of(posted, 'severalDelta').map((d) => d.column)).size < 2) await new Promise((r) => setTimeout(r, 10));
    expect(several.running).toBe(true);
    expect(several.stop('r4')).toBe(true);
    await run;
    expect(several.running).toBe(false);
    const answers = manager.getChildren(q.nodeId);
    expect(answers).toHaveLength(2);
    for (const a of answers) {
      expect(a.metadata).toMatchObject({ interrupted: true });
      expect(a.metadata.error).toBeUndefined();
      expect(a.message.content.startsWith(`[${a.metadata.model as string}] 1`)).toBe(true);
      expect(a.message.content.split(' ').length).toBeLessThan(200);
    }
    expect(posted.at(-1)).toEqual({ type: 'streamDone', requestId: 'r4' });
  });

  it('refuses a wrong list of models before asking anything', async () => {
    const { q, several } = await chat('Hi');
    await expect(several.ask('r5', q.nodeId, ['model-a'])).rejects.toThrow(/at least 2/);
    await expect(several.ask('r5', q.nodeId, ['model-a', 'model-a'])).rejects.toThrow(/each model once/);
    await expect(several.ask('r5', q.nodeId, ['a', 'b', 'c', 'd', 'e'])).rejects.toThrow(/at most 4/);
    expect(server.chatRequests()).toHaveLength(0);
  });
});

describe('Merge', () => {
  it('streams the merge like an answer and stores it as a sibling that records the answers it merged', async () => {
    const { manager, q, posted, several } = await chat('Name a sort');
    await several.ask('r1', q.nodeId, ['model-a', 'model-b']);
    const answers = manager.getChildren(q.nodeId);
    posted.length = 0;
    await several.merge({ type: 'mergeAnswers', requestId: 'm1', nodeIds: answers.map((a) => a.nodeId), model: 'model-c' });
    expect(posted[0]).toEqual({ type: 'streamStart', requestId: 'm1', parentNodeId: q.nodeId, model: 'model-c' });
    expect(posted.at(-1)).toEqual({ type: 'streamDone', requestId: 'm1' });
    const merged = manager.getNode(manager.currentNodeId);
    expect(merged.parentId).toBe(q.nodeId);
    expect(merged.metadata).toMatchObject({ model: 'model-c', mergedFrom: answers.map((a) => a.nodeId), severalRun: answers[0].metadata.severalRun });
    const streamed = of(posted, 'streamDelta').map((d) => d.delta).join('');
    expect(streamed).toBe(merged.message.content);
    // The answers in sibling order (whichever model finished first is first), each labelled by its model.
    const models = answers.map((a) => a.metadata.model as string);
    expect(models.slice().sort()).toEqual(['model-a', 'model-b']);
    expect(merged.message.content).toBe(`[model-c] Merged 2 answers (${models.join(', ')}): ${models.map((m) => `[${m}] Echo: Name a sort`).join(' + ')}`);
    const siblings = manager.getChildren(q.nodeId);
    expect(siblings).toHaveLength(3);
    expect(severalView(merged, siblings)).toMatchObject({ mergedFrom: answers.map((a) => a.nodeId) });
    expect(severalView(merged, siblings)?.answers.map((a) => a.merged ?? false)).toEqual([false, false, true]);
    expect(answerDocument(merged)).toBe(`<!-- model-c, merging answers ${answers.map((a) => a.nodeId).join(', ')} -->\n\n${merged.message.content}\n`);
  });

  it('a failed merge ends its stream with the error and stores nothing', async () => {
    const { manager, q, posted, several } = await chat('Name a sort');
    await several.ask('r1', q.nodeId, ['model-a', 'model-b']);
    const answers = manager.getChildren(q.nodeId);
    posted.length = 0;
    server.enqueueError(500, { errorMessage: 'merge broke' });
    await several.merge({ type: 'mergeAnswers', requestId: 'm2', nodeIds: answers.map((a) => a.nodeId), model: 'model-c' });
    const last = posted.at(-1);
    expect(last?.type === 'streamDone' && last.error?.message).toMatch(/merge broke/);
    expect(manager.getChildren(q.nodeId)).toHaveLength(2);
  });
});

describe('which answer a run shows', () => {
  it('is the last picked model, else the first that answered, else none', () => {
    expect(shownAnswer(['a', 'b', 'c'], new Map([['a', '1'], ['b', '2'], ['c', '3']]))).toBe('3');
    expect(shownAnswer(['a', 'b', 'c'], new Map([['b', '2'], ['a', '1']]))).toBe('1');
    expect(shownAnswer(['a', 'b'], new Map())).toBeUndefined();
  });
});
