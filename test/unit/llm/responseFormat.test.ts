import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/core/errors';
import { OpenAIProvider, type OpenAIProviderOptions } from '../../../src/core/llm/openai';
import { isStrictSchema, schemaInstruction, withSchemaInstruction } from '../../../src/core/llm/responseFormat';
import { SYSTEM_OPEN, toLmMessages } from '../../../src/core/llm/vscodeLmMessages';
import { extractJsonText, jsonPath } from '../../../src/core/structured/outputSchema';
import { collectStream } from '../../fixtures/providerTestTools';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const refusing = new FakeLlmServer({ defaultTokenDelayMs: 0, rejectJsonSchema: true });
const plain = new FakeLlmServer({ defaultTokenDelayMs: 0 });
beforeAll(() => Promise.all([refusing.start(), plain.start()]));
afterAll(() => Promise.all([refusing.stop(), plain.stop()]));
afterEach(() => {
  refusing.reset();
  plain.reset();
});

const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
const responseFormat = { schema, name: 'check' };

function provider(server: FakeLlmServer, extra: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', maxRetries: 0, ...extra });
}

describe('OpenAI response_format', () => {
  it('sends json_schema, strict when the schema allows it', async () => {
    plain.enqueue({ content: '{"ok":true}' });
    await provider(plain).complete([{ role: 'user', content: 'q' }], { responseFormat });
    expect(plain.lastRequest!.responseFormat).toEqual({ type: 'json_schema', json_schema: { name: 'check', schema, strict: true } });
    // The schema travels in the request field, not in the messages.
    expect(plain.lastRequest!.body.messages).toEqual([{ role: 'user', content: 'q' }]);
  });

  it('falls back to json_object once the server refuses json_schema, and remembers the model', async () => {
    const llm = provider(refusing);
    refusing.enqueue({ content: '{"ok":true}' }, { content: '{"ok":false}' });
    const first = await llm.complete([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'q' }], { responseFormat });
    expect(first.content).toBe('{"ok":true}');
    const sent = refusing.chatRequests();
    expect(sent.map((r) => r.responseFormat)).toEqual([expect.objectContaining({ type: 'json_schema' }), { type: 'json_object' }]);
    // json_object takes no schema: the system text carries it (and says JSON, which OpenAI requires).
    expect(sent[1].body.messages[0].content).toBe(`Be brief.\n\nAnswer with JSON only: one JSON value that matches this JSON Schema, with no other text before or after it.\n${JSON.stringify(schema)}`);
    expect(llm.takesJsonSchema('arbor-test-model')).toBe(false);
    expect(llm.takesJsonSchema('arbor-test-model-2')).toBe(true);

    const { chunks, error } = await collectStream(llm.stream([{ role: 'user', content: 'q' }], { responseFormat }));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.delta).join('')).toBe('{"ok":false}');
    expect(refusing.chatRequests()).toHaveLength(3);
    expect(refusing.lastRequest!.responseFormat).toEqual({ type: 'json_object' });
    expect(refusing.lastRequest!.body.messages[0]).toMatchObject({ role: 'system' });
  });

  it('streams after a fallback too', async () => {
    refusing.enqueue({ content: '{"ok":true}' });
    const { chunks, error } = await collectStream(provider(refusing).stream([{ role: 'user', content: 'q' }], { responseFormat }));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.delta).join('')).toBe('{"ok":true}');
    expect(refusing.chatRequests().map((r) => (r.responseFormat as { type: string }).type)).toEqual(['json_schema', 'json_object']);
  });

  it('sends json_object straight away to a model the jsonSchema option leaves out', async () => {
    plain.enqueue({ content: '{"ok":true}' });
    await provider(plain, { jsonSchema: ['other-model'] }).complete([{ role: 'user', content: 'q' }], { responseFormat });
    expect(plain.chatRequests()).toHaveLength(1);
    expect(plain.lastRequest!.responseFormat).toEqual({ type: 'json_object' });
    expect(plain.lastRequest!.body.messages[0].role).toBe('system');
  });

  it('does not retry a 400 that is about something else, nor a call that asked for no JSON', async () => {
    plain.enqueueError(400, { errorMessage: 'messages: too long' });
    await expect(provider(plain).complete([{ role: 'user', content: 'q' }], { responseFormat })).rejects.toBeInstanceOf(ProviderError);
    expect(plain.chatRequests()).toHaveLength(1);
    plain.enqueueError(400, { errorMessage: 'bad response_format' });
    await expect(provider(plain).complete([{ role: 'user', content: 'q' }])).rejects.toBeInstanceOf(ProviderError);
    expect(plain.chatRequests()).toHaveLength(2);
  });
});

describe('schema helpers', () => {
  it('calls a schema strict only when every object lists all its properties and forbids others', () => {
    expect(isStrictSchema(schema)).toBe(true);
    expect(isStrictSchema({ ...schema, additionalProperties: true })).toBe(false);
    expect(isStrictSchema({ ...schema, required: [] })).toBe(false);
    expect(isStrictSchema({ type: 'array', items: schema })).toBe(false);
    expect(isStrictSchema({ ...schema, properties: { ok: { type: 'object', properties: { a: { type: 'string' } } } } })).toBe(false);
  });

  it('takes JSON bare or from one fence that is the whole answer, nothing cleverer', () => {
    expect(extractJsonText('  {"a":1}\n')).toBe('{"a":1}');
    expect(extractJsonText('```json\n{"a":1}\n```')).toBe('{"a":1}');
    expect(extractJsonText('```\n[1, 2]\n```')).toBe('[1, 2]');
    expect(extractJsonText('Here:\n```json\n{"a":1}\n```')).toBe('Here:\n```json\n{"a":1}\n```');
  });

  it('writes the schema into the instructions for an API without a JSON mode (VS Code language models)', () => {
    const messages = [{ role: 'user' as const, content: 'q' }];
    const withSchema = withSchemaInstruction(messages, responseFormat);
    expect(withSchema).toEqual([{ role: 'system', content: schemaInstruction(responseFormat) }, { role: 'user', content: 'q' }]);
    expect(messages).toHaveLength(1);
    const parts = { user: (content: unknown[]) => ({ role: 'user', content }), assistant: (content: unknown[]) => ({ role: 'assistant', content }), text: (value: string) => ({ value }) };
    const lm = toLmMessages(withSchema, parts as never, 'copilot/gpt-4o') as unknown as Array<{ role: string; content: Array<{ value: string }> }>;
    expect(lm[0].content[0].value).toContain(SYSTEM_OPEN);
    expect(lm[0].content[0].value).toContain(JSON.stringify(schema));
  });

  it('names fields by JSON path', () => {
    expect(jsonPath('')).toBe('$');
    expect(jsonPath('/items/0/name')).toBe('$.items[0].name');
    expect(jsonPath('/a b', 'c~d')).toBe('$["a b"]["c~d"]');
    expect(jsonPath('/x~1y')).toBe('$["x/y"]');
  });
});
