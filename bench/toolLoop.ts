/**
 * The tool loop's own cost per step, model and tool time excluded: an in-process model that answers at
 * once (scripted calls, no HTTP) and tools that return at once, so what is measured is what
 * `ConversationManager.runWithTools` adds: preparing each request, checking each input against its JSON
 * Schema, approval, events, ordering, and storing the answer and every result. The baseline, in the same
 * process and interleaved, does the same steps by hand with the manager's existing calls (`complete`
 * with the tool definitions, `JSON.parse` of the arguments, the tool's `run`, `addMessage` of each
 * result). Both with an in-memory store and with the real file-backed store (its flushed journal).
 * Writes the "Tool loop" section of docs/benchmarks.md.
 *
 * Run: npm run bench -- toolLoop   (or npx tsx bench/toolLoop.ts)
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationManager } from '../src/core/conversation/conversationManager';
import type { CompletionOptions, LLMProvider } from '../src/core/llm/provider';
import { SqlJsConversationStorage } from '../src/core/storage/sqlJsConversationStorage';
import { defineTool, type Tool } from '../src/core/tools/tool';
import { ToolExecutor } from '../src/core/tools/toolExecutor';
import type { LLMMessage, LLMResponse, LLMStreamChunk, ToolCall } from '../src/core/types';
import { median, runBenchmark, writeBenchmarkSection } from './benchReport';

const STEPS = 10;
const CALLS_PER_STEP = 3;
const RUNS = 25;
const WARMUP = 3;

/** A model that answers at once: `STEPS - 1` answers of `CALLS_PER_STEP` read calls, then a text answer. */
class InstantModel implements LLMProvider {
  readonly name = 'instant';
  readonly model = 'instant-model';
  private answers = 0;
  private calls = 0;

  reset(): void {
    this.answers = 0;
  }

  private next(): LLMResponse {
    const step = ++this.answers;
    if (step >= STEPS) return { content: 'All done.', model: this.model, finishReason: 'stop', usage: { promptTokens: 100, completionTokens: 5, totalTokens: 105 }, metadata: {} };
    const toolCalls: ToolCall[] = Array.from({ length: CALLS_PER_STEP }, (_, i) => ({
      id: `call_${++this.calls}`,
      type: 'function',
      function: { name: i === CALLS_PER_STEP - 1 ? 'list_dir' : 'read_file', arguments: JSON.stringify({ path: `src/file${step}_${i}.ts`, startLine: 1, endLine: 80 }) },
    }));
    return { content: '', model: this.model, finishReason: 'tool_calls', toolCalls, usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 }, metadata: {} };
  }

  async complete(_messages: LLMMessage[], _options?: CompletionOptions): Promise<LLMResponse> {
    return this.next();
  }

  async *stream(_messages: LLMMessage[], _options?: CompletionOptions): AsyncGenerator<LLMStreamChunk> {
    const r = this.next();
    if (r.content) yield { delta: r.content, done: false };
    yield { delta: '', done: true, finishReason: r.finishReason, ...(r.toolCalls ? { toolCalls: r.toolCalls } : {}), ...(r.usage ? { usage: r.usage } : {}), model: r.model, costUsd: 0 };
  }

  async listModels() {
    return [];
  }

  async embed(): Promise<number[][]> {
    return [];
  }
}

const FILE_TEXT = 'export const x = 1;\n'.repeat(40);
const tools: Tool[] = [
  defineTool<{ path: string }>({
    name: 'read_file',
    description: 'Reads lines of a workspace file.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, startLine: { type: 'integer', minimum: 1 }, endLine: { type: 'integer', minimum: 1 } },
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    run: () => FILE_TEXT,
  }),
  defineTool<{ path: string }>({
    name: 'list_dir',
    description: 'Lists a workspace folder.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, startLine: { type: 'integer' }, endLine: { type: 'integer' } }, required: ['path'] },
    readOnly: true,
    run: () => 'a.ts\nb.ts\nc.ts',
  }),
];

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function timed(fn: () => Promise<void>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await fn();
  return { wallMs: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: cpuMs(process.cpuUsage(cpu)) };
}

async function newChat(llm: InstantModel, storage: SqlJsConversationStorage): Promise<ConversationManager> {
  llm.reset();
  const m = await ConversationManager.create({ llm, storage, systemPrompt: 'You help with code.' });
  await m.addMessage({ role: 'user', content: 'Read the files and tell me what they export.' });
  return m;
}

/** One run through `runWithTools` (streamed answers, as the chat does). */
async function loopRun(llm: InstantModel, storage: SqlJsConversationStorage, executor: ToolExecutor): Promise<Sample> {
  const m = await newChat(llm, storage);
  let events = 0;
  const sample = await timed(async () => {
    const result = await m.runWithTools({ executor, approve: () => 'allow', onEvent: () => events++ });
    if (result.steps !== STEPS || result.stopReason !== 'answer') throw new Error(`unexpected run: ${JSON.stringify(result)}`);
  });
  if (events !== (STEPS - 1) * CALLS_PER_STEP * 3) throw new Error(`expected every call to report 3 events, got ${events}`);
  return sample;
}

/** The same steps by hand: the manager's existing calls, no checks, no approval, no events, calls one after another. */
async function manualRun(llm: InstantModel, storage: SqlJsConversationStorage, executor: ToolExecutor): Promise<Sample> {
  const m = await newChat(llm, storage);
  const definitions = executor.definitions();
  const byName = new Map(tools.map((t) => [t.name, t]));
  return timed(async () => {
    for (let step = 1; ; step++) {
      let calls: ToolCall[] | undefined;
      for await (const chunk of m.streamComplete({ tools: definitions })) if (chunk.toolCalls) calls = chunk.toolCalls;
      if (!calls?.length) break;
      for (const call of calls) {
        const output = await byName.get(call.function.name)!.run(JSON.parse(call.function.arguments), undefined as never);
        await m.addMessage({ role: 'tool', content: String(output), toolCallId: call.id, name: call.function.name });
      }
    }
  });
}

function fmt(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

async function measure(storage: SqlJsConversationStorage): Promise<{ loop: Sample; manual: Sample }> {
  const llm = new InstantModel();
  const executor = new ToolExecutor(tools);
  const loop: Sample[] = [];
  const manual: Sample[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    // Interleaved, so load on the shared machine falls on both alike.
    const a = await loopRun(llm, storage, executor);
    const b = await manualRun(llm, storage, executor);
    if (i >= WARMUP) {
      loop.push(a);
      manual.push(b);
    }
  }
  const perStep = (samples: Sample[]): Sample => ({ wallMs: median(samples.map((s) => s.wallMs)) / STEPS, cpuMs: median(samples.map((s) => s.cpuMs)) / STEPS });
  return { loop: perStep(loop), manual: perStep(manual) };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-tools-'));
  try {
    const memory = await SqlJsConversationStorage.open();
    const inMemory = await measure(memory);
    await memory.close();
    const disk = await SqlJsConversationStorage.open(path.join(dir, 'tools.db'));
    const onDisk = await measure(disk);
    await disk.close();
    const row = (store: string, r: { loop: Sample; manual: Sample }) =>
      `| ${store} | ${fmt(r.loop.wallMs)} | ${fmt(r.loop.cpuMs)} | ${fmt(r.manual.wallMs)} | ${fmt(r.manual.cpuMs)} | ${fmt(r.loop.wallMs - r.manual.wallMs)} |`;
    const load = os.loadavg()[0].toFixed(1);
    const met = inMemory.loop.wallMs <= 5 && onDisk.loop.wallMs - onDisk.manual.wallMs <= 5;
    const verdict = `${met ? 'met' : 'missed'} (${fmt(inMemory.loop.wallMs)} for a whole step in memory, ${fmt(onDisk.loop.wallMs - onDisk.manual.wallMs)} over the baseline on disk)`;
    const section = [
      '## Tool loop',
      '',
      `\`npm run bench -- toolLoop\` (\`bench/toolLoop.ts\`) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs (1-minute load average ${load} at the end). A run of ${STEPS} steps, ${CALLS_PER_STEP} read-only calls in each of the first ${STEPS - 1} and a text answer last, through \`runWithTools\` with streamed answers, an approval callback that allows, and an event listener; the model is an in-process provider that answers at once and the tools return at once, so model and tool time are excluded and what is left is the loop: preparing each request from the growing path, checking each input against its JSON Schema (Ajv), approval, events, ordering, and storing each answer and result through the manager's commit. Baseline, in the same process and interleaved: the same steps by hand with the calls the manager already had (\`streamComplete\` with the tool definitions, \`JSON.parse\`, the tool's \`run\`, \`addMessage\` of each result), without checks, approval, events or parallel reads. ${RUNS} runs of each (after ${WARMUP} warm-up runs), medians per step (a step is one answer and the results of its calls: ${1 + CALLS_PER_STEP} nodes stored, 1 in the last step).`,
      '',
      '| store | `runWithTools` per step, wall | CPU | baseline per step, wall | CPU | the loop\'s own overhead per step (wall difference) |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      row('in memory (sql.js, no file)', inMemory),
      row('file-backed (flushed journal, as in VS Code)', onDisk),
      '',
      `Target: the loop's own overhead per step at most 5 ms, model and tool time excluded: ${verdict}. With the store in memory the whole step is the loop's work, storage included; on disk most of a step is the store's flushed journal write (an fsync per node, four per step here), which the baseline pays alike, so the difference is the loop's own share.`,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    await writeBenchmarkSection('Tool loop', section);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
