/**
 * The README's "Using the engine without VS Code" runs as written: its code block is
 * `examples/toolAndFlow.mts` (without the file's two comment lines), and that file, run with tsx as a user
 * would, talks to a real local model server (the fake one, Ollama's wire) through a tool call and a flow.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const ROOT = path.resolve(__dirname, '../../..');
const EXAMPLE = path.join(ROOT, 'examples/toolAndFlow.mts');
const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });

beforeAll(() => server.start());
afterAll(() => server.stop());

/** The ```ts block under the README's heading. */
async function readmeBlock(heading: string): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(start));
  expect(block, `its section has a ts code block`).not.toBeNull();
  return block![1];
}

describe('using the engine without VS Code', () => {
  it('shows in the README exactly the example file', async () => {
    const file = await readFile(EXAMPLE, 'utf8');
    const body = file.split('\n').slice(2).join('\n');
    expect(await readmeBlock('Using the engine without VS Code')).toBe(body);
  });

  it('runs against a model server: the model calls the tool, then the flow counts, titles and answers', async () => {
    server.enqueue([
      { toolCalls: [{ name: 'word_count', arguments: { text: 'to be or not to be' } }] },
      { content: 'Six words.' },
      { content: 'A Question of Being' },
    ]);
    const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
    const { stdout } = await promisify(execFile)(process.execPath, [tsx, EXAMPLE], {
      cwd: ROOT,
      env: { ...process.env, OLLAMA_HOST: server.url, ARBOR_MODEL: 'arbor-test-model' },
      timeout: 60_000,
    });
    expect(stdout.trim().split('\n')).toEqual([
      'answer after 2 model calls: Six words.',
      'flow: A Question of Being (6 words)',
      'the tree has 10 nodes; the answer is at 0.0.0.0.0.0.0.0.0',
    ]);
    const requests = server.chatRequests().map((r) => r.body as { tools?: Array<{ function: { name: string } }>; messages: Array<{ role: string; content: string }> });
    expect(requests).toHaveLength(3);
    // The tool was offered, its result went back to the model, and the flow's agent step saw the tool step's count.
    expect(requests[0].tools?.map((t) => t.function.name)).toEqual(['word_count']);
    expect(requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: '6' });
    expect(requests[2].messages.at(-1)).toMatchObject({ role: 'user', content: 'Title this 6-word text: to be or not to be' });
  }, 90_000);
});
