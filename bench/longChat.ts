/**
 * The chat with a 10,000-message path (a fork every 500): what the host posts for a branch switch
 * and how soon the webview repaints it. The host side is the real one (a `ConversationManager` on
 * sql.js as the path source, `ChatWindow` + `buildChatState`); the webview is the esbuild bundle in
 * headless Chromium. Baseline, in the same run: the whole path posted and kept on every change, as
 * the chat did before windowing (the same webview handed every id and view each time).
 * Writes the "Long chat" section of docs/benchmarks.md.
 *
 * Run: npx tsx bench/longChat.ts
 */
import { ConversationManager, SqlJsConversationStorage, type LLMProvider } from '../src/core/index';
import { buildChatState, type PathSource } from '../src/host/chat/chatView';
import { ChatWindow } from '../src/host/chat/chatWindow';
import type { ChatState } from '../src/shared/protocol';
import { longPath } from '../test/webview/fixtures';
import { startHarness } from '../test/webview/harness';
import { median, runBenchmark, writeBenchmarkSection } from './benchReport';
import { openBenchPage, timeStateRender } from './webviewTiming';

const LENGTH = 10_000;
const FORK_EVERY = 500;
const SWITCHES = 10;
const llm = { name: 'bench' } as unknown as LLMProvider;

function sourceOf(manager: ConversationManager): PathSource {
  return { pathIds: manager.getPathIds(), node: (id) => manager.getNode(id), siblingIds: (id) => manager.getSiblingIds(id) };
}

function stateOf(manager: ConversationManager, window: ChatWindow): ChatState {
  const base = { conversationId: manager.conversationId, title: 'Long', currentNodeId: manager.currentNodeId, totalCostUsd: 0, branchCostUsd: 0, model: 'm', provider: 'ollama', busy: false, restricted: false };
  return buildChatState({ ...base, path: sourceOf(manager) }, window);
}

/** The state the chat posted before windowing: every id and every view of the path. */
function wholeState(manager: ConversationManager): ChatState {
  return stateOf(manager, new ChatWindow(Number.MAX_SAFE_INTEGER));
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify({ type: 'state', state: value }));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const ms = (n: number) => (n >= 100 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`);

async function main(): Promise<void> {
  // A real conversation: realistic questions and answers (code blocks, lists), a sibling at every 500th.
  const storage = await SqlJsConversationStorage.open();
  const manager = await ConversationManager.create({ llm, storage, conversationId: 'long' });
  const texts = longPath(LENGTH);
  const forks: Array<{ main: string; fork: string }> = [];
  for (let i = 0; i < LENGTH; i++) {
    const node = await manager.addMessage({ role: texts[i].role === 'user' ? 'user' : 'assistant', content: texts[i].content });
    if (i > 0 && i % FORK_EVERY === 0) {
      await manager.branchFrom(node.nodeId);
      const fork = await manager.addMessage({ role: texts[i].role === 'user' ? 'user' : 'assistant', content: `A different take at ${i}` });
      forks.push({ main: node.nodeId, fork: fork.nodeId });
      await manager.switchToNode(node.nodeId);
    }
  }
  const mainTip = manager.currentNodeId;

  const harness = await startHarness({ minify: true });
  try {
    const rows: string[] = [];
    let verdict = '';
    for (const mode of ['windowed', 'whole'] as const) {
      const page = await openBenchPage(harness);
      const window = new ChatWindow();
      const post = () => (mode === 'windowed' ? stateOf(manager, window) : wholeState(manager));
      await manager.switchToNode(mainTip);
      const first = post();
      const open = await timeStateRender(page, { type: 'state', state: first });
      const sizes: number[] = [];
      const hostMs: number[] = [];
      const painted: number[] = [];
      // Switch to the sibling at a fork deep in the path, then back to the main branch's tip.
      for (let s = 0; s < SWITCHES; s++) {
        const { fork } = forks[forks.length - 1 - (s % 4)];
        for (const target of [fork, mainTip]) {
          const start = process.hrtime.bigint();
          await manager.switchToNode(target);
          const state = post();
          hostMs.push(Number(process.hrtime.bigint() - start) / 1e6);
          sizes.push(bytes(state));
          painted.push((await timeStateRender(page, { type: 'state', state })).painted);
        }
      }
      const shownIds = await page.locator('[data-testid=message]').count();
      await page.context().close();
      if (mode === 'windowed') {
        verdict = `Arbor's switch: largest message ${kb(Math.max(...sizes))} (target under 64 KB: ${Math.max(...sizes) < 64 * 1024 ? 'met' : 'missed'}), median repaint ${ms(median(painted))} (target within 100 ms: ${median(painted) <= 100 ? 'met' : 'missed'}).`;
      }
      rows.push(
        `| ${mode === 'windowed' ? 'Arbor: window of the newest messages, changes only' : 'baseline: whole path posted each time'} | ${kb(bytes(first))} | ${ms(open.painted)} | ${kb(median(sizes))} | ${kb(Math.max(...sizes))} | ${ms(median(hostMs))} | ${ms(median(painted))} | ${ms(Math.max(...painted))} | ${shownIds.toLocaleString('en-US')} |`,
      );
      process.stdout.write(`${rows[rows.length - 1]}\n`);
    }
    const section = [
      `One conversation of ${LENGTH.toLocaleString('en-US')} messages on its main path with a sibling at every ${FORK_EVERY}th (questions and answers from \`test/webview/fixtures.ts\` \`longPath\`: code blocks, lists, 100 to 700 bytes each), built with \`addMessage\` on sql.js. A switch goes to the sibling at one of the four deepest forks and back to the main branch's tip, ${SWITCHES} times each way; the host part is \`switchToNode\` + \`buildChatState\` with the manager as the path source, the repaint is the webview bundle in headless Debian Chromium from the posted \`state\` to the next painted frame. \`npx tsx bench/longChat.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, 2 shared CPUs. Targets: repaint within 100 ms, posted message under 64 KB.`,
      '',
      verdict,
      '',
      '| chat | first state posted | first paint | switch: message, median | switch: message, largest | switch: host, median | switch: repaint, median | switch: repaint, slowest | messages in the page |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
    ].join('\n');
    process.stdout.write(`${section}\n`);
    await writeBenchmarkSection('Long chat', section);
  } finally {
    await harness.close();
    await storage.close();
  }
}

runBenchmark(main);
