/**
 * The context meter's update on a keystroke, with tools: on a 10,000-message path (600 characters each) the
 * chat counts the request through its per-node cache (`PathTokenCache`, only the draft counted again), then
 * fits the chat's 53 tool definitions into what the window leaves (`fitToolWindow`: the relevance index asked
 * with the draft, descriptions shortened, the offered set counted once on the wire) and adds their tokens.
 * The baseline, in the same process and interleaved, is the meter's update without the tools (what it did
 * before tools were fitted). Both with the BPE estimate a model without a known tokenizer gets
 * (`estimate:o200k_base`). Target: the update within 50 ms of a keystroke.
 * Writes the "Meter with tools" section of docs/benchmarks.md.
 *
 * Run: npx tsx bench/meterTools.ts
 */
import { PathTokenCache, type CountableNode } from '../src/core/llm/pathTokenCache';
import { tokenCounterFor } from '../src/core/llm/tokenCount';
import type { ToolDefinition } from '../src/core/types';
import { fitToolWindow } from '../src/host/tools/toolWindow';
import { builtinToolDefs, mcpToolDefs } from '../test/fixtures/toolCatalog';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const MESSAGES = 10_000;
const CHARS = 600;
const KEYSTROKES = 300;
const WARMUP = 20;
/** Ollama's default window, where the 53 definitions must be fitted (at 128k they would all go whole). */
const WINDOW_TOKENS = 4096;

/** A message of `CHARS` characters of varied prose and code, different for each index. */
function messageText(i: number): string {
  const words = ['the', 'discount', 'floor', 'totalCents', 'refund', 'rounds', 'cart', 'items', 'reduce', 'minimum', 'export', 'function', 'return', 'Math.max', 'items.length', 'applies'];
  let text = `${i}: `;
  for (let k = 0; text.length < CHARS; k++) text += `${words[(i * 7 + k * 13) % words.length]} `;
  return text.slice(0, CHARS);
}

async function main(): Promise<void> {
  const counter = await tokenCounterFor('ollama', 'bench-model');
  const nodes: CountableNode[] = Array.from({ length: MESSAGES }, (_, i) => ({ nodeId: String(i), message: { role: i % 2 ? 'assistant' : 'user', content: messageText(i) } }));
  const tools: ToolDefinition[] = [...builtinToolDefs(), ...mcpToolDefs()];
  const cache = new PathTokenCache(counter);
  // One function for the tools' count, as the chat keeps one per counter (the fitting caches per-tool counts by it).
  const countTools = (defs: readonly ToolDefinition[]) => counter.countTools(defs);
  const firstStarted = performance.now();
  cache.count(nodes);
  const firstMs = performance.now() - firstStarted;

  const typed = 'where do we apply the discount floor when the cart is refunded and read src/cart.ts please';
  const withTools: number[] = [];
  const without: number[] = [];
  for (let k = -WARMUP; k < KEYSTROKES; k++) {
    const draft = typed.slice(0, 10 + (Math.max(0, k) % (typed.length - 10)));
    // The baseline: the path and the draft, through the cache.
    let started = performance.now();
    cache.count(nodes, { draft: { role: 'user', content: draft } });
    const base = performance.now() - started;
    // With tools: the same, then the tools fitted into the rest of the window and counted.
    started = performance.now();
    cache.count(nodes, { draft: { role: 'user', content: draft } });
    // The whole path is far over any window; what is left for the tools is set as if a compaction had kept
    // 2k tokens of it (the fitting's cost does not depend on how many tokens the rest takes).
    const window = fitToolWindow({ definitions: tools, limit: WINDOW_TOKENS, reserve: 409, share: 0.25, otherTokens: 2_000, query: draft, keep: new Set(), countTools });
    if (window.offered.length === 0) throw new Error('no tool was fitted');
    const full = performance.now() - started;
    if (k >= 0) {
      without.push(base);
      withTools.push(full);
    }
  }
  const a = summarize(without);
  const b = summarize(withTools);
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const lines = [
    `The meter's update on a keystroke in a ${MESSAGES.toLocaleString('en-US')}-message conversation (${CHARS} characters each, ${cache.count(nodes).total.toLocaleString('en-US')} tokens by the BPE estimate) with ${tools.length} tool definitions, ${KEYSTROKES} keystrokes after ${WARMUP} warm-up, interleaved with the baseline. The first count of the path (which fills the cache, once per chat and model) took ${ms(firstMs)}. Target: 50 ms per keystroke. Run: \`npx tsx bench/meterTools.ts\`.`,
    '',
    '| update | median | p95 |',
    '| --- | ---: | ---: |',
    `| baseline: messages and draft (cached), no tools | ${ms(a.median)} | ${ms(a.p95)} |`,
    `| with the ${tools.length} tools fitted to the window and counted | **${ms(b.median)}** | ${ms(b.p95)} |`,
  ];
  await writeBenchmarkSection('Meter with tools', lines.join('\n'));
  console.log(lines.join('\n'));
}

runBenchmark(main);
