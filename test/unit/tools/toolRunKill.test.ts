/**
 * A window killed (SIGKILL) while its tools run: the conversation it leaves resumes with a valid path.
 * A child process runs a three-step tool run against the fake model server (both wire formats) and is
 * killed at a random moment while one of its tools runs; the test then opens the store, repairs the
 * path and continues the conversation, checking the tree and the request the model receives.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, OllamaProvider, OpenAIProvider, readNodeMetadata, SqlJsConversationStorage, ToolExecutor, type LLMProvider } from '../../../src/core/index';
import { TOOL_RESULT_TEXTS } from '../../../src/core/tools/toolResults';
import { FakeLlmServer, type FakeReply } from '../../fixtures/fakeLlmServer';
import { startTsxChild } from '../../fixtures/lineChild';
import { pathProblems, wireProblems } from '../../fixtures/toolPaths';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/toolRunWriter.ts');
const TOOL_MS = 300;

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-tool-kill-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Three steps: two reads side by side and a write, then a write and a read, then the answer. */
const RUN: FakeReply[] = [
  { content: 'Reading first.', toolCalls: [{ id: 'r1', name: 'slow_read', arguments: { n: 1 } }, { id: 'r2', name: 'slow_read', arguments: { n: 2 } }, { id: 'w1', name: 'write_note', arguments: { n: 3 } }] },
  { content: '', toolCalls: [{ id: 'w2', name: 'write_note', arguments: { n: 4 } }, { id: 'r3', name: 'slow_read', arguments: { n: 5 } }] },
  { content: 'All read and noted.' },
];
const CALLS = ['r1', 'r2', 'w1', 'w2', 'r3'];

/** Runs the writer until it has started `killAtCall` and `delayMs` more passed, then kills it; returns what it printed. */
async function runAndKill(file: string, api: 'openai' | 'ollama', killAtCall: string, delayMs: number): Promise<string[]> {
  const writer = startTsxChild(WRITER, [file, 'killed', api, server.url, String(TOOL_MS)], ROOT);
  await writer.waitForLine((line) => line === `RUNNING ${killAtCall}`);
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  writer.child.kill('SIGKILL');
  await writer.exited;
  return writer.lines;
}

function provider(api: 'openai' | 'ollama'): LLMProvider {
  return api === 'openai'
    ? new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 })
    : new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
}

describe('a tool run killed mid-step', () => {
  it('leaves a conversation that resumes with a valid path, in both wire formats', async () => {
    const rounds = [
      { api: 'openai' as const, at: 'r2' },
      { api: 'ollama' as const, at: 'w1' },
      { api: 'openai' as const, at: CALLS[3 + Math.floor(Math.random() * 2)] },
      { api: 'ollama' as const, at: CALLS[Math.floor(Math.random() * CALLS.length)] },
    ];
    for (const [i, round] of rounds.entries()) {
      const file = path.join(dir, `round-${i}.db`);
      server.reset();
      server.enqueue(RUN);
      const printed = await runAndKill(file, round.api, round.at, Math.random() * (TOOL_MS - 50));
      expect(printed.some((line) => line.startsWith('DONE'))).toBe(false);

      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      const manager = await ConversationManager.resume('killed', { llm: provider(round.api), storage });
      // What the kill left: every node the child said it stored is there, and the open calls are at the end.
      const stored = new Set(manager.getAllNodes().map((n) => n.nodeId));
      for (const line of printed.filter((l) => l.startsWith('ADDED '))) expect(stored.has(line.slice(6))).toBe(true);
      const before = manager.getCurrentNodes();
      const open = before.flatMap((n) => n.message.toolCalls ?? []).filter((c) => !before.some((n) => n.message.toolCallId === c.id));
      expect(open.map((c) => c.id)).toContain(round.at);

      const repaired = await manager.repairToolCalls();
      expect(repaired.map((n) => n.message.toolCallId)).toEqual(open.map((c) => c.id));
      for (const node of repaired) {
        expect(node.message.content).toBe(TOOL_RESULT_TEXTS.interrupted);
        expect(readNodeMetadata(node.metadata, 'toolResult')?.status).toBe('interrupted');
      }
      expect(pathProblems(manager.getCurrentNodes())).toEqual([]);

      // The next request is valid for the provider and the conversation goes on.
      server.reset();
      server.enqueue({ content: 'Picking up where we stopped.' });
      const executor = new ToolExecutor([]);
      const result = await manager.runWithTools({ executor, approve: () => 'allow' });
      expect(result.stopReason).toBe('answer');
      expect(wireProblems(round.api, server.chatRequests().at(-1)?.body.messages)).toEqual([]);
      expect(manager.getNode(manager.currentNodeId).message.content).toBe('Picking up where we stopped.');
      expect(pathProblems(manager.getCurrentNodes())).toEqual([]);
      await storage.close();
    }
  }, 120_000);
});
