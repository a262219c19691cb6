/**
 * Every public entry point checks its arguments and answers a bad one with an
 * `InvalidArgumentError` that names it, before anything is stored: no raw TypeError or
 * DataCloneError, no conversation saved that could never be opened, no string changed on write.
 */
import { describe, expect, it } from 'vitest';
import { ConversationManager, InvalidArgumentError, SqlJsConversationStorage, type ConversationState, type LLMProvider } from '../../../src/core/index';

const llm = { name: 'none' } as unknown as LLMProvider;
const at = '2026-01-01T00:00:00.000Z';

function state(overrides: Partial<ConversationState> = {}): ConversationState {
  return {
    conversationId: 'c',
    nodes: [
      { nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: at, metadata: {} },
      { nodeId: 'n1', parentId: '', position: 1, message: { role: 'user', content: 'hi' }, timestamp: at, metadata: {} },
    ],
    currentNodeId: 'n1',
    metadata: {},
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('argument checks', () => {
  it('the store refuses states that could not be resumed, and saves none of them', async () => {
    const storage = await SqlJsConversationStorage.open();
    const bad: Array<[string, ConversationState, RegExp]> = [
      ['a dot-path id', state({ nodes: [state().nodes[0], { ...state().nodes[1], nodeId: '0.1' }], currentNodeId: '' }), /not a node id of this store/],
      ['a missing parent', state({ nodes: [state().nodes[0], { ...state().nodes[1], parentId: 'n7' }] }), /no parent "n7"/],
      ['no root', state({ nodes: [{ ...state().nodes[1], parentId: null }] }), /only the root/],
      ['a current node that is not there', state({ currentNodeId: 'n9' }), /currentNodeId "n9"/],
      ['a role that does not exist', state({ nodes: [state().nodes[0], { ...state().nodes[1], message: { role: 'hacker' as never, content: 'x' } }] }), /role must be one of/],
      ['a conversation id with half a surrogate pair', state({ conversationId: 'c\uD800' }), /surrogate/],
    ];
    for (const [what, s, message] of bad) {
      const error = await rejection(storage.saveConversation(s));
      expect(error, what).toBeInstanceOf(InvalidArgumentError);
      expect(error.message, what).toMatch(message);
    }
    expect(await storage.countConversations()).toBe(0);
    const searchError = await rejection(storage.searchMessages(null as never));
    expect(searchError).toBeInstanceOf(InvalidArgumentError);
    expect(searchError.message).toMatch(/^query must be a string/);
    await storage.close();
  });

  it('the manager refuses bad messages, names and metadata by name, and stores nothing of them', async () => {
    const storage = await SqlJsConversationStorage.open();
    const m = await ConversationManager.create({ llm, storage });
    const cases: Array<[string, Promise<unknown>, RegExp]> = [
      ['role "hacker"', m.addMessage({ role: 'hacker' as never, content: 'x' }), /^role must be one of/],
      ['numeric content', m.addMessage({ role: 'user', content: 12345 as never }), /^content must be a string; got number 12345/],
      ['null content', m.addMessage({ role: 'user', content: null as never }), /^content must be a string; got null/],
      ['a function in metadata', m.addMessage({ role: 'user', content: 'x', metadata: { run: () => 1 } }), /^metadata\.run cannot be stored: it is a function/],
      ['a cycle in metadata', m.setMetadata('loop', (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })()), /refers back to itself/],
      ['a number as a branch name', m.renameBranch('', 42 as never), /^name must be a string; got number 42/],
      ['a node id that is not a string', m.switchToNode(7 as never), /^nodeId must be a string/],
    ];
    for (const [what, promise, message] of cases) {
      const error = await rejection(promise);
      expect(error, what).toBeInstanceOf(InvalidArgumentError);
      expect(error.message, what).toMatch(message);
    }
    expect(m.nodeCount).toBe(1);
    expect((await storage.loadConversation(m.conversationId))?.nodes).toHaveLength(1);
    await storage.close();
  });

  it('keeps names with whole surrogate pairs exactly, and refuses half pairs instead of changing them', async () => {
    const storage = await SqlJsConversationStorage.open();
    const m = await ConversationManager.create({ llm, storage, conversationId: 'trees 🌳' });
    const q = await m.addMessage({ role: 'user', content: 'q' });
    await m.renameBranch(q.nodeId, 'oak 🌳 branch');
    expect((await storage.loadConversation('trees 🌳'))?.nodes[1].branchName).toBe('oak 🌳 branch');
    const error = await rejection(m.renameBranch(q.nodeId, 'oak \uDC00'));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(m.getNode(q.nodeId).branchName).toBe('oak 🌳 branch');
    await expect(ConversationManager.create({ llm, storage, conversationId: '\uD83Cx' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });
});
