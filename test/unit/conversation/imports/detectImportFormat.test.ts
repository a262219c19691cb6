import { describe, expect, it } from 'vitest';
import { conversationsToImport, detectImportFormat } from '../../../../src/core/conversation/imports/detectImportFormat';
import { InvalidArgumentError, toDataknobsDict } from '../../../../src/core/index';
import { fixture } from './importStore';

const arbor = toDataknobsDict({
  conversationId: 'c',
  nodes: [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: '2025-01-01T00:00:00.000Z', metadata: {} }],
  currentNodeId: '',
  metadata: {},
  nextNodeSeq: 1,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
});

describe('detecting the format of an imported file', () => {
  it('tells every format apart', async () => {
    expect(detectImportFormat(arbor)).toBe('arbor');
    expect(detectImportFormat({ session_id: 's', messages: [] })).toBe('meton');
    expect(detectImportFormat(await fixture('chatgpt-conversations.json'))).toBe('chatgpt');
    expect(detectImportFormat(((await fixture('chatgpt-conversations.json')) as unknown[])[0])).toBe('chatgpt');
    expect(detectImportFormat(await fixture('continue-session.json'))).toBe('continueSession');
    expect(detectImportFormat(await fixture('continue-sessions.json'))).toBe('continueSessionIndex');
    expect(detectImportFormat(await fixture('copilot-chat-session.json'))).toBe('copilot');
    expect(detectImportFormat(await fixture('continue-config.json'))).toBe('continueConfig');
    expect(detectImportFormat({ hello: 'world' })).toBeUndefined();
    expect(detectImportFormat([])).toBeUndefined();
  });

  it('turns a file into the conversations to store: one per ChatGPT conversation', async () => {
    const chatgpt = conversationsToImport(await fixture('chatgpt-conversations.json'));
    expect(chatgpt.format).toBe('chatgpt');
    expect(chatgpt.conversations).toHaveLength(2);
    expect(conversationsToImport(arbor).conversations).toEqual([arbor]);
    expect(conversationsToImport(await fixture('copilot-chat-session.json')).conversations).toHaveLength(1);
  });

  it('names every format it reads when the file is none of them, and points from the index or a config to what to do', async () => {
    for (const unknown of [{ hello: 'world' }, [1, 2], 'text', null]) {
      expect(() => conversationsToImport(unknown)).toThrow(InvalidArgumentError);
      expect(() => conversationsToImport(unknown)).toThrow(
        /not a conversation Arbor can read.*Arbor\/dataknobs JSON.*Meton session.*ChatGPT's conversations\.json.*Continue session.*config\.yaml or config\.json.*Copilot Chat session/,
      );
    }
    const index = await fixture('continue-sessions.json');
    expect(() => conversationsToImport(index)).toThrow(/sessions\.json, the list of saved sessions: pick one of the session files/);
    const config = await fixture('continue-config.json');
    expect(() => conversationsToImport(config)).toThrow(/Continue model configuration, not a conversation/);
  });
});
