/**
 * `ToolExecutor` on its own: the tools it accepts, the inputs it lets through (and the texts that tell a
 * model what to fix), how a run ends, and the lifetimes of the dependencies tools share.
 */
import { describe, expect, it } from 'vitest';
import { capOutput, defineTool, InvalidArgumentError, toolDependency, ToolExecutor, type Tool, type ToolCall } from '../../../src/core/index';
import { TOOL_RESULT_TEXTS } from '../../../src/core/tools/toolResults';

const call = (name: string, args: unknown, id = 'c1'): ToolCall => ({ id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } });

const search = defineTool<{ query: string; limit: number; mode?: string }>({
  name: 'search',
  description: 'Searches the workspace.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, default: 10 },
      mode: { enum: ['text', 'regex'] },
      since: { type: 'string', format: 'date-time' },
      files: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
    },
    required: ['query'],
    additionalProperties: false,
  },
  readOnly: true,
  run: (input) => `found ${input.query} (${input.limit})`,
});

async function ready(executor: ToolExecutor, c: ToolCall) {
  const p = await executor.prepare(c);
  if (!p.ok) throw new Error(p.error);
  return p;
}

async function problem(executor: ToolExecutor, c: ToolCall): Promise<string> {
  const p = await executor.prepare(c);
  if (p.ok) throw new Error('expected the input to be refused');
  return p.error;
}

describe('ToolExecutor: tools and their inputs', () => {
  it('offers its tools in the provider shape and refuses a broken tool when it is built, or its schema when compiled', async () => {
    expect(new ToolExecutor([search]).definitions()).toEqual([
      { type: 'function', function: { name: 'search', description: 'Searches the workspace.', parameters: search.inputSchema } },
    ]);
    const bad = (patch: Partial<Tool>) => () => new ToolExecutor([{ ...search, ...patch }]);
    expect(bad({ name: 'has space' })).toThrow(InvalidArgumentError);
    expect(bad({ name: 'x'.repeat(65) })).toThrow(/1 to 64 letters/);
    expect(bad({ description: ' ' })).toThrow(/needs a description/);
    expect(bad({ inputSchema: { type: 'string' } })).toThrow(/must describe an object/);
    const invalid = new ToolExecutor([search, { ...search, name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } }]);
    await expect(invalid.ready()).rejects.toThrow(/^Tool "broken" has an invalid inputSchema: .+\.$/);
    // The other tools still work; a call of the broken one tells the model it cannot be used.
    expect((await ready(invalid, call('search', { query: 'x' }))).input.query).toBe('x');
    expect(await problem(invalid, call('broken', {}))).toMatch(/^Tool "broken" has an invalid inputSchema: .+ It cannot be used until its author fixes it; tell the user\.$/);
    expect(() => new ToolExecutor([search, search])).toThrow(/Two tools are named "search"/);
  });

  it('lets a valid input through with its defaults filled in; empty arguments count as {}', async () => {
    const executor = new ToolExecutor([search]);
    expect((await ready(executor, call('search', { query: 'x' }))).input).toEqual({ query: 'x', limit: 10 });
    expect((await ready(executor, call('search', { query: 'x', since: '2026-11-26T08:00:00Z' }))).input.since).toBe('2026-11-26T08:00:00Z');
    const noArgs = new ToolExecutor([defineTool({ name: 'now', description: 'The time.', inputSchema: { type: 'object' }, readOnly: true, run: () => 'noon' })]);
    expect((await ready(noArgs, call('now', ''))).input).toEqual({});
  });

  it('tells the model each thing wrong with an input, by field, and how to call again', async () => {
    const executor = new ToolExecutor([search]);
    const text = await problem(executor, call('search', { limit: '5', mode: 'glob', extra: 1, since: 'yesterday', files: [{ name: 'a' }] }));
    expect(text.split('\n').slice(0, 7)).toEqual([
      'The arguments of search do not match its input schema:',
      '- "query" is required but missing',
      '- "extra" is not a field of this tool; leave it out',
      '- "limit" must be integer, not the string "5"',
      '- "mode" must be one of "text", "regex"',
      '- "since" must match format "date-time"',
      '- "files[0].path" is required but missing',
    ]);
    expect(text).toContain(`Call search again with corrected arguments. Its schema: ${JSON.stringify(search.inputSchema)}`);
    expect(await problem(executor, call('search', '{"query": "x",'))).toMatch(/^The arguments of search are not valid JSON \(.+\)\. Call search again with its arguments as one JSON object/);
    expect(await problem(executor, call('search', '[1]'))).toContain('- the arguments must be object, not an array');
    expect(await problem(executor, call('find', {}))).toBe(TOOL_RESULT_TEXTS.unknownTool('find', ['search']));
  });
});

describe('ToolExecutor: running', () => {
  it('returns the output, turns a thrown error into advice to retry, and caps a huge output', async () => {
    const throwing = defineTool({ name: 'boom', description: 'Fails.', inputSchema: { type: 'object' }, readOnly: false, run: () => Promise.reject(new Error('no such file: a.ts')) });
    const huge = defineTool({ name: 'huge', description: 'Talks a lot.', inputSchema: { type: 'object' }, readOnly: true, run: () => ({ content: 'x'.repeat(5000), modifiedFiles: ['a.ts'], metadata: { lines: 1 } }) });
    const executor = new ToolExecutor([search, throwing, huge], { maxOutputChars: 1000 });
    expect(await executor.run(await ready(executor, call('search', { query: 'q' })))).toEqual({ status: 'done', content: 'found q (10)' });
    expect(await executor.run(await ready(executor, call('boom', {})))).toEqual({ status: 'failed', content: TOOL_RESULT_TEXTS.failed('boom', 'no such file: a.ts') });
    const big = await executor.run(await ready(executor, call('huge', {})));
    expect(big).toMatchObject({ status: 'done', modifiedFiles: ['a.ts'], metadata: { lines: 1 } });
    expect(big.content).toBe(capOutput('x'.repeat(5000), 1000));
    expect(big.content).toContain('[… 4000 characters of the tool\'s output left out …]');
  });

  it('ends a run at once when the signal aborts, telling the tool, and does not start one after', async () => {
    let toldToStop = false;
    const stuck = defineTool({
      name: 'stuck',
      description: 'Ignores everything but its signal.',
      inputSchema: { type: 'object' },
      readOnly: false,
      run: (_i, ctx) => new Promise<string>(() => ctx.signal.addEventListener('abort', () => (toldToStop = true))),
    });
    const executor = new ToolExecutor([stuck]);
    const controller = new AbortController();
    const running = executor.run(await ready(executor, call('stuck', {})), controller.signal);
    controller.abort();
    expect(await running).toEqual({ status: 'cancelled', content: TOOL_RESULT_TEXTS.stoppedWhileRunning });
    expect(toldToStop).toBe(true);
    expect(await executor.run(await ready(executor, call('stuck', {})), controller.signal)).toEqual({ status: 'cancelled', content: TOOL_RESULT_TEXTS.stoppedBeforeRun });
  });
});

describe('ToolExecutor: dependencies', () => {
  it('creates a dependency once on first use, shares it, and closes every one newest first on dispose', async () => {
    const log: string[] = [];
    let made = 0;
    const client = toolDependency('the language server', async () => {
      log.push('create client');
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { id: ++made };
    }, (c) => void log.push(`close client ${c.id}`));
    const shell = toolDependency('the shell', () => (log.push('create shell'), 'sh'), () => {
      log.push('close shell');
      throw new Error('already gone');
    });
    const uses = (name: string, dependency: typeof client | typeof shell) =>
      defineTool({ name, description: 'Uses a dependency.', inputSchema: { type: 'object' }, readOnly: true, run: async (_i, ctx) => JSON.stringify(await ctx.use(dependency as typeof client)) });
    const warnings: string[] = [];
    const executor = new ToolExecutor([uses('a', client), uses('b', client), uses('c', shell)], { logger: { warn: (m) => warnings.push(m) } });
    expect(log).toEqual([]);
    const [a, b] = await Promise.all([executor.run(await ready(executor, call('a', {}))), executor.run(await ready(executor, call('b', {})))]);
    expect([a.content, b.content]).toEqual(['{"id":1}', '{"id":1}']);
    await executor.run(await ready(executor, call('c', {})));
    expect(log).toEqual(['create client', 'create shell']);
    await executor.dispose();
    expect(log).toEqual(['create client', 'create shell', 'close shell', 'close client 1']);
    expect(warnings).toEqual(['Closing the shell failed: already gone']);
    expect(executor.disposed).toBe(true);
    expect((await executor.run(await ready(executor, call('a', {})))).status).toBe('failed');
    await expect(executor.use(client)).rejects.toThrow(/not available: the tools were shut down/);
  });

  it('tries a dependency that failed to start again on its next use, and closes one that finishes starting after dispose', async () => {
    let attempts = 0;
    const flaky = toolDependency('the index', () => {
      if (++attempts === 1) throw new Error('port in use');
      return 'index';
    });
    const executor = new ToolExecutor([defineTool({ name: 'q', description: 'Queries the index.', inputSchema: { type: 'object' }, readOnly: true, run: async (_i, ctx) => ctx.use(flaky) })]);
    expect((await executor.run(await ready(executor, call('q', {})))).content).toBe(TOOL_RESULT_TEXTS.failed('q', 'Could not start the index: port in use'));
    expect((await executor.run(await ready(executor, call('q', {})))).content).toBe('index');

    const closed: string[] = [];
    let finish!: (v: string) => void;
    const slow = toolDependency('the slow server', () => new Promise<string>((resolve) => (finish = resolve)), (v) => void closed.push(v));
    const late = new ToolExecutor([]);
    const pending = late.use(slow);
    await late.dispose();
    finish('server');
    await expect(pending).rejects.toThrow(/shut down/);
    expect(closed).toEqual(['server']);
  });
});
