import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { readNodeMetadata } from '../../../src/core/metadataKeys';
import { runPromptsCli } from '../../../src/core/promptFolder/cli';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import { schemaFilePath } from '../../../src/core/prompts/promptFile';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { outputSchemaHash } from '../../../src/core/structured/outputSchema';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';
import { tempPrompts, type TempPrompts } from './tempPrompts';

const repo = path.resolve(__dirname, '../../..');
let folder: TempPrompts | undefined;
let library: FileSystemPromptLibrary | undefined;
afterEach(async () => {
  library?.dispose();
  library = undefined;
  await folder?.remove();
  folder = undefined;
});

const schemaJson = JSON.stringify({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });

async function check(dir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runPromptsCli(['check', dir], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('prompt front matter output:', () => {
  it('reads an inline schema and retries, and hands them over with the rendered prompt', async () => {
    folder = await tempPrompts({
      'user/verdict.md': '---\ndescription: d\noutput:\n  type: object\n  properties:\n    ok:\n      type: boolean\n  required: [ok]\nretries: 1\n---\nIs {{thing}} ok?',
    });
    library = await FileSystemPromptLibrary.open(folder.dir);
    expect(library.diagnostics()).toEqual([]);
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    expect(library.getUserPrompt('verdict')?.output).toEqual({ schema, schemaHash: outputSchemaHash(schema), retries: 1 });
    const rendered = await new PromptBuilder(library).renderUserPrompt('verdict', { params: { thing: 'x' } });
    expect(rendered.content).toBe('Is x ok?');
    expect(rendered.output).toEqual({ schema, schemaHash: outputSchemaHash(schema), retries: 1 });
  });

  it('reads a .schema.json file beside the prompt (not listed as a prompt) and notices when only the schema changes', async () => {
    folder = await tempPrompts({
      'user/review/verdict.yaml': 'template: "Judge {{code}}"\noutput: verdict.schema.json\nmetadata:\n  description: d\n',
      'user/review/verdict.schema.json': schemaJson,
      'user/shared.schema.json': schemaJson,
      'user/up.md': '---\noutput: ../user/shared.schema.json\n---\nUp',
    });
    library = await FileSystemPromptLibrary.open(folder.dir);
    expect(library.diagnostics()).toEqual([]);
    expect(library.listPrompts().map((p) => p.path).sort()).toEqual(['user/review/verdict.yaml', 'user/up.md']);
    const output = library.getUserPrompt('review/verdict')?.output;
    expect(output).toMatchObject({ schemaFile: 'user/review/verdict.schema.json', schema: JSON.parse(schemaJson) });
    expect(output?.retries).toBeUndefined();
    expect(library.getUserPrompt('up')?.output?.schemaFile).toBe('user/shared.schema.json');

    await folder.write('user/review/verdict.schema.json', JSON.stringify({ type: 'array' }));
    const change = await library.reload();
    expect(change.paths).toEqual(['user/review/verdict.yaml']);
    expect(library.getUserPrompt('review/verdict')?.output?.schema).toEqual({ type: 'array' });
  });

  it('reports a missing, unreadable or invalid schema at the output: line, and the prompt still works without it', async () => {
    folder = await tempPrompts({
      'user/missing.md': '---\ndescription: d\noutput: gone.schema.json\n---\nA',
      'user/badjson.md': '---\ndescription: d\n\noutput: bad.schema.json\n---\nB',
      'user/bad.schema.json': '{"type": "object",',
      'user/badschema.md': '---\ndescription: d\noutput:\n  type: object\n  properties:\n    a:\n      type: strin\n---\nC',
      'user/escape.md': '---\noutput: ../../secrets.schema.json\n---\nD',
      'user/notschema.md': '---\noutput: schema.json\n---\nE',
      'user/list.md': '---\noutput: [1, 2]\nretries: 99\n---\nF',
      'user/lonely.md': '---\nretries: 2\n---\nG',
    });
    const r = await check(folder.dir);
    const at = (rel: string) => path.join(folder!.dir, rel);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${at('user/missing.md')}:3:9: error: output schema file "user/gone.schema.json" was not found: create it beside the prompt, or fix the path`);
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${at('user/badjson.md')}:4:9: error: output schema file "user/bad.schema.json" is not valid JSON: `)));
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${at('user/badschema.md')}:4:3: error: The output schema is not a valid JSON Schema: .*type`)));
    expect(r.out).toContain(`${at('user/escape.md')}:2:9: error: output schema file "../../secrets.schema.json" leads outside the prompts folder; keep it beside the prompt`);
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${at('user/notschema.md')}:2:9: error: output schema file "schema.json" must end in .schema.json`)));
    expect(r.out).toContainEqual(expect.stringMatching(new RegExp(`^${at('user/list.md')}:2:9: error: \`output\` must be a JSON Schema`)));
    expect(r.out).toContain(`${at('user/lonely.md')}:2:10: warning: \`retries\` applies only to a prompt with an \`output:\` schema`);
    library = await FileSystemPromptLibrary.open(folder.dir);
    expect(library.getUserPrompt('missing')?.output).toBeUndefined();
    expect((await new PromptBuilder(library).renderUserPrompt('missing')).content).toBe('A');
  });

  it('refuses a schema file that is a link leading outside the prompts folder', async () => {
    folder = await tempPrompts({ 'user/linked.md': '---\noutput: linked.schema.json\n---\nL' });
    const outside = path.join(path.dirname(folder.dir), 'outside.schema.json');
    await fs.writeFile(outside, schemaJson);
    await fs.symlink(outside, path.join(folder.dir, 'user/linked.schema.json'));
    library = await FileSystemPromptLibrary.open(folder.dir);
    expect(library.diagnostics()).toEqual([expect.objectContaining({ file: 'user/linked.md', line: 2, severity: 'error', message: expect.stringContaining('symbolic link that leads outside the prompts folder') })]);
    expect(library.getUserPrompt('linked')?.output).toBeUndefined();
  });

  it('resolves schema paths from the prompt folder and never above the prompts folder', () => {
    expect(schemaFilePath('user/a.md', 'a.schema.json')).toEqual({ path: 'user/a.schema.json' });
    expect(schemaFilePath('user/x/a.md', './../b.schema.json')).toEqual({ path: 'user/b.schema.json' });
    expect(schemaFilePath('user/a.md', '../c.schema.json')).toEqual({ path: 'c.schema.json' });
    expect(schemaFilePath('user/a.md', '/etc/c.schema.json')).toHaveProperty('problem');
    expect(schemaFilePath('user/a.md', 'C:\\c.schema.json')).toHaveProperty('problem');
  });

  it('the sample review-verdict prompt loads its schema file', async () => {
    library = await FileSystemPromptLibrary.open(path.join(repo, 'prompts'));
    expect(library.diagnostics()).toEqual([]);
    const output = library.getUserPrompt('review-verdict')?.output;
    expect(output?.schemaFile).toBe('user/review-verdict.schema.json');
    expect(output?.retries).toBe(2);
    expect(output?.schema.required).toEqual(['verdict', 'summary', 'issues']);
  });
});

describe('a prompt with output: in a conversation', () => {
  const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
  let dir: string;
  beforeAll(async () => {
    await server.start();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-prompt-output-'));
  });
  afterAll(async () => {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps the prompt output on its message, and the answer asked with it is parsed', async () => {
    library = await FileSystemPromptLibrary.open(path.join(repo, 'prompts'));
    const storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const m = await ConversationManager.create({ llm: new OllamaProvider({ host: server.url, model: 'arbor-test-model' }), storage, promptBuilder: new PromptBuilder(library) });
      const question = await m.addMessage({ role: 'user', promptName: 'review-verdict', params: { code: 'let x = 1' } });
      const output = readNodeMetadata(question.metadata, 'promptOutput');
      expect(output?.schemaHash).toBe(library.getUserPrompt('review-verdict')?.output?.schemaHash);
      const answer = '{"verdict": "approve", "summary": "Fine.", "issues": []}';
      server.enqueue({ content: answer });
      const res = await m.complete({ outputSchema: output!.schema, retries: output!.retries });
      expect(res.parsed).toEqual(JSON.parse(answer));
      expect(server.lastRequest!.responseFormat).toEqual(output!.schema);
    } finally {
      await storage.close();
    }
  });
});
