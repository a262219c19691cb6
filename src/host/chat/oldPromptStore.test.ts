/**
 * A store written by the release before prompt messages kept their form's values (fixture from commit
 * bca0a68, see test/fixtures/storeBeforePromptParams/generate.ts): its `/review` message opens with its
 * version and rendered text, no values, a title other than "/review", and Edit (the form started from
 * the prompt's defaults, filled again) renders the prompt anew beside it.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, FileSystemPromptLibrary, PromptBuilder, ROOT_NODE_ID, SqlJsConversationStorage, type LLMProvider } from '../../core/index';
import { messageView, promptSummaries } from './chatView';
import { chatTitle } from '../conversations/conversationRules';
import { promptVersionLookup } from '../conversations/promptMessages';
import { addPromptMessages, type PromptSendContext } from '../prompts/promptSend';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/storeBeforePromptParams');
const llm = { name: 'none' } as unknown as LLMProvider;

let dir: string;
let storage: SqlJsConversationStorage | undefined;
let library: FileSystemPromptLibrary | undefined;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-old-prompt-store-'));
  await fs.cp(FIXTURE, dir, { recursive: true });
});
afterEach(async () => {
  await storage?.close();
  storage = undefined;
  library?.dispose();
  library = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

async function open(): Promise<{ manager: ConversationManager; context: PromptSendContext }> {
  library = await FileSystemPromptLibrary.open(path.join(dir, 'prompts'), { watch: false });
  const builder = new PromptBuilder(library);
  storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
  const manager = await ConversationManager.resume('conv-prompt', { llm, storage, promptBuilder: builder, cacheRagResults: true });
  const lib = library;
  return { manager, context: { trusted: true, editorValues: () => ({}), promptLibrary: async () => lib, promptBuilder: async () => builder } };
}

describe('a prompt message stored before Arbor kept its values', () => {
  it('shows its version and rendered text, without values, and the chat is not titled "/review"', async () => {
    const { manager } = await open();
    const sent = manager.getChildren(ROOT_NODE_ID)[0];
    const view = messageView(sent, [sent.nodeId], promptVersionLookup(library));
    expect(view.prompt).toMatchObject({ name: 'review', kind: 'user', path: 'user/review.md', status: 'current', text: '' });
    expect(view.prompt?.params).toBeUndefined();
    expect(view.prompt?.rendered).toContain('subtotalCents(lines)');
    expect(view.prompt?.gitBlobId).toBe(library?.getUserPrompt('review')?.gitBlobId);
    expect(manager.getMetadata('title')).toBe('/review');
    expect(chatTitle(manager.getMetadata() as Record<string, unknown>, manager.getChildren(ROOT_NODE_ID))).toBe('review');
  });

  it('is edited through its form: the prompt renders again with the new values, as a sibling that keeps them', async () => {
    const { manager, context } = await open();
    const sent = manager.getChildren(ROOT_NODE_ID)[0];
    // The form Edit opens: no stored values, so the prompt's own fields with their defaults (none for `code`).
    const form = promptSummaries(library!.listPrompts()).find((p) => p.name === 'review');
    expect(form?.params.map((p) => [p.name, p.required, p.default])).toEqual([['code', true, undefined]]);

    await manager.branchFrom(sent.nodeId);
    await addPromptMessages(context, manager, { promptName: 'review', kind: 'user', text: 'mind the rounding', params: { code: 'totalCents(cart)' }, attachments: [] });
    const siblings = manager.getChildren(ROOT_NODE_ID);
    expect(siblings).toHaveLength(2);
    const edited = manager.getNode(manager.currentNodeId);
    expect(edited.message.content).toContain('totalCents(cart)');
    const view = messageView(edited, siblings.map((n) => n.nodeId), promptVersionLookup(library));
    expect(view.prompt).toMatchObject({ name: 'review', params: { code: 'totalCents(cart)' }, text: 'mind the rounding', status: 'current' });
    expect(view.siblings).toMatchObject({ index: 2, count: 2 });
    // The old message is as it was; the conversation keeps the title it had.
    expect(manager.getNode(sent.nodeId).message.content).toContain('subtotalCents(lines)');
    expect(manager.getMetadata('title')).toBe('/review');

    // Written to the store: a fresh open finds the values.
    await storage?.close();
    storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
    const again = await ConversationManager.resume('conv-prompt', { llm, storage });
    expect(again.getNode(edited.nodeId).metadata.promptParams).toEqual({ code: 'totalCents(cart)' });
  });
});
