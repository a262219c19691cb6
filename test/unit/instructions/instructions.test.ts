import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { applicableInstructions, renderInstructions } from '../../../src/core/instructions/applicability';
import { filesInPlay } from '../../../src/core/instructions/filesInPlay';
import { InstructionCatalog } from '../../../src/core/instructions/instructionCatalog';
import { INSTRUCTION_KINDS, parseInstructionFile, type InstructionFile } from '../../../src/core/instructions/instructionFile';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import { nodeFiles } from '../../../src/core/nodeFiles';
import { gitBlobId } from '../../../src/core/hashes';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import type { ConversationNode } from '../../../src/core/types';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const bytes = (s: string) => new TextEncoder().encode(s);
let root: string;

async function put(rel: string, text: string): Promise<void> {
  const abs = path.join(root, ...rel.split('/'));
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, text);
}

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'arbor-instructions-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('parseInstructionFile', () => {
  it('reads applyTo as a comma-separated string or a list, and keeps only the body', () => {
    const a = parseInstructionFile('copilotInstructions', '.github/instructions/ts.instructions.md', bytes('---\napplyTo: "**/*.ts, src/**/*.tsx"\ndescription: TS\n---\nUse strict types.\n'));
    expect(a).toMatchObject({ globs: ['**/*.ts', 'src/**/*.tsx'], description: 'TS', body: 'Use strict types.' });
    expect(a.problem).toBeUndefined();
    const b = parseInstructionFile('copilotInstructions', 'x.instructions.md', bytes('---\napplyTo:\n  - "*.py"\n  - docs/**\n---\nbody'));
    expect(b.globs).toEqual(['*.py', 'docs/**']);
  });

  it("reads Cursor's and Continue's globs and alwaysApply, and Continue's name as the description", () => {
    const c = parseInstructionFile('cursor', '.cursor/rules/x.mdc', bytes('---\ndescription: Style\nglobs: src/*.ts,*.md\nalwaysApply: false\n---\n\nRule text\n'));
    expect(c).toMatchObject({ globs: ['src/*.ts', '*.md'], alwaysApply: false, description: 'Style', body: 'Rule text' });
    const d = parseInstructionFile('continue', '.continue/rules/a.md', bytes('---\nname: Always tests\nalwaysApply: true\n---\nWrite tests.'));
    expect(d).toMatchObject({ alwaysApply: true, description: 'Always tests', body: 'Write tests.' });
  });

  it('records the git blob id of the bytes and leaves AGENTS.md text as it is (no front matter read)', () => {
    const text = '---\nnot: front matter for AGENTS.md\n---\nHello';
    const f = parseInstructionFile('agents', 'AGENTS.md', bytes(text));
    expect(f.gitBlobId).toBe(gitBlobId(bytes(text)));
    expect(f.body).toBe(text);
  });

  it('says what is wrong with bad front matter, with the fix', () => {
    expect(parseInstructionFile('cursor', 'r.mdc', bytes('---\nglobs: [unclosed\n---\nx')).problem).toMatch(/not valid YAML/);
    expect(parseInstructionFile('cursor', 'r.mdc', bytes('---\nalwaysApply: "true"\n---\nx')).problem).toMatch(/alwaysApply` must be true or false/);
    expect(parseInstructionFile('cursor', 'r.mdc', bytes('---\nglobs: 3\n---\nx')).problem).toMatch(/globs` must be a glob/);
    expect(parseInstructionFile('continue', 'r.md', bytes('---\nname: x\n')).problem).toMatch(/never closed/);
  });
});

describe('applicableInstructions', () => {
  const file = (kind: InstructionFile['kind'], p: string, extra: Partial<InstructionFile> = {}): InstructionFile => ({ kind, path: p, body: `text of ${p}`, gitBlobId: 'b', ...extra });
  const files: InstructionFile[] = [
    file('agents', 'AGENTS.md'),
    file('agents', 'src/AGENTS.md'),
    file('agents', 'src/deep/AGENTS.md'),
    file('agents', 'other/AGENTS.md'),
    file('claude', 'CLAUDE.md'),
    file('copilot', '.github/copilot-instructions.md'),
    file('copilotInstructions', '.github/instructions/ts.instructions.md', { globs: ['**/*.ts'] }),
    file('copilotInstructions', '.github/instructions/all.instructions.md', { globs: ['**'] }),
    file('copilotInstructions', '.github/instructions/none.instructions.md'),
    file('cursor', '.cursor/rules/always.mdc', { alwaysApply: true }),
    file('cursor', '.cursor/rules/md.mdc', { globs: ['*.md'] }),
    file('cursor', '.cursor/rules/agent.mdc', { description: 'only when asked' }),
    file('continue', '.continue/rules/plain.md'),
    file('continue', '.continue/rules/py.md', { globs: ['**/*.py'], alwaysApply: false }),
  ];
  const paths = (r: ReturnType<typeof applicableInstructions>) => r.applied.map((a) => a.file.path);

  it('with no files in play: the repository-wide files and the rules that always apply', () => {
    expect(paths(applicableInstructions(files, [], INSTRUCTION_KINDS))).toEqual([
      'AGENTS.md',
      'CLAUDE.md',
      '.github/copilot-instructions.md',
      '.continue/rules/plain.md',
      '.cursor/rules/always.mdc',
      '.github/instructions/all.instructions.md',
    ]);
  });

  it('a .ts file in play adds the nearest nested AGENTS.md above it and the rules whose globs match it', () => {
    const r = applicableInstructions(files, ['src/deep/x.ts'], INSTRUCTION_KINDS);
    expect(paths(r)).toContain('src/deep/AGENTS.md');
    expect(paths(r)).not.toContain('src/AGENTS.md');
    expect(paths(r)).not.toContain('other/AGENTS.md');
    expect(r.applied.find((a) => a.file.path === '.github/instructions/ts.instructions.md')).toMatchObject({ reason: 'glob', matched: 'src/deep/x.ts' });
    expect(paths(r)).not.toContain('.cursor/rules/md.mdc');
    expect(paths(r)).not.toContain('.cursor/rules/agent.mdc');
    expect(paths(r)).not.toContain('.github/instructions/none.instructions.md');
    expect(paths(r)).not.toContain('.continue/rules/py.md');
  });

  it('a glob without a slash matches the file name in any folder', () => {
    expect(paths(applicableInstructions(files, ['docs/guide/a.md'], INSTRUCTION_KINDS))).toContain('.cursor/rules/md.mdc');
  });

  it('reads only the enabled kinds, and sets excluded paths apart', () => {
    const r = applicableInstructions(files, ['src/a.ts'], ['agents', 'cursor'], ['AGENTS.md']);
    expect(paths(r)).toEqual(['src/AGENTS.md', '.cursor/rules/always.mdc']);
    expect(r.excluded.map((a) => a.file.path)).toEqual(['AGENTS.md']);
    // The excluded file keeps its place in the one list, so its chip does not move when turned off.
    expect(r.all.map((a) => a.file.path)).toEqual(['AGENTS.md', 'src/AGENTS.md', '.cursor/rules/always.mdc']);
  });

  it('ignores paths that leave the workspace and files with no text', () => {
    const r = applicableInstructions([...files, file('cursor', '.cursor/rules/empty.mdc', { alwaysApply: true, body: '' })], ['../outside/x.ts'], ['copilotInstructions', 'cursor']);
    expect(paths(r)).toEqual(['.cursor/rules/always.mdc', '.github/instructions/all.instructions.md']);
  });

  it('renders each file under a header naming it', () => {
    const text = renderInstructions(applicableInstructions(files, [], ['agents', 'copilot']).applied);
    expect(text).toMatch(/## Instructions from AGENTS\.md\n\ntext of AGENTS\.md/);
    expect(text).toMatch(/## Instructions from \.github\/copilot-instructions\.md\n\ntext of \.github\/copilot-instructions\.md/);
    expect(text!.indexOf('AGENTS.md')).toBeLessThan(text!.indexOf('copilot-instructions'));
    expect(renderInstructions([])).toBeUndefined();
  });
});

describe('InstructionCatalog', () => {
  const catalog = (problems: string[] = []) => new InstructionCatalog({ files: nodeFiles, root, onProblem: (m) => problems.push(m), maxBytes: 1000 });

  it('finds the root and nested AGENTS.md above the files in play, the rule folders, and Copilot’s file', async () => {
    await put('AGENTS.md', 'root agents');
    await put('src/lib/AGENTS.md', 'lib agents');
    await put('unrelated/AGENTS.md', 'not above anything');
    await put('CLAUDE.md', 'claude');
    await put('.github/copilot-instructions.md', 'copilot');
    await put('.github/instructions/ts.instructions.md', '---\napplyTo: "**/*.ts"\n---\nts rules');
    await put('.github/instructions/nested/py.instructions.md', '---\napplyTo: "**/*.py"\n---\npy rules');
    await put('.github/instructions/readme.md', 'not an instructions file');
    await put('.cursor/rules/x.mdc', '---\nalwaysApply: true\n---\ncursor rule');
    await put('.continue/rules/c.md', 'continue rule');
    const found = await catalog().collect(['src/lib/a.ts'], INSTRUCTION_KINDS);
    expect(found.map((f) => f.path).sort()).toEqual(
      [
        'AGENTS.md',
        'src/lib/AGENTS.md',
        'CLAUDE.md',
        '.github/copilot-instructions.md',
        '.github/instructions/ts.instructions.md',
        '.github/instructions/nested/py.instructions.md',
        '.cursor/rules/x.mdc',
        '.continue/rules/c.md',
      ].sort(),
    );
    expect(found.find((f) => f.path === '.cursor/rules/x.mdc')).toMatchObject({ kind: 'cursor', alwaysApply: true, body: 'cursor rule' });
    const only = await catalog().collect(['src/lib/a.ts'], ['cursor']);
    expect(only.map((f) => f.path)).toEqual(['.cursor/rules/x.mdc']);
  });

  it('keeps what it read until told that a file changed, and lists a rule folder again when it changes', async () => {
    await put('AGENTS.md', 'v1');
    const c = catalog();
    expect((await c.collect([], ['agents', 'cursor'])).map((f) => f.body)).toEqual(['v1']);
    await put('AGENTS.md', 'v2');
    await put('.cursor/rules/new.mdc', 'new rule');
    // Cached: no change reported yet.
    expect((await c.collect([], ['agents', 'cursor'])).map((f) => f.body)).toEqual(['v1']);
    c.changed('AGENTS.md');
    c.changed('.cursor/rules/new.mdc');
    expect((await c.collect([], ['agents', 'cursor'])).map((f) => f.body)).toEqual(['v2', 'new rule']);
    await rm(path.join(root, '.cursor'), { recursive: true });
    c.changed('.cursor');
    expect((await c.collect([], ['agents', 'cursor'])).map((f) => f.body)).toEqual(['v2']);
  });

  it('never follows a symbolic link, never walks out of the workspace, and reports files too big to send', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'arbor-instructions-outside-'));
    try {
      await writeFile(path.join(outside, 'AGENTS.md'), 'secret from outside');
      await symlink(path.join(outside, 'AGENTS.md'), path.join(root, 'AGENTS.md'));
      await put('big/CLAUDE.md', 'x'.repeat(2000));
      const problems: string[] = [];
      const found = await catalog(problems).collect(['../x.ts', 'big/a.ts'], INSTRUCTION_KINDS);
      expect(found).toEqual([]);
      expect(problems.join('\n')).toMatch(/big\/CLAUDE\.md is 2 KiB, more than the 1 KiB/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

describe('filesInPlay', () => {
  const node = (role: 'user' | 'assistant', metadata: Record<string, unknown>): ConversationNode =>
    ({ nodeId: role, parentId: '', message: { role, content: '' }, metadata, timestamp: '' }) as unknown as ConversationNode;

  it('takes attachments and retrieved files of user messages, then the draft’s', () => {
    const user = node('user', {
      attachments: [{ kind: 'file', path: 'src/a.ts' }, { kind: 'selection', path: 'src/b.ts', startLine: 1, endLine: 2 }],
      ragMetadata: { RAG: { placeholder: 'RAG', adapter: 'w', query: 'q', queryHash: 'h', k: 1, formattedContent: '', timestamp: '', results: [{ content: '', score: 1, path: 'docs/c.md' }, { content: '', score: 1 }] } },
    });
    const answer = node('assistant', { attachments: [{ kind: 'file', path: 'not/counted.ts' }] });
    expect(filesInPlay([user, answer], ['src/a.ts', 'draft.py'])).toEqual(['src/a.ts', 'src/b.ts', 'docs/c.md', 'draft.py']);
  });
});

describe('instructions in a request', () => {
  const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
  let storage: SqlJsConversationStorage;
  let openai: OpenAIProvider;
  beforeAll(async () => {
    await server.start();
    openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 });
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.reset();
    storage = await SqlJsConversationStorage.open(path.join(root, 'store.db'));
  });
  afterEach(() => storage.close());
  const sent = () => server.chatRequests().at(-1)?.body.messages as Array<{ role: string; content: string }>;

  it('go into the system message right after the system prompt, for that call only', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'q' });
    await m.complete({ systemPromptOverride: 'PROMPT', instructions: 'INSTRUCTIONS' });
    expect(sent()[0]).toEqual({ role: 'system', content: 'PROMPT\n\nINSTRUCTIONS' });
    await m.addMessage({ role: 'user', content: 'again' });
    for await (const _ of m.streamComplete({ instructions: 'ONLY' })) void _;
    expect(sent()[0]).toEqual({ role: 'system', content: 'ONLY' });
    await m.addMessage({ role: 'user', content: 'third' });
    await m.complete({ systemPromptOverride: 'PROMPT' });
    expect(sent()[0]).toEqual({ role: 'system', content: 'PROMPT' });
  });

  it('are counted as their own part of the context', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'q' });
    const without = m.getContextUsage({ systemOverride: 'PROMPT' });
    const withThem = m.getContextUsage({ systemOverride: 'PROMPT', instructions: 'x'.repeat(400) });
    expect(without.parts.instructions).toBe(0);
    expect(withThem.parts.instructions).toBeGreaterThanOrEqual(100);
    expect(withThem.parts.system).toBeGreaterThan(0);
    expect(withThem.used).toBe(withThem.parts.system + withThem.parts.instructions + withThem.parts.history);
    expect(withThem.used).toBeGreaterThan(without.used + 90);
  });
});

describe('instruction metadata keys', () => {
  it('reads the instruction files an answer recorded and the chat’s excluded paths, leaving out what does not fit', async () => {
    const { readNodeMetadata, readConversationMetadata } = await import('../../../src/core/metadataKeys');
    const refs = readNodeMetadata({ instructions: [{ path: 'AGENTS.md', kind: 'agents', gitBlobId: 'abc', excluded: true }, { path: 3 }, { path: 'x', kind: 'cursor', gitBlobId: 'd', excluded: 'no' }] }, 'instructions');
    expect(refs).toEqual([{ path: 'AGENTS.md', kind: 'agents', gitBlobId: 'abc', excluded: true }, { path: 'x', kind: 'cursor', gitBlobId: 'd' }]);
    expect(readConversationMetadata({ excludedInstructions: ['a', 2, 'b'] }, 'excludedInstructions')).toEqual(['a', 'b']);
  });
});
