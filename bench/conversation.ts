/**
 * What `ConversationManager.addMessage` costs in a conversation of 1k and 10k nodes, with the real
 * file-backed sql.js store: Arbor's incremental write (one node through `applyChange`) against the
 * way the anchor design persists (`saveConversation` of the whole conversation after each message),
 * both measured here in the same run. Also the context window over a long path. Prints Markdown
 * tables and writes them into docs/benchmarks.md under "## Conversation manager".
 *
 * Run: npx tsx bench/conversation.ts
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyContextWindow } from '../src/core/conversation/contextWindow';
import { ConversationManager } from '../src/core/conversation/conversationManager';
import type { ConversationNode, ConversationState, LLMMessage } from '../src/core/types';
import { formatNodeId } from '../src/core/nodeIds';
import { OllamaProvider } from '../src/core/llm/ollama';
import { SqlJsConversationStorage } from '../src/core/storage/sqlJsConversationStorage';
import { median, runBenchmark, writeBenchmarkSection } from './benchReport';

const SIZES = [1000, 10000];
const ADDS = 200;
const BASELINE_SAMPLES: Record<number, number> = { 1000: 30, 10000: 10 };
const BRANCHES = 100;
// Never called: the benchmark adds messages without asking a model.
const llm = new OllamaProvider({ host: 'http://127.0.0.1:9', model: 'unused' });

function text(i: number): string {
  return `message ${i} `.padEnd(200 + ((i * 7919) % 800), 'lorem ipsum dolor sit amet ');
}

/** A conversation of `size` nodes: the root, then `BRANCHES` chains under it. */
function bigConversation(id: string, size: number): ConversationState {
  const t0 = Date.UTC(2026, 0, 1);
  const nodes: ConversationNode[] = [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: 'You help.' }, timestamp: new Date(t0).toISOString(), metadata: {} }];
  const depth = Math.floor((size - 1) / BRANCHES);
  let n = 1;
  for (let b = 0; b < BRANCHES; b++) {
    let parent = '';
    for (let d = 0; d < depth; d++) {
      const nodeId = formatNodeId(n);
      nodes.push({
        nodeId,
        parentId: parent,
        position: n,
        message: { role: d % 2 === 0 ? 'user' : 'assistant', content: text(n) },
        timestamp: new Date(t0 + n * 1000).toISOString(),
        metadata: d % 2 === 1 ? { model: 'm', costUsd: 0.0001, usage: { promptTokens: 100, completionTokens: 50, totalTokens: 150 } } : {},
      });
      parent = nodeId;
      n++;
    }
  }
  return { conversationId: id, nodes, currentNodeId: nodes[nodes.length - 1].nodeId, metadata: {}, nextNodeSeq: n, createdAt: new Date(t0).toISOString(), updatedAt: new Date(t0).toISOString() };
}

function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

async function measure(dir: string, size: number): Promise<{ arbor: number; baseline: number }> {
  const file = path.join(dir, `conv-${size}.db`);
  // Written and folded into the database file first, so the measured writes start from a clean journal.
  const seed = await SqlJsConversationStorage.open(file);
  await seed.saveConversation(bigConversation('big', size));
  await seed.close();
  const storage = await SqlJsConversationStorage.open(file);
  try {
    const manager = await ConversationManager.resume('big', { llm, storage });
    const arbor: number[] = [];
    for (let i = 0; i < ADDS; i++) {
      const start = process.hrtime.bigint();
      await manager.addMessage({ role: i % 2 === 0 ? 'user' : 'assistant', content: text(i) });
      arbor.push(since(start));
    }
    // The baseline: add the same kind of node, then save the whole conversation, as dataknobs does.
    const baseline: number[] = [];
    const state = manager.toState();
    let parent = state.currentNodeId;
    let seq = state.nodes.length + ADDS + 1;
    for (let i = 0; i < BASELINE_SAMPLES[size]; i++) {
      const start = process.hrtime.bigint();
      const nodeId = formatNodeId(seq++);
      state.nodes.push({ nodeId, parentId: parent, position: 0, message: { role: 'user', content: text(i) }, timestamp: new Date().toISOString(), metadata: {} });
      state.currentNodeId = nodeId;
      await storage.saveConversation(state);
      baseline.push(since(start));
      parent = nodeId;
    }
    return { arbor: median(arbor), baseline: median(baseline) };
  } finally {
    await storage.close();
  }
}

function measureWindow(length: number): { full: number; windowed: number } {
  const messages: LLMMessage[] = [{ role: 'system', content: 'You help.' }];
  for (let i = 0; i < length; i++) messages.push({ role: i % 2 === 0 ? 'user' : 'assistant', content: text(i) });
  const runs = (fn: () => void) => {
    const samples: number[] = [];
    for (let r = 0; r < 21; r++) {
      const start = process.hrtime.bigint();
      fn();
      samples.push(since(start));
    }
    return median(samples);
  };
  return {
    full: runs(() => applyContextWindow(messages)),
    windowed: runs(() => applyContextWindow(messages, { maxContextTokens: 8000, maxHistory: 40 })),
  };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-conversation-'));
  try {
    const rows: string[] = [];
    for (const size of SIZES) {
      const r = await measure(dir, size);
      rows.push(`| ${size.toLocaleString('en-US')} | ${fmt(r.arbor)} ms | ${fmt(r.baseline)} ms | ${Math.round(r.baseline / r.arbor)}x |`);
    }
    const windowRows = [1000, 10000].map((n) => {
      const w = measureWindow(n);
      return `| ${n.toLocaleString('en-US')} | ${fmt(w.full)} ms | ${fmt(w.windowed)} ms |`;
    });
    const date = new Date().toISOString().slice(0, 10);
    const section = [
      '## Conversation manager',
      '',
      `What \`ConversationManager.addMessage\` costs in one conversation of 1k and 10k nodes (messages of 200 B to 1 KB, real file-backed sql.js store with its flushed journal), against the anchor design's way of persisting (add the node, then \`saveConversation\` of the whole conversation), measured in one run of \`npx tsx bench/conversation.ts\` on ${date}, Node ${process.version}, 2 shared CPUs. Arbor: ${ADDS} messages per size; baseline: ${BASELINE_SAMPLES[1000]}/${BASELINE_SAMPLES[10000]} saves. Medians.`,
      '',
      '| nodes in the conversation | Arbor `addMessage` (one node written) | baseline (whole conversation saved) | ratio |',
      '| ---: | ---: | ---: | ---: |',
      ...rows,
      '',
      "Almost all of Arbor's cost is the store's flushed journal write (an fsync), whose latency on this shared disk swings between runs by several times; the manager's own work per message (id, tree, event) is well under a millisecond. The baseline grows with the conversation; Arbor's write does not.",
      '',
      'The context window (a pure function run before every model call) over a path of that many messages, with per-message token estimates; "windowed" keeps the newest whole turns under 8,000 tokens and 40 messages:',
      '',
      '| messages on the path | no limits | windowed |',
      '| ---: | ---: | ---: |',
      ...windowRows,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    await writeBenchmarkSection('Conversation manager', section);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
