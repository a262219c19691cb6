import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromContinueSession } from '../../../../src/core/conversation/imports/continueSession';
import { copilotSessionTitle, fromCopilotChatSession } from '../../../../src/core/conversation/imports/copilotChat';
import { InvalidArgumentError, ROOT_NODE_ID } from '../../../../src/core/index';
import { fixture, openStore } from './importStore';

const FILE_TIME = '2024-06-10T08:00:00.000Z';

describe('Continue session', () => {
  it('reads each message in order: context items after the typed text, thinking on the answer, tool call and result paired', async () => {
    const dict = fromContinueSession(await fixture('continue-session.json'), { time: FILE_TIME });
    expect(dict.conversation_id).toBe('3f0c9a1e-5b7d-4c2a-9e8f-1d2c3b4a5f60');
    expect(dict.metadata).toEqual({
      title: 'Debounce in the search box',
      importedFrom: { format: 'continue', id: '3f0c9a1e-5b7d-4c2a-9e8f-1d2c3b4a5f60', workspaceDirectory: 'file:///home/dev/shop', model: 'Llama 3.1 8B' },
    });
    const [root, question, answer, second, call, result, last] = dict.nodes;
    expect(root.message).toEqual({ role: 'system', content: '' });
    expect(question.message.content).toBe(
      'What does debounce do in this file?\n\nsearch.ts (src/search.ts):\n````\n```ts src/search.ts\nexport const onInput = debounce(runSearch, 300);\n```\n````',
    );
    expect(question.metadata.displayText).toBe('What does debounce do in this file?');
    expect((question.metadata.importedFrom as any).contextItems).toEqual([
      { name: 'search.ts', description: 'src/search.ts', uri: 'file:///home/dev/shop/src/search.ts', provider: 'file' },
    ]);
    expect(answer.message).toEqual({ role: 'assistant', content: 'It waits until typing pauses for 300 ms before searching.', thinking: 'The call wraps runSearch with a 300 ms delay.' });
    expect(second.message.content).toBe('Read the file and tell me the delay constant.');
    expect(call.message.tool_calls).toEqual([{ id: 'call_k2Jd8Qw', name: 'read_file', parameters: {}, arguments: '{"filepath":"src/search.ts"}' }]);
    expect(result.message).toEqual({ role: 'tool', content: 'export const onInput = debounce(runSearch, 300);', tool_call_id: 'call_k2Jd8Qw' });
    expect(last.message.content).toBe('The delay is the literal 300 (milliseconds).');
    expect(dict.current_node_id).toBe(last.node_id);
    // Continue writes no times into a session: every message has the file's.
    expect(new Set(dict.nodes.map((n) => n.timestamp))).toEqual(new Set([FILE_TIME]));
  });

  it('keeps a data-URL image as an image and names a role it does not know', () => {
    const dict = fromContinueSession({
      sessionId: 's',
      title: 't',
      workspaceDirectory: '',
      history: [{ message: { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'imageUrl', imageUrl: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }, contextItems: [] }],
    });
    expect(dict.nodes[1].message).toEqual({ role: 'user', content: 'What is this?', images: ['data:image/png;base64,iVBORw0KGgo='] });
    const bad = { sessionId: 's', history: [{ message: { role: 'user', content: 'a' } }, { message: { role: 'narrator', content: 'b' } }] };
    expect(() => fromContinueSession(bad)).toThrow(InvalidArgumentError);
    expect(() => fromContinueSession(bad)).toThrow(/History item 1 of Continue session "s" has role "narrator"/);
    expect(() => fromContinueSession({ sessionId: 's', history: [{ contextItems: [] }] })).toThrow(/History item 0 .* has no "message"/);
  });
});

describe('Copilot Chat session', () => {
  it('reads each request as a question and its answer, with references, tools, edits, thinking and models', async () => {
    const dict = fromCopilotChatSession(await fixture('copilot-chat-session.json'));
    expect(dict.conversation_id).toBe('0d6e1f2a-3b4c-4d5e-8f70-8192a3b4c5d6');
    expect(dict.metadata).toEqual({ title: 'How do I debounce the search input? #file:search.ts', importedFrom: { format: 'copilot', id: '0d6e1f2a-3b4c-4d5e-8f70-8192a3b4c5d6', responder: 'GitHub Copilot' } });
    const [, q1, a1, q2, a2] = dict.nodes;
    expect(q1.message.content).toBe('How do I debounce the search input? #file:search.ts');
    expect(q1.metadata.importedFrom).toEqual({ format: 'copilot', id: 'request_8c1f2e3d-0001-4000-8000-000000000001', variables: ['search.ts'] });
    expect(a1.message.content).toBe('Wrap the handler in `debounce.ts` and call it on every keystroke:\n\n```ts\nexport const onInput = debounce(runSearch, 300);\n```');
    expect(a1.metadata.model).toBe('copilot/gpt-4.1');
    expect(q1.timestamp).toBe(new Date(1718100000000).toISOString());
    // The answer is dated when it finished: the request's time plus its total elapsed time.
    expect(a1.timestamp).toBe(new Date(1718100002450).toISOString());
    expect(q2.message.content).toBe('Add a test for the debounce');
    expect(a2.message.thinking).toBe('A fake timer lets the test skip the 300 ms wait.');
    expect(a2.message.content).toBe('*Read [](file:///home/dev/shop/src/search.ts)*\n\nI added `search.test.ts` with a fake timer.\n\n*Edited `search.test.ts`.*');
    expect(a2.metadata.importedFrom).toMatchObject({ editedFiles: ['search.test.ts'], tools: [{ toolId: 'copilot_readFile' }] });
    expect(dict.current_node_id).toBe(a2.node_id);
    expect(dict.created_at).toBe(new Date(1718099990000).toISOString());
    expect(dict.updated_at).toBe(new Date(1718100069000).toISOString());
  });

  it('titles a session by its custom title first, and says what a request is missing', () => {
    expect(copilotSessionTitle({ customTitle: 'Search work', requests: [{ message: { text: 'hi' } }] })).toBe('Search work');
    expect(copilotSessionTitle({ requests: [{ message: 'old style\nsecond line' }] })).toBe('old style');
    const base = { responderUsername: 'GitHub Copilot', requesterUsername: 'me' };
    expect(() => fromCopilotChatSession({ ...base, requests: [] })).toThrow(/no "sessionId"/);
    expect(() => fromCopilotChatSession({ ...base, sessionId: 'x', requests: [7] })).toThrow(/Request 0 of Copilot Chat session "x" is not an object/);
  });
});

describe('sessions imported through the store', () => {
  let store: Awaited<ReturnType<typeof openStore>>;
  beforeEach(async () => {
    store = await openStore();
  });
  afterEach(() => store.close());

  it('stores a Continue session as one branch that opens on its last answer', async () => {
    const { manager } = await store.open.import(fromContinueSession(await fixture('continue-session.json'), { time: FILE_TIME }));
    expect(manager.getMetadata('title')).toBe('Debounce in the search box');
    expect(manager.getCurrentNodes().map((n) => n.message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(manager.getCurrentNodes().every((n) => manager.getChildren(n.nodeId).length <= 1)).toBe(true);
    expect(manager.getHistory()[4].toolCallId).toBe('call_k2Jd8Qw');
  });

  it('stores a Copilot session, and a second import of it as a copy', async () => {
    const session = await fixture('copilot-chat-session.json');
    const first = await store.open.import(fromCopilotChatSession(session));
    expect(first.manager.getChildren(ROOT_NODE_ID).map((n) => n.message.content)).toEqual(['How do I debounce the search input? #file:search.ts']);
    expect(first.manager.nodeCount).toBe(5);
    const second = await store.open.import(fromCopilotChatSession(session));
    expect(second.copyOf).toBe('0d6e1f2a-3b4c-4d5e-8f70-8192a3b4c5d6');
    expect(second.manager.conversationId).not.toBe(first.manager.conversationId);
  });
});
