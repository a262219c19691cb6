import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromChatGptConversation, fromChatGptExport } from '../../../../src/core/conversation/imports/chatgpt';
import { InvalidArgumentError, ROOT_NODE_ID, type OpenConversations } from '../../../../src/core/index';
import { fixture, openStore } from './importStore';

const byId = (dict: { nodes: Array<{ node_id: string }> }) => new Map(dict.nodes.map((n) => [n.node_id, n as any]));

describe('ChatGPT conversations.json', () => {
  it('reads every conversation of the export, each under its own id and title', async () => {
    const dicts = fromChatGptExport(await fixture('chatgpt-conversations.json'));
    expect(dicts.map((d) => [d.conversation_id, d.metadata.title])).toEqual([
      ['6671d0a1-0000-8000-9000-000000000001', 'Sourdough starter hydration'],
      ['6671d0a1-0000-8000-9000-000000000002', 'Powers of two'],
    ]);
    expect(dicts[0].metadata.importedFrom).toEqual({ format: 'chatgpt', id: '6671d0a1-0000-8000-9000-000000000001', model: 'gpt-4o' });
  });

  it('keeps both versions of an edited question, skips scaffolding, and opens on current_node', async () => {
    const [dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
    const nodes = byId(dict);
    // The empty root, the hidden system message and the custom instructions are no messages of their own.
    expect([...nodes.keys()].sort()).toEqual(['', '0', '0.0', '1', '1.0', '1.0.0', '1.0.0.0']);
    expect(dict.edges).toContainEqual(['', '0']);
    expect(dict.edges).toContainEqual(['', '1']);
    expect(nodes.get('0').message).toEqual({ role: 'user', content: 'How much water for a starter?' });
    expect(nodes.get('1').message.content).toBe('How much water for a rye starter?');
    expect(nodes.get('0.0').message.content).toBe('Equal weights of flour and water: 50 g each.');
    expect(dict.current_node_id).toBe('1.0.0.0');
    // Custom instructions before the first question become the system prompt.
    expect(nodes.get('').message.role).toBe('system');
    expect(nodes.get('').message.content).toContain('I bake bread at home.');
    expect(nodes.get('').message.content).toContain('Answer in metric units.');
  });

  it('gives the answer the thoughts above it, its model, the source id and its time', async () => {
    const [dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
    const answer = byId(dict).get('1.0');
    expect(answer.message.content).toBe('For rye, use 50 g flour and 60 g water.');
    expect(answer.message.thinking).toBe('**Comparing hydration**\nRye absorbs more water than wheat, so the starter runs wetter.');
    expect(answer.metadata).toEqual({ importedFrom: { format: 'chatgpt', id: 'b1c0e5f2-0000-4000-8000-000000000008' }, model: 'o3' });
    expect(answer.timestamp).toBe(new Date(1718000065250).toISOString());
    expect(dict.created_at).toBe(new Date(1717999999500).toISOString());
    expect(dict.updated_at).toBe(new Date(1718000126900).toISOString());
  });

  it('keeps an image part as a named pointer beside the text, and its attachment in the metadata', async () => {
    const [dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
    const question = byId(dict).get('1.0.0');
    expect(question.message.content).toBe('[image: file-service://file-7Qm2xYhT3kLp9RvWcNbA1d]\n\nIs this starter ready?');
    expect(question.metadata.importedFrom).toMatchObject({
      contentType: 'multimodal_text',
      attachments: [{ contentType: 'image_asset_pointer', assetPointer: 'file-service://file-7Qm2xYhT3kLp9RvWcNbA1d', width: 1024, height: 768 }],
    });
  });

  it('reads a code interpreter call and its output as a tool call and its result', async () => {
    const [, dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
    const nodes = byId(dict);
    expect(nodes.get('0').message.content).toBe('What is 2**100?');
    const call = nodes.get('0.0').message;
    expect(call.tool_calls).toEqual([{ id: 'call_aaa2b7c1-0000-4000-8000-000000000003', name: 'python', parameters: {}, arguments: '{"input":"2**100"}' }]);
    expect(nodes.get('0.0.0').message).toEqual({ role: 'tool', content: '1267650600228229401496703205376', name: 'python', tool_call_id: 'call_aaa2b7c1-0000-4000-8000-000000000003' });
    expect(nodes.get('0.0.0.0').message.content).toBe('2**100 is 1267650600228229401496703205376.');
  });

  it('hangs the children of a hidden node on its nearest kept ancestor', () => {
    const node = (id: string, parent: string | null, children: string[], message: Record<string, unknown> | null) => ({ id, parent, children, message });
    const text = (role: string, t: string, meta = {}) => ({ id: t, author: { role }, content: { content_type: 'text', parts: [t] }, metadata: meta, create_time: 1 });
    const dict = fromChatGptConversation({
      id: 'c',
      title: 't',
      current_node: 'b',
      mapping: {
        r: node('r', null, ['q'], null),
        q: node('q', 'r', ['h'], text('user', 'question')),
        h: node('h', 'q', ['a', 'b'], text('assistant', 'hidden', { is_visually_hidden_from_conversation: true })),
        a: node('a', 'h', [], text('assistant', 'first answer')),
        b: node('b', 'h', [], text('assistant', 'second answer')),
      },
    });
    expect(dict.nodes.map((n) => [n.node_id, n.message.content])).toEqual([['', ''], ['0', 'question'], ['0.0', 'first answer'], ['0.1', 'second answer']]);
    expect(dict.current_node_id).toBe('0.1');
  });

  it('says which conversation has no id', () => {
    expect(() => fromChatGptExport([{ title: 'Nameless', mapping: {}, current_node: null }])).toThrow(InvalidArgumentError);
    expect(() => fromChatGptExport([{ title: 'Nameless', mapping: {}, current_node: null }])).toThrow(/ChatGPT conversation 1 \("Nameless"\) has no "conversation_id"/);
    expect(() => fromChatGptExport({ hello: 'world' })).toThrow(/conversations\.json/);
  });

  describe('imported through the store', () => {
    let store: Awaited<ReturnType<typeof openStore>>;
    let open: OpenConversations;
    beforeEach(async () => {
      store = await openStore();
      open = store.open;
    });
    afterEach(() => store.close());

    it('stores the tree with both branches and the current path of the export', async () => {
      const [dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
      const { manager } = await open.import(dict);
      expect(manager.conversationId).toBe('6671d0a1-0000-8000-9000-000000000001');
      expect(manager.getMetadata('title')).toBe('Sourdough starter hydration');
      const questions = manager.getChildren(ROOT_NODE_ID);
      expect(questions.map((n) => n.message.content)).toEqual(['How much water for a starter?', 'How much water for a rye starter?']);
      expect(manager.getCurrentNodes().map((n) => `${n.message.role}: ${n.message.content.split('\n').pop()}`)).toEqual([
        'system: The user provided the additional info about how they would like you to respond: Answer in metric units.',
        'user: How much water for a rye starter?',
        'assistant: For rye, use 50 g flour and 60 g water.',
        'user: Is this starter ready?',
        'assistant: Yes: it has doubled and is full of bubbles.',
      ]);
      expect(manager.getSiblingIds(questions[1].nodeId)).toHaveLength(2);
      expect(manager.getCurrentNodes()[2].message.thinking).toContain('Rye absorbs more water');
      expect(manager.nodeCount).toBe(7);
    });

    it('stores a tool call and its result so the history is valid to send', async () => {
      const [, dict] = fromChatGptExport(await fixture('chatgpt-conversations.json'));
      const { manager } = await open.import(dict);
      const history = manager.getHistory();
      // The empty root system message is not sent.
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(history[2].toolCallId).toBe(history[1].toolCalls?.[0].id);
      expect(history[1].toolCalls?.[0].function).toEqual({ name: 'python', arguments: '{"input":"2**100"}' });
    });
  });
});
