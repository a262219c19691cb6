import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder } from '../../../src/core/prompts/promptBuilder';
import type { RagAdapter, RagResultItem } from '../../../src/core/rag/ragAdapter';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';

// Nothing here calls the model.
const llm = new OllamaProvider({ host: 'http://127.0.0.1:9', model: 'unused' });

/** A small in-memory retrieval source that counts its searches. */
class NotesAdapter implements RagAdapter {
  searches: string[] = [];
  async search(query: string, k: number): Promise<RagResultItem[]> {
    this.searches.push(query);
    return [{ content: `note about ${query}`, score: 1, path: 'notes.md', startLine: 1, endLine: 1 }].slice(0, k);
  }
}

let dir: string;
let storage: SqlJsConversationStorage;
let library: FileSystemPromptLibrary;
let notes: NotesAdapter;
let builder: PromptBuilder;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-manager-prompts-'));
  await mkdir(path.join(dir, 'prompts', 'system'), { recursive: true });
  await mkdir(path.join(dir, 'prompts', 'user'), { recursive: true });
  await writeFile(path.join(dir, 'prompts', 'system', 'helper.md'), '---\nparams:\n  project:\n    required: true\n---\nYou help with {{project}}.\n');
  await writeFile(
    path.join(dir, 'prompts', 'user', 'ask.md'),
    '---\nparams:\n  question:\n    required: true\nrag:\n  - adapter: notes\n    query: "{{question}}"\n    k: 1\n    placeholder: NOTES\n---\n{{question}}\n\nContext: {{NOTES}}\n',
  );
  library = await FileSystemPromptLibrary.open(path.join(dir, 'prompts'));
  notes = new NotesAdapter();
  builder = new PromptBuilder(library, { adapters: { notes }, now: () => new Date(2030, 4, 6, 12, 0, 0) });
  storage = await SqlJsConversationStorage.open();
});

afterEach(async () => {
  library.dispose();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ConversationManager with the real PromptBuilder', () => {
  it('renders a named system prompt into the root and records which file version made it', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder, systemPromptName: 'helper', systemParams: { project: 'Arbor' } });
    const root = m.getNode('');
    expect(root.message.content.trim()).toBe('You help with Arbor.');
    expect(root.promptName).toBe('helper');
    const bytes = await readFile(path.join(dir, 'prompts', 'system', 'helper.md'));
    expect(root.metadata.prompt).toMatchObject({ name: 'helper', path: 'system/helper.md', sha256: createHash('sha256').update(bytes).digest('hex') });
    expect((root.metadata.prompt as { gitBlobId: string }).gitBlobId).toMatch(/^[0-9a-f]{40}$/);
  });

  it('renders inline system and user text, so {{current_date}} resolves; other roles and raw text are stored as given', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder, systemPrompt: 'Today is {{current_date}}.' });
    expect(m.getNode('').message.content).toBe('Today is 2030-05-06.');
    const user = await m.addMessage({ role: 'user', content: 'Due {{current_date}}? {{who}}', params: { who: 'me' } });
    expect(user.message.content).toBe('Due 2030-05-06? me');
    expect(user.promptName).toBeUndefined();
    expect(user.metadata.prompt).toBeUndefined();
    const bot = await m.addMessage({ role: 'assistant', content: 'Literal {{current_date}}' });
    expect(bot.message.content).toBe('Literal {{current_date}}');
    const raw = await m.addMessage({ role: 'user', content: '<div>{{ vue }}</div>', raw: true });
    expect(raw.message.content).toBe('<div>{{ vue }}</div>');
  });

  it('renders a named user prompt with its retrieval and, with cacheRagResults, stores what was found', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder, cacheRagResults: true });
    const node = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'ids' } });
    expect(node.promptName).toBe('ask');
    expect(node.message.content).toContain('note about ids');
    expect(node.message.content.startsWith('ids\n\nContext: ')).toBe(true);
    expect(node.metadata.prompt).toMatchObject({ name: 'ask', path: 'user/ask.md' });
    const rag = m.getRagMetadata();
    expect(rag?.NOTES).toMatchObject({ placeholder: 'NOTES', adapter: 'notes', query: 'ids', k: 1 });
    expect(rag?.NOTES.results[0].content).toBe('note about ids');
    expect(m.getRagMetadata('')).toBeUndefined();
    expect(notes.searches).toEqual(['ids']);
  });

  it('with reuseRagOnBranch, a sibling made by the same prompt reuses the stored retrieval instead of searching', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder, cacheRagResults: true, reuseRagOnBranch: true });
    const first = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'ids' } });
    await m.branchFrom(first.nodeId);
    const sibling = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'ids' } });
    expect(sibling.parentId).toBe(first.parentId);
    expect(sibling.nodeId).not.toBe(first.nodeId);
    expect(notes.searches).toEqual(['ids']);
    expect(sibling.message.content).toBe(first.message.content);
    expect(m.getRagMetadata(sibling.nodeId)?.NOTES.queryHash).toBe(m.getRagMetadata(first.nodeId)?.NOTES.queryHash);
    expect(m.getRagMetadata(sibling.nodeId)?.NOTES.queryHash).toEqual(expect.any(String));
    // A different question has a different query hash: it searches.
    await m.branchFrom(sibling.nodeId);
    await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'tombstones' } });
    expect(notes.searches).toEqual(['ids', 'tombstones']);
  });

  it('without reuseRagOnBranch every message searches again', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder, cacheRagResults: true });
    const first = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'ids' } });
    await m.branchFrom(first.nodeId);
    const second = await m.addMessage({ role: 'user', promptName: 'ask', params: { question: 'ids' } });
    expect(second.parentId).toBe(first.parentId);
    expect(notes.searches).toEqual(['ids', 'ids']);
  });

  it('reports an unknown prompt without adding a node', async () => {
    const m = await ConversationManager.create({ llm, storage, promptBuilder: builder });
    await expect(m.addMessage({ role: 'user', promptName: 'nope' })).rejects.toThrow(/no user prompt named "nope"/);
    expect(m.getAllNodes()).toHaveLength(1);
  });
});
