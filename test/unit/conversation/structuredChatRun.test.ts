/**
 * What the chat does with a `/` prompt that declares `output:`, over a real manager, a sql.js store file and
 * the fake model server's `[[verdict-fix]]` rule (the end-to-end test relies on it): the request the chat
 * builds from the prompt message, each node the structured run stores in order (invalid answer, correction
 * turn, accepted answer) and what the webview gets of each, and Regenerate of the accepted answer finding
 * the prompt's schema again through the correction turn.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { nodeMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { outputSchemaHash } from '../../../src/core/structured/outputSchema';
import type { ConversationNode } from '../../../src/core/types';
import { structuredRequestFor, structuredView } from '../../../src/host/chat/structuredChat';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let storage: SqlJsConversationStorage;
let schema: Record<string, unknown>;

beforeAll(async () => {
  await server.start();
  schema = JSON.parse(await readFile(path.join(__dirname, '../../../prompts/user/review-verdict.schema.json'), 'utf8')) as Record<string, unknown>;
});
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-structured-chat-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** A manager whose current node is a review-verdict prompt message, as the `/` menu stores it. */
async function promptMessage(): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm: new OllamaProvider({ host: server.url, model: 'arbor-test-model' }), storage });
  await m.addMessage({ role: 'user', content: 'Judge this code [[verdict-fix]]: return a - b;', raw: true, metadata: { promptOutput: { schema, schemaHash: outputSchemaHash(schema), retries: 2 } } });
  return m;
}

describe('a structured prompt answered in the chat', () => {
  it('streams each attempt, tells every stored node in order, and the webview gets the invalid answer, the correction and the card', async () => {
    const m = await promptMessage();
    const question = m.currentNodeId;
    const request = structuredRequestFor((id) => m.getNode(id), question);
    expect(request).toEqual({ outputSchema: schema, retries: 2, questionId: question });
    const stored: ConversationNode[] = [];
    let doneChunks = 0;
    for await (const chunk of m.streamComplete({ outputSchema: request!.outputSchema, retries: request!.retries, onStored: (node) => stored.push(node) })) {
      if (chunk.done) doneChunks++;
    }
    expect(doneChunks).toBe(2);
    expect(stored.map((n) => [n.message.role, structuredView(nodeMetadata(n.metadata))?.kind])).toEqual([
      ['assistant', 'answer'],
      ['user', 'correction'],
      ['assistant', 'answer'],
    ]);
    const [first, correction, accepted] = stored.map((n) => structuredView(nodeMetadata(m.getNode(n.nodeId).metadata)));
    expect(first).toMatchObject({ attempt: 1, attempts: 3, problems: [{ path: '$.verdict', message: 'must be one of "approve", "changes_needed", not the string "maybe"' }] });
    expect(first?.accepted).toBeUndefined();
    expect(correction).toMatchObject({ kind: 'correction', attempt: 1, problems: [{ path: '$.verdict' }] });
    expect(accepted).toMatchObject({ kind: 'answer', attempt: 2, accepted: true, value: { verdict: 'changes_needed', issues: [{ file: 'selection', line: 1, severity: 'blocker' }] } });
    // The second request carried the schema (Ollama's `format`) and the problems of the first answer.
    const [, second] = server.chatRequests();
    expect(second.body.format).toEqual(schema);
    expect(JSON.stringify(second.body.messages)).toContain('$.verdict');
  });

  it('finds the prompt\'s schema again when the accepted answer is regenerated (answering the correction turn)', async () => {
    const m = await promptMessage();
    const question = m.currentNodeId;
    await m.complete({ ...structuredRequestFor((id) => m.getNode(id), question)! });
    await m.branchFrom(m.currentNodeId);
    expect(nodeMetadata(m.getNode(m.currentNodeId).metadata).structured?.kind).toBe('correction');
    expect(structuredRequestFor((id) => m.getNode(id), m.currentNodeId)).toEqual({ outputSchema: schema, retries: 2, questionId: question });
    // A plain follow-up after the card is answered as usual.
    await m.switchToNode(m.getChildren(m.currentNodeId)[0].nodeId);
    await m.addMessage({ role: 'user', content: 'Thanks', raw: true });
    expect(structuredRequestFor((id) => m.getNode(id), m.currentNodeId)).toBeUndefined();
  });
});
