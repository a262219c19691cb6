/**
 * What Arbor's MCP client adds to a tool call: server-everything's `echo` over stdio, called through
 * `McpServerConnection.callTool` and through the Arbor tool adapter (`run`, which also turns the result
 * into text), against the SDK's `Client.callTool` on its own stdio transport as the baseline, in the
 * same run, interleaved, each side on its own server process. Writes the "MCP" section of
 * docs/benchmarks.md.
 *
 * Run: npm run bench -- mcp   (or npx tsx bench/mcp.ts)
 */
import * as os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServerConnection } from '../src/core/mcp/mcpConnection';
import { EVERYTHING_BIN, everythingStdio } from '../src/core/mcp/mcpTestServers';
import { toArborTool } from '../src/core/mcp/mcpTools';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const WARMUP = 50;
const CALLS = 1000;
const MESSAGE = 'a branch of the conversation tree';

const fmt = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

async function main(): Promise<void> {
  const sdk = new Client({ name: 'bench', version: '0' }, { capabilities: {} });
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], stderr: 'ignore' }));
  const connection = new McpServerConnection(everythingStdio());
  const adapterConnection = new McpServerConnection(everythingStdio('adapter'));
  try {
    for (const c of [connection, adapterConnection]) {
      const state = await c.start();
      if (state.kind !== 'running') throw new Error(`server-everything did not start: ${JSON.stringify(state)}`);
    }
    const echo = (await adapterConnection.listTools()).find((tool) => tool.name === 'echo');
    if (!echo) throw new Error('server-everything has no echo tool');
    const tool = toArborTool(adapterConnection, echo);

    const sides: Record<'sdk' | 'arbor' | 'adapter', () => Promise<unknown>> = {
      sdk: () => sdk.callTool({ name: 'echo', arguments: { message: MESSAGE } }),
      arbor: () => connection.callTool('echo', { message: MESSAGE }, new AbortController().signal),
      adapter: () => tool.run({ message: MESSAGE }, { signal: new AbortController().signal }),
    };
    const samples: Record<keyof typeof sides, number[]> = { sdk: [], arbor: [], adapter: [] };
    for (let i = 0; i < WARMUP; i++) for (const run of Object.values(sides)) await run();
    for (let i = 0; i < CALLS; i++) {
      for (const [name, run] of Object.entries(sides) as Array<[keyof typeof sides, () => Promise<unknown>]>) {
        const start = performance.now();
        await run();
        samples[name].push(performance.now() - start);
      }
    }
    const sdkStats = summarize(samples.sdk);
    const rows = [
      ['SDK `Client.callTool` (baseline)', samples.sdk],
      ['Arbor `McpServerConnection.callTool`', samples.arbor],
      ['Arbor tool adapter `run` (result as text)', samples.adapter],
    ] as const;
    const table = rows.map(([label, values]) => {
      const s = summarize(values);
      return `| ${label} | ${fmt(s.median)} | ${fmt(s.p95)} | ${(s.median / sdkStats.median).toFixed(2)}x |`;
    });
    const date = new Date().toISOString().slice(0, 10);
    const load = os.loadavg()[0].toFixed(1);
    const section = [
      `One call of server-everything's \`echo\` over stdio (request, JSON-RPC over the child's pipes, answer), ${CALLS} calls per side after ${WARMUP} warm-up calls, the three sides interleaved, each on its own server-everything process; \`npx tsx bench/mcp.ts\` on ${date}, Node ${process.version}, ${os.cpus().length} shared CPUs (1-minute load average ${load} during the run). Arbor's calls pass an AbortSignal, as the engine will.`,
      '',
      '| call | median round trip | p95 | median vs SDK |',
      '| --- | ---: | ---: | ---: |',
      ...table,
    ].join('\n');
    console.log(section);
    await writeBenchmarkSection('MCP', section);
  } finally {
    await Promise.all([sdk.close(), connection.dispose(), adapterConnection.dispose()]);
  }
}

runBenchmark(main);
