/**
 * Answers that froze the chat webview (issue 22, section 6), before and after the guard, in the same
 * run (`npm run bench -- pathologicalAnswers`): the webview of the release before the guard
 * (`BASELINE_COMMIT`, taken from git into a temp folder) and the current one, each in headless
 * Debian Chromium under the host's CSP, on a 400×300 table, `*a` × 20,000, a list nested 2,000 deep,
 * `[` × 10,000 and a 1 MB ordinary answer. For each: the `state` render to the next painted frame
 * (and, for the current webview, until every block is rendered), and the answer streamed in 200
 * deltas (one task each): total time, and the longest single block of main-thread work (the
 * `longtask` PerformanceObserver's longest entry; under 50 ms it reports none).
 * Writes the table into docs/benchmarks.md under "## Pathological answers".
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { chatState, message } from '../test/webview/fixtures';
import { postToWebview, startHarness, type WebviewHarness } from '../test/webview/harness';
import { END, bigTable, deepList, deltas, emphasisRun, openBrackets, ordinaryAnswer } from '../test/webview/pathological';
import { runBenchmark, writeBenchmarkSection } from './benchReport';
import { openBenchPage } from './webviewTiming';

const repoRoot = path.resolve(__dirname, '..');
/** The last commit before the guard: its webview is the baseline. */
const BASELINE_COMMIT = '095a899';

const INPUTS: ReadonlyArray<{ name: string; text: string }> = [
  // The control: what an ordinary short answer costs on this machine at this moment.
  { name: 'control: a 2 KB ordinary answer', text: ordinaryAnswer(2_000) },
  { name: 'a 400×300 Markdown table', text: bigTable() },
  { name: '`*a` × 20,000', text: emphasisRun() },
  { name: 'a list nested 2,000 deep', text: deepList() },
  { name: '`[` × 10,000', text: openBrackets() },
  { name: 'a 1 MB ordinary answer (headings, lists, links, code)', text: ordinaryAnswer() },
];

interface Timing {
  /** Dispatch of `state` to the next painted frame. */
  painted: number;
  /** Until no block waits for its render (equal to `painted` when nothing waits). */
  complete: number;
}

/** A stream still running after this long is stopped and reported as longer than it. */
const STREAM_CAP_MS = 120_000;

interface StreamTiming {
  total: number;
  capped: boolean;
  longestTask: number;
  longTasks: number;
}

async function timeState(page: Page, text: string): Promise<Timing> {
  const state = { type: 'state', state: chatState([message('0', 'user', 'Show me everything'), message('0.0', 'assistant', text, { model: 'llama3.2' })]) };
  return page.evaluate(
    (data) =>
      new Promise<Timing>((resolve) => {
        const g = globalThis as any;
        const start = g.performance.now();
        g.dispatchEvent(new g.MessageEvent('message', { data }));
        g.requestAnimationFrame(() =>
          setTimeout(() => {
            const painted = g.performance.now() - start;
            const poll = (): void => {
              if (g.document.querySelector('[data-testid=block-pending]')) {
                setTimeout(poll, 5);
              } else {
                resolve({ painted, complete: g.performance.now() - start });
              }
            };
            poll();
          }, 0),
        );
      }),
    state,
  );
}

/** Streams `text` in 200 deltas, one task each, and waits until its end is shown and nothing waits. */
async function timeStream(page: Page, text: string): Promise<StreamTiming> {
  await postToWebview(page, { type: 'state', state: chatState([message('0', 'user', 'Show me everything')], { busy: true }) });
  await postToWebview(page, { type: 'streamStart', requestId: 'r1', parentNodeId: '0', model: 'llama3.2' });
  await page.locator('[data-testid=message][data-streaming=true]').waitFor();
  return page.evaluate(
    ({ parts, end, cap }) =>
      new Promise<StreamTiming>((resolve) => {
        const g = globalThis as any;
        const tasks: number[] = [];
        const observer = new g.PerformanceObserver((list: any) => {
          for (const entry of list.getEntries()) tasks.push(entry.duration);
        });
        observer.observe({ type: 'longtask' });
        const start = g.performance.now();
        let i = 0;
        const bubble = g.document.querySelector('[data-request-id=r1]');
        const next = (): void => {
          if (i < parts.length) {
            g.postMessage({ type: 'streamDelta', requestId: 'r1', delta: parts[i++] }, '*');
            setTimeout(next, 0);
            return;
          }
          g.postMessage({ type: 'streamDone', requestId: 'r1' }, '*');
          const wait = (): void => {
            const capped = g.performance.now() - start > cap;
            if (capped || (String(bubble.textContent).includes(end) && !bubble.querySelector('[data-testid=block-pending]'))) {
              const total = g.performance.now() - start;
              // Long tasks are reported after they end: give the last one time to arrive.
              setTimeout(() => {
                observer.disconnect();
                resolve({ total, capped, longestTask: Math.max(0, ...tasks), longTasks: tasks.length });
              }, 200);
            } else {
              setTimeout(wait, 20);
            }
          };
          wait();
        };
        next();
      }),
    { parts: deltas(text), end: END, cap: STREAM_CAP_MS },
  );
}

function fmt(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms.toFixed(0)} ms`;
}

async function measure(harness: WebviewHarness, text: string): Promise<{ state: Timing; stream: StreamTiming }> {
  const statePage = await openBenchPage(harness);
  const state = await timeState(statePage, text);
  await statePage.context().close();
  const streamPage = await openBenchPage(harness);
  const stream = await timeStream(streamPage, text);
  await streamPage.context().close();
  return { state, stream };
}

async function main(): Promise<void> {
  const baselineDir = await mkdtemp(path.join(tmpdir(), 'arbor-baseline-'));
  execFileSync('sh', ['-c', `git archive ${BASELINE_COMMIT} webview src/shared | tar -x -C "${baselineDir}"`], { cwd: repoRoot });
  const before = await startHarness({ minify: true, webviewDir: path.join(baselineDir, 'webview') });
  const after = await startHarness({ minify: true });
  const loads: number[] = [];
  const rows: string[] = [];
  try {
    for (const input of INPUTS) {
      // The current webview first, then the baseline: neither always meets a warmer machine.
      const now = await measure(after, input.text);
      const then = await measure(before, input.text);
      loads.push(loadavg()[0]);
      const size = input.text.length >= 1024 * 1024 ? `${(input.text.length / 1024 / 1024).toFixed(1)} MB` : `${Math.round(input.text.length / 1024)} KB`;
      const complete = now.state.complete > now.state.painted + 1 ? ` (all blocks ${fmt(now.state.complete)})` : '';
      rows.push(
        `| ${input.name} | ${size} | ${fmt(then.state.painted)} | ${fmt(now.state.painted)}${complete} | ${then.stream.capped ? `> ${fmt(STREAM_CAP_MS)} (stopped)` : fmt(then.stream.total)} | ${now.stream.capped ? `> ${fmt(STREAM_CAP_MS)} (stopped)` : fmt(now.stream.total)} | ${fmt(then.stream.longestTask)} | ${fmt(now.stream.longestTask)} |`,
      );
      console.log(rows.at(-1));
    }
  } finally {
    await before.close();
    await after.close();
    await rm(baselineDir, { recursive: true, force: true });
  }
  const version = execFileSync('/usr/bin/chromium', ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  const load = (loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(1);
  const section = `## Pathological answers

\`npm run bench -- pathologicalAnswers\` (bench/pathologicalAnswers.ts) on ${new Date().toISOString().slice(0, 10)}: the chat webview in headless ${version} under the host's CSP, minified, one fresh page per measurement, one run each (a baseline stream takes minutes). "Before" is the webview of commit ${BASELINE_COMMIT} (the release before the guard), taken from git and bundled in the same run; "after" is the current one. State render: a \`state\` holding the answer, dispatched until the next painted frame (after: in brackets, until the last block rendered in its slices). Streamed: the answer in 200 deltas, each its own task, until its end is shown and nothing waits; longest task: the longest entry the \`longtask\` PerformanceObserver reported during the stream (0 ms: none over 50 ms). The control row is an ordinary 2 KB answer: the long tasks it shows are the machine's own (other jobs, garbage collection), not the answer's. The machine is 2 shared cores (1-minute load average ${load} on average during the run), so absolute times are inflated several times over; compare the columns of a row, which ran minutes apart on the same machine.

After the guard: past 256 KB an answer is shown as plain text with a Render button; a block over 20,000 characters outside code fences, nested deeper than 24, or with more than 1,000 Markdown marks is shown as plain text; larger answers render in groups of 2 KB in 20 ms slices (at least one group per slice); the streaming tail that fails the guard only grows as plain text. Plain text is laid out in chunks with \`content-visibility: auto\`, so only what is on screen costs layout.

| answer | size | state render, before | state render, after | streamed, before | streamed, after | longest task streaming, before | longest task streaming, after |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
`;
  console.log(section);
  await writeBenchmarkSection('Pathological answers', section);
}

runBenchmark(main);
