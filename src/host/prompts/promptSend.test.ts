import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, FileSystemPromptLibrary, PromptBuilder, SqlJsConversationStorage, type LLMProvider } from '../../core/index';
import { addPromptMessages, type PromptSendContext } from './promptSend';

const REPO = path.resolve(__dirname, '../../..');
const llm = { name: 'none' } as unknown as LLMProvider;

let dir: string;
let storage: SqlJsConversationStorage;
let library: FileSystemPromptLibrary;
let manager: ConversationManager;
let context: PromptSendContext;

/** The repository's sample prompts and the sample workspace's, read as they are, and a real store in a temp folder. */
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-prompt-send-'));
  await fs.cp(path.join(REPO, 'prompts'), path.join(dir, 'prompts'), { recursive: true });
  await fs.cp(path.join(REPO, 'sample-workspace/prompts'), path.join(dir, 'prompts'), { recursive: true, force: false });
  library = await FileSystemPromptLibrary.open(path.join(dir, 'prompts'), { watch: false });
  const builder = new PromptBuilder(library);
  storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
  manager = await ConversationManager.create({ llm, storage, promptBuilder: builder });
  context = { trusted: true, editorValues: () => ({ selection: '', file: '', language: '' }), promptLibrary: async () => library, promptBuilder: async () => builder };
});
afterEach(async () => {
  await storage.close();
  library.dispose();
  await fs.rm(dir, { recursive: true, force: true });
});

const roles = () => manager.getHistory().map((m) => m.role);

describe('addPromptMessages', () => {
  it('renders a / prompt into one message that keeps the filled values, and titles the chat by them', async () => {
    await addPromptMessages(context, manager, { promptName: 'test-cases', kind: 'user', text: '', params: { code: 'formatCents(n)', framework: '' }, attachments: [] });
    const node = manager.getNode(manager.currentNodeId);
    expect(node.message.content).toContain('then write them for vitest');
    // The empty field fell back to its default and is not stored as a value the user gave.
    expect(node.metadata).toMatchObject({ displayText: '/test-cases', promptParams: { code: 'formatCents(n)' }, prompt: { name: 'test-cases', path: 'user/test-cases.md' } });
    expect(manager.getMetadata('title')).toBe('formatCents(n)');
  });

  it('titles the chat by the prompt\'s description when every field was left at its default and nothing typed', async () => {
    // The form sends its prefilled defaults as values; they do not name the conversation.
    await addPromptMessages(context, manager, { promptName: 'explain-code', kind: 'user', text: '', params: { code: '// select some code first', language: 'text' }, attachments: [] });
    expect(manager.getNode(manager.currentNodeId).metadata.promptParams).toEqual({ code: '// select some code first', language: 'text' });
    expect(manager.getMetadata('title')).toBe('Explain a piece of code, step by step.');
  });

  it('puts a few-shot prompt\'s messages on the path, then the typed text as the user\'s message', async () => {
    await addPromptMessages(context, manager, { promptName: 'few-shot-naming', kind: 'messages', text: 'function that sums a cart', params: { language: 'go' }, attachments: [] });
    expect(roles()).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    const history = manager.getHistory();
    expect(history[0].content).toBe('You suggest clear go names. Reply with three names, one per line.');
    expect(history.at(-1)?.content).toBe('function that sums a cart');
    const nodes = manager.getPathIds().map((id) => manager.getNode(id));
    expect(nodes.filter((n) => (n.metadata.prompt as { name?: string } | undefined)?.name === 'few-shot-naming')).toHaveLength(5);
    expect(nodes.at(-1)?.metadata.prompt).toBeUndefined();
    expect(manager.getMetadata('title')).toBe('function that sums a cart');
  });

  it('refuses a few-shot prompt with nothing typed, before adding anything, saying what to do', async () => {
    const before = manager.getPathIds().length;
    await expect(addPromptMessages(context, manager, { promptName: 'few-shot-naming', kind: 'messages', text: ' ', params: {}, attachments: [] })).rejects.toThrow(
      'Type what to ask with /few-shot-naming',
    );
    expect(manager.getPathIds()).toHaveLength(before);
  });
});
