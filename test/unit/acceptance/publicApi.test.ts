/**
 * Acceptance audit: every public name that issues 2 (engine) and 3 (prompts, RAG) fix, called through
 * `src/core/index.ts` only, the way the issue text describes it. Depth lives in the other suites; this
 * file pins the names and the shapes.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConversationManager,
  ConversationNotFoundError,
  FileSystemPromptLibrary,
  InvalidArgumentError,
  InvalidOperationError,
  LoggingMiddleware,
  NodeNotFoundError,
  OllamaProvider,
  OpenAIProvider,
  PromptBuilder,
  ProviderError,
  RedactionMiddleware,
  estimateMessageTokens,
  nodeFiles,
  SqlJsConversationStorage,
  WorkspaceIndex,
  isDotPath,
  type ConversationMiddleware,
  type ConversationNode,
  type LLMProvider,
  type LLMStreamChunk,
  type Logger,
  type RagMetadata,
} from '../../../src/core/index';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
const pricing = { 'arbor-test-model': { inputPerMillion: 1000, outputPerMillion: 2000 } };
const usage = { promptTokens: 10, completionTokens: 5 };
let storage: SqlJsConversationStorage;
let openai: OpenAIProvider;
let root: string;

beforeAll(async () => {
  await server.start();
  openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', pricing });
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-acceptance-'));
});
afterAll(async () => {
  await server.stop();
  await fs.rm(root, { recursive: true, force: true });
});
beforeEach(async () => {
  server.reset();
  storage = await SqlJsConversationStorage.open();
});
afterEach(() => storage.close());

const sent = () => server.chatRequests().at(-1)?.body.messages as Array<{ role: string; content: string }>;
const newManager = (extra: Partial<Parameters<typeof ConversationManager.create>[0]> = {}) =>
  ConversationManager.create({ llm: openai, storage, ...extra });

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  }
}

describe('ConversationManager (issue 2 §2)', () => {
  it('create, resume, addMessage errors, node ids and dot paths, branchFrom, switchToNode, conversationId, currentNodeId', async () => {
    await expect(ConversationManager.resume('no-such-id', { llm: openai, storage })).rejects.toBeInstanceOf(ConversationNotFoundError);
    const m = await newManager({ metadata: { project: 'arbor' } });
    await expect(m.addMessage({ role: 'user' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(m.complete()).rejects.toBeInstanceOf(InvalidOperationError);
    const first = await m.addMessage({ role: 'user', content: 'first' });
    expect(first.nodeId).toMatch(/^\S+$/);
    expect(isDotPath(first.nodeId)).toBe(false);
    expect([first.parentId, first.position, m.currentNodeId]).toEqual(['', expect.any(Number), first.nodeId]);
    expect(m.getDotPath(first.nodeId)).toBe('0');
    expect(typeof first.timestamp).toBe('string');
    expect(new Date(first.timestamp).toISOString()).toBe(first.timestamp);
    await m.branchFrom(first.nodeId);
    expect(m.currentNodeId).toBe('');
    const second = await m.addMessage({ role: 'user', content: 'second' });
    expect(second.nodeId).not.toBe(first.nodeId);
    expect(m.getDotPath(second.nodeId)).toBe('1');
    expect(m.getNodeByDotPath('1')).toEqual(second);
    expect(m.getChildren('').map((n) => n.nodeId)).toEqual([first.nodeId, second.nodeId]);
    expect(m.getPath(second.nodeId).map((n) => n.nodeId)).toEqual(['', second.nodeId]);
    expect([m.hasNode(second.nodeId), m.hasNode('1'), m.isSelfOrAncestor('', second.nodeId), m.isSelfOrAncestor(first.nodeId, second.nodeId)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    await expect(m.branchFrom('')).rejects.toBeInstanceOf(InvalidOperationError);
    await expect(m.switchToNode('9.9')).rejects.toBeInstanceOf(NodeNotFoundError);
    await m.switchToNode(first.nodeId);
    const resumed = await ConversationManager.resume(m.conversationId, { llm: openai, storage });
    expect([resumed.conversationId, resumed.currentNodeId, resumed.getMetadata('project')]).toEqual([m.conversationId, first.nodeId, 'arbor']);
  });

  it('complete returns costUsd and cumulativeCostUsd; costs, history and node lists agree', async () => {
    const m = await newManager({ systemPrompt: 'Be brief.' });
    await m.addMessage({ role: 'user', content: 'Hello?' });
    server.enqueue({ content: 'Hi.', usage });
    const r1 = await m.complete({ branchName: 'main', metadata: { tag: 'a' }, configOverrides: { temperature: 0.5, maxTokens: 20 } });
    expect(r1).toMatchObject({ content: 'Hi.', model: 'arbor-test-model', finishReason: 'stop', usage: { ...usage, totalTokens: 15 } });
    expect(r1.costUsd).toBeCloseTo(0.02, 10);
    expect(r1.cumulativeCostUsd).toBeCloseTo(0.02, 10);
    expect(server.chatRequests().at(-1)?.body).toMatchObject({ temperature: 0.5 });
    await m.addMessage({ role: 'user', content: 'More?' });
    server.enqueue({ content: 'Yes.', usage });
    const r2 = await m.complete({ systemPromptOverride: 'Be terse.' });
    expect(r2.cumulativeCostUsd).toBeCloseTo(0.04, 10);
    expect(sent()[0]).toEqual({ role: 'system', content: 'Be terse.' });
    expect(m.getHistory().map((x) => [x.role, x.content])).toEqual([
      ['system', 'Be brief.'], ['user', 'Hello?'], ['assistant', 'Hi.'], ['user', 'More?'], ['assistant', 'Yes.'],
    ]);
    const path = m.getCurrentNodes().map((n) => n.nodeId);
    expect(path.map((id) => m.getDotPath(id))).toEqual(['', '0', '0.0', '0.0.0', '0.0.0.0']);
    expect(new Set(path).size).toBe(5);
    expect(m.getAllNodes()).toHaveLength(5);
    expect(m.getNode(path[2])).toMatchObject({ branchName: 'main', metadata: { tag: 'a' }, message: { role: 'assistant' } });
    expect(m.getTotalCost()).toBeCloseTo(0.04, 10);
    expect(m.getCostByBranch(path[2])).toBeCloseTo(0.02, 10);
    expect(m.getCostByBranch()).toBeCloseTo(0.04, 10);
  });

  it('getBranches, renameBranch, deleteBranch (ids never reused), setMetadata/getMetadata', async () => {
    const m = await newManager();
    const first = await m.addMessage({ role: 'user', content: 'x'.repeat(150) });
    await m.branchFrom(first.nodeId);
    const other = await m.addMessage({ role: 'user', content: 'other' });
    await m.renameBranch(other.nodeId, 'alt');
    const branches = m.getBranches('');
    expect(branches.map((b) => Object.keys(b).sort())).toEqual([
      ['nodeId', 'preview', 'role', 'timestamp'],
      ['branchName', 'nodeId', 'preview', 'role', 'timestamp'],
    ]);
    expect(branches[0].preview).toHaveLength(100);
    expect(branches[1]).toMatchObject({ nodeId: other.nodeId, branchName: 'alt', role: 'user', preview: 'other' });
    await expect(m.deleteBranch('')).rejects.toBeInstanceOf(InvalidOperationError);
    await m.deleteBranch(other.nodeId);
    expect(m.currentNodeId).toBe('');
    const third = await m.addMessage({ role: 'user', content: 'third' });
    expect([first.nodeId, other.nodeId]).not.toContain(third.nodeId);
    expect(m.getDotPath(third.nodeId)).toBe('1');
    await m.setMetadata('topic', 'trees');
    await m.setMetadata({ pinned: true });
    // Beside what was set, the conversation remembers the child last visited at each fork it passed.
    expect(m.getMetadata()).toEqual({ topic: 'trees', pinned: true, lastVisitedChild: { '': third.nodeId } });
    expect(m.getMetadata('topic')).toBe('trees');
  });

  it('streamComplete yields chunks and then adds the node as complete does', async () => {
    const m = await newManager();
    await m.addMessage({ role: 'user', content: 'Count' });
    server.enqueue({ content: 'one two three', usage });
    const chunks: LLMStreamChunk[] = [];
    for await (const c of m.streamComplete({ branchName: 's' })) chunks.push(c);
    expect(chunks.map((c) => c.delta).join('')).toBe('one two three');
    expect(chunks.at(-1)?.done).toBe(true);
    expect(m.getNode(m.currentNodeId)).toMatchObject({ branchName: 's', message: { content: 'one two three' } });
    expect(m.getDotPath(m.currentNodeId)).toBe('0.0');
  });

  it('exportJson (dataknobs to_dict keys; schema_version 1.1.0, what dataknobs writes), importJson, exportMarkdown', async () => {
    const m = await newManager({ systemPrompt: 'Sys' });
    const left = await m.addMessage({ role: 'user', content: 'left' });
    await m.branchFrom(left.nodeId);
    await m.addMessage({ role: 'user', content: 'right' });
    const dict = m.exportJson();
    expect(Object.keys(dict).sort()).toEqual(
      ['conversation_id', 'created_at', 'current_node_id', 'edges', 'metadata', 'nodes', 'schema_version', 'updated_at'].sort(),
    );
    expect([dict.schema_version, dict.conversation_id, dict.current_node_id]).toEqual(['1.1.0', m.conversationId, '1']);
    const copy = await ConversationManager.importJson(JSON.parse(JSON.stringify(dict)), { llm: openai, storage, conversationId: 'copy' });
    expect(copy.getAllNodes().map((n: ConversationNode) => n.message.content)).toEqual(['Sys', 'left', 'right']);
    const one = m.exportMarkdown();
    const all = m.exportMarkdown({ allBranches: true });
    expect(one).toContain('right');
    expect(one).not.toContain('left');
    expect(all).toContain('left');
    expect(all).toContain('right');
  });

  it('context window: maxHistory and maxContextTokens keep the system message and the newest turns', async () => {
    const m = await newManager({ systemPrompt: 'S', maxHistory: 3 });
    for (const text of ['q1', 'q2', 'q3']) {
      await m.addMessage({ role: 'user', content: text });
      server.enqueue({ content: `a-${text}` });
      await m.complete();
    }
    await m.addMessage({ role: 'user', content: 'q4' });
    await m.complete();
    expect(sent().map((x) => x.content)).toEqual(['S', 'q3', 'a-q3', 'q4']);
    expect(m.getHistory()).toHaveLength(9);
    const tight = await ConversationManager.resume(m.conversationId, { llm: openai, storage, maxContextTokens: 30 });
    expect(tight.getContextWindow().messages.length).toBeLessThan(tight.getHistory().length);
    expect(tight.getContextWindow().messages[0].role).toBe('system');
    expect(estimateMessageTokens({ role: 'user', content: 'x'.repeat(400) })).toBeGreaterThan(estimateMessageTokens({ role: 'user', content: 'x' }));
    expect(tight.estimateTokens().perMessage).toHaveLength(9);
  });
});

describe('middleware and provider errors (issue 2 §2, §3)', () => {
  it('runs the onion in order, logs through any logger, redacts secrets only in the request', async () => {
    const order: string[] = [];
    const tracer = (name: string): ConversationMiddleware => ({
      processRequest: (msgs) => (order.push(`req:${name}`), msgs),
      processResponse: (res) => (order.push(`res:${name}`), res),
    });
    const lines: string[] = [];
    const logger: Logger = { debug: () => {}, info: (msg) => lines.push(msg), warn: () => {}, error: () => {} };
    const middleware = [tracer('a'), new LoggingMiddleware(logger), new RedactionMiddleware(), tracer('b')];
    const m = await newManager({ middleware });
    const secret = 'sk-abcdefghijklmnopqrstuvwx';
    const question = await m.addMessage({ role: 'user', content: `my key is ${secret}` });
    await m.complete();
    expect(order).toEqual(['req:a', 'req:b', 'res:b', 'res:a']);
    expect(lines.some((l) => l.includes('arbor request'))).toBe(true);
    expect(sent()[0].content).not.toContain(secret);
    expect(m.getNode(question.nodeId).message.content).toContain(secret);
  });

  it.each<[string, () => LLMProvider, number, boolean]>([
    ['OpenAI 401', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', maxRetries: 0 }), 401, false],
    ['OpenAI 429', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', maxRetries: 0 }), 429, true],
    ['Ollama 404', () => new OllamaProvider({ host: server.url, model: 'arbor-test-model' }), 404, false],
  ])('%s becomes a ProviderError with retryable', async (_name, make, status, retryable) => {
    server.enqueueError(status);
    const error = await make().complete([{ role: 'user', content: 'hi' }], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(retryable);
  });

  it('a refused connection names the host to check', async () => {
    const error = await new OllamaProvider({ host: 'http://127.0.0.1:1', model: 'm' }).complete([{ role: 'user', content: 'hi' }], {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toContain('http://127.0.0.1:1');
  });

  it('OpenAIProvider lists models and embeds', async () => {
    expect((await openai.listModels()).length).toBeGreaterThan(0);
    expect(await openai.embed(['a', 'b'])).toHaveLength(2);
  });

  it('OllamaProvider({host, model}) completes, streams and lists models', async () => {
    const ollama = new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
    server.enqueue({ content: 'local answer', usage });
    const r = await ollama.complete([{ role: 'user', content: 'hi' }], {});
    expect([r.content, r.costUsd ?? 0]).toEqual(['local answer', 0]);
    const chunks: string[] = [];
    for await (const c of ollama.stream([{ role: 'user', content: 'stream me' }], {})) chunks.push(c.delta);
    expect(chunks.join('')).toContain('stream me');
    expect((await ollama.listModels()).length).toBeGreaterThan(0);
  });
});

describe('storage (issue 2 §4)', () => {
  it('list, count, search, deleteConversations (refuses empty filter), updateMetadata, forkConversation, load/delete', async () => {
    for (let i = 0; i < 3; i++) {
      const m = await newManager({ conversationId: `c${i}`, metadata: { team: i < 2 ? 'red' : 'blue' } });
      await m.addMessage({ role: 'user', content: i === 1 ? 'Needle in HAYSTACK' : `plain ${i}` });
    }
    expect(await storage.loadConversation('missing')).toBeNull();
    const listed = await storage.listConversations({ filterMetadata: { team: 'red' }, sortBy: 'conversationId', sortOrder: 'asc', limit: 100, offset: 1 });
    expect(listed.map((c) => c.conversationId)).toEqual(['c1']);
    expect(await storage.countConversations({ filterMetadata: { team: 'red' } })).toBe(2);
    expect((await storage.searchConversations({ contentContains: 'haystack' })).map((c) => c.conversationId)).toEqual(['c1']);
    await storage.updateMetadata('c2', { starred: true });
    expect((await storage.loadConversation('c2'))?.metadata).toEqual({ team: 'blue', starred: true });
    const needle = (await storage.loadConversation('c1'))?.nodes.find((n) => n.message.content === 'Needle in HAYSTACK')?.nodeId as string;
    const fork = await storage.forkConversation('c1', 'c1-fork', { upToNodeId: needle });
    expect([fork.conversationId, fork.currentNodeId, fork.nodes.length]).toEqual(['c1-fork', needle, 2]);
    expect((await storage.loadConversation('c1'))?.nodes).toHaveLength(2);
    await expect(storage.deleteConversations({})).rejects.toThrow();
    expect(await storage.countConversations()).toBe(4);
    expect(await storage.deleteConversations({ filterMetadata: { team: 'blue' } })).toBe(1);
    expect(await storage.deleteConversation('c0')).toBe(true);
    expect(await storage.deleteConversation('c0')).toBe(false);
  });
});

describe('prompt library and builder (issue 3)', () => {
  it('library getters, diagnostics, onDidChange; builder renders with the fixed result shape', async () => {
    const dir = path.join(root, 'prompts');
    await writeFiles(dir, {
      'system/helper.md': '---\ndescription: A helper\nparams:\n  lang: {default: TypeScript}\n---\nYou help with {{lang}} on {{current_date}}.',
      'user/ask.md': '---\nparams:\n  question: {required: true}\nvalidation: {level: warn}\nrag: [docs]\n---\nQ: {{question}}\n{{RAG_CONTENT}}',
      'rag/docs.yaml': 'adapter: workspace\nquery: "{{question}}"\nk: 2\n',
      'user/broken.md': '---\nparams: [unclosed\n---\nbody',
    });
    const library = await FileSystemPromptLibrary.open(dir, { files: nodeFiles, watch: false });
    expect(library.getSystemPrompt('helper')?.description).toBe('A helper');
    expect(library.getUserPrompt('ask')?.name).toBe('ask');
    expect(library.getUserPrompt('nope')).toBeUndefined();
    expect(library.listPrompts().map((p) => p.name)).toEqual(expect.arrayContaining(['helper', 'ask']));
    expect(library.getRagConfig('docs')).toMatchObject({ adapter: 'workspace', k: 2 });
    const diag = library.diagnostics();
    expect(diag.some((d) => d.file === 'user/broken.md' && d.line >= 1 && d.message.length > 0)).toBe(true);
    const changed = new Promise<string[]>((resolve) => library.onDidChange((e) => resolve(e.paths)));
    await writeFiles(dir, { 'user/new.md': 'New prompt' });
    await library.reload();
    expect(await changed).toEqual(['user/new.md']);

    let searches = 0;
    const adapter = {
      search: async (q: string) => {
        searches++;
        return [{ content: `found ${q}`, score: 1, path: 'a.ts', startLine: 1, endLine: 2 }];
      },
    };
    const builder = new PromptBuilder(library, { adapters: { workspace: adapter }, defaultValidation: 'warn' });
    const sys = await builder.renderSystemPrompt('helper', { params: {} });
    expect(sys.content).toMatch(/^You help with TypeScript on \d{4}-\d{2}-\d{2}\.$/);
    expect(Object.keys(sys).sort()).toEqual(expect.arrayContaining(['content', 'paramsUsed', 'paramsMissing', 'validationWarnings', 'prompt']));
    expect(Object.keys(sys.prompt ?? {}).sort()).toEqual(['gitBlobId', 'name', 'path', 'sha256']);
    expect(sys.prompt).toMatchObject({ name: 'helper', path: 'system/helper.md' });
    expect(sys.prompt?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(sys.prompt?.gitBlobId).toMatch(/^[0-9a-f]{40}$/);
    const user = await builder.renderUserPrompt('ask', { params: { question: 'trees' }, includeRag: true, returnRagMetadata: true });
    expect(user.content).toContain('found trees');
    const rag = user.ragMetadata?.RAG_CONTENT as RagMetadata;
    expect(Object.keys(rag)).toEqual(expect.arrayContaining(['adapter', 'query', 'queryHash', 'k', 'results', 'formattedContent', 'timestamp']));
    const cached = await builder.renderUserPrompt('ask', { params: { question: 'trees' }, cachedRag: [{ ...rag, formattedContent: 'CACHED' }] });
    expect(cached.content).toContain('CACHED');
    const missing = await builder.renderUserPrompt('ask', { params: {}, includeRag: false });
    expect([missing.paramsMissing, missing.validationWarnings.length > 0]).toEqual([['question'], true]);
    expect(builder.getRequiredParameters('ask')).toEqual(['question']);
    const inlineSys = await builder.renderInlineSystemPrompt('Year {{current_year}} {{x}}', { params: { x: 'y' } });
    expect(inlineSys.content).toBe(`Year ${new Date().getFullYear()} y`);
    const ragConfigs = [{ adapter: 'workspace', query: 'about {{who}}' }];
    const inlineUser = await builder.renderInlineUserPrompt('Hi {{who}} {{RAG_CONTENT}}', { params: { who: '<b>' }, ragConfigs });
    expect(inlineUser.content).toMatch(/^Hi <b> [\s\S]*found about <b>/);
    expect(inlineUser.paramsUsed.who).toBe('<b>');

    const m = await newManager({ promptBuilder: builder, systemPromptName: 'helper', systemParams: { lang: 'Rust' }, cacheRagResults: true, reuseRagOnBranch: true });
    expect(m.getNode('').message.content).toContain('Rust');
    const node = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'trees' }, includeRag: true });
    expect(node.promptName).toBe('ask');
    expect(m.getRagMetadata()?.RAG_CONTENT.results[0].path).toBe('a.ts');
    const before = searches;
    await m.branchFrom(node.nodeId);
    await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'trees' }, includeRag: true });
    expect(searches).toBe(before);
    expect(m.getRagMetadata()?.RAG_CONTENT.query).toBe('trees');
    const inline = await m.addMessage({ role: 'user', content: 'today is {{current_date}}' });
    expect(inline.message.content).not.toContain('{{');
    library.dispose();
  });
});

describe('WorkspaceIndex (issue 3 §3)', () => {
  it('open, update with onProgress, search, dispose', async () => {
    const ws = path.join(root, 'ws');
    await writeFiles(ws, {
      'src/treeWalker.ts': 'export function walkTree(node: unknown) {\n  return node;\n}\n',
      'src/other.ts': 'export const unrelated = 1;\n',
      '.env': 'API_KEY=walkTree-secret\n',
    });
    const index = await WorkspaceIndex.open({ folders: [ws], storagePath: path.join(root, 'index.bin'), exclude: [], maxFileBytes: 1_000_000 });
    const progress: number[] = [];
    const sub = index.onProgress((p) => progress.push(p.done));
    const result = await index.update();
    sub.dispose();
    expect(result.added).toBe(2);
    expect(progress.length).toBeGreaterThan(0);
    const hits = await index.search('walk tree', 5, {});
    expect(hits[0]).toMatchObject({ path: expect.stringContaining('treeWalker.ts'), startLine: 1 });
    expect(hits.some((h) => h.path?.includes('.env'))).toBe(false);
    expect((await index.update()).unchanged).toBe(2);
    await index.dispose();
  });
});
