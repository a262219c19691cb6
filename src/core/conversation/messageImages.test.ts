/**
 * Images from `addMessage` to the wire, over real HTTP to a local server speaking both formats: OpenAI
 * content parts, Ollama bare base64, a placeholder for a model without vision, the limits, and the
 * images in dataknobs JSON and Markdown exports.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { makePng } from '../../../test/fixtures/pngImages';
import { InvalidArgumentError } from '../errors';
import { OllamaProvider } from '../llm/ollama';
import { OpenAIProvider } from '../llm/openai';
import type { LLMProvider } from '../llm/provider';
import { SqlJsConversationStorage } from '../storage/sqlJsConversationStorage';
import { ConversationManager } from './conversationManager';
import { exportJsonWithImages, markdownImages } from './imageExports';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0, capabilities: { 'arbor-test-model-2': ['completion', 'tools'] } });
beforeAll(() => server.start());
afterAll(() => server.stop());
afterEach(() => server.reset());

const PNG = makePng(64, 48, 1);
const B64 = Buffer.from(PNG).toString('base64');
const openai = (extra: { supportsVision?: boolean } = {}) => new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', ...extra });
const ollama = (model = 'arbor-test-model') => new OllamaProvider({ host: server.url, model });

async function askWithImage(llm: LLMProvider, options: { maxImageBytes?: number } = {}): Promise<ConversationManager> {
  const storage = await SqlJsConversationStorage.open();
  const manager = await ConversationManager.create({ llm, storage, systemPrompt: 'You look at pictures.', ...options });
  await manager.addMessage({ role: 'user', content: 'What is in this picture?', images: [{ bytes: PNG, name: 'shot.png', mime: 'image/png' }] });
  await manager.complete();
  return manager;
}

const sentMessages = () => server.chatRequests().at(-1)?.body.messages as Array<Record<string, unknown>>;

describe('images on the wire', () => {
  it('go to an OpenAI-compatible server as image_url parts with a data: URL beside the text', async () => {
    await askWithImage(openai());
    expect(sentMessages()[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${B64}` } },
      ],
    });
  });

  it('go to Ollama as bare base64 in the message images', async () => {
    await askWithImage(ollama());
    expect(sentMessages()[1]).toMatchObject({ role: 'user', content: 'What is in this picture?', images: [B64] });
  });

  it('stay on the path: a later question still sends the earlier image once', async () => {
    const manager = await askWithImage(ollama());
    await manager.addMessage({ role: 'user', content: 'And the colours?' });
    await manager.complete();
    const messages = sentMessages();
    expect(messages.filter((m) => Array.isArray(m.images)).map((m) => m.images)).toEqual([[B64]]);
  });

  it('become a placeholder for a model without vision: Ollama capabilities, or the OpenAI setting', async () => {
    await askWithImage(ollama('arbor-test-model-2'));
    const placeholder = '[image: shot.png, 64×48, not sent: arbor-test-model-2 does not take images]';
    expect(sentMessages()[1]).toEqual({ role: 'user', content: `What is in this picture?\n\n${placeholder}` });
    await askWithImage(openai({ supportsVision: false }));
    expect(sentMessages()[1]).toEqual({ role: 'user', content: 'What is in this picture?\n\n[image: shot.png, 64×48, not sent: arbor-test-model does not take images]' });
  });
});

describe('image limits', () => {
  it('refuses an image over arbor.images.maxBytes, more than 20 images, non-images and images on answers, storing nothing', async () => {
    const storage = await SqlJsConversationStorage.open();
    const manager = await ConversationManager.create({ llm: openai(), storage, maxImageBytes: 1000 });
    const big = makePng(200, 200, 3);
    await expect(manager.addMessage({ role: 'user', content: 'x', images: [{ bytes: big, name: 'big.png' }] })).rejects.toThrow(/big\.png.*arbor\.images\.maxBytes/);
    const many = Array.from({ length: 21 }, (_, i) => ({ bytes: makePng(2, 2, i) }));
    await expect(manager.addMessage({ role: 'user', content: 'x', images: many })).rejects.toThrow(/at most 20 images; this one has 21/);
    await expect(manager.addMessage({ role: 'user', content: 'x', images: [{ base64: Buffer.from('hello').toString('base64'), name: 'a.png' }] })).rejects.toThrow(InvalidArgumentError);
    await expect(manager.addMessage({ role: 'assistant', content: 'x', images: [{ bytes: makePng(2, 2) }] })).rejects.toThrow(/Only user messages carry images/);
    expect(manager.getHistory()).toEqual([]);
    // Base64 (also a data: URL) is taken like bytes.
    const node = await manager.addMessage({ role: 'user', content: 'ok', images: [{ base64: `data:image/png;base64,${Buffer.from(makePng(3, 3)).toString('base64')}`, name: 'small.png' }] });
    expect((await manager.getNodeImages(node.nodeId)).map((i) => [i.name, i.width, i.height])).toEqual([['small.png', 3, 3]]);
  });
});

describe('images in exports', () => {
  it('carries images as base64 in dataknobs JSON and back into the store on import, and links them in Markdown', async () => {
    const manager = await askWithImage(openai());
    const question = manager.getHistory().find((m) => m.role === 'user');
    expect(question?.images).toBeUndefined();
    const dict = await exportJsonWithImages(manager);
    const exported = dict.nodes.find((n) => n.message.role === 'user');
    expect(exported?.message.images).toEqual([B64]);

    const storage = await SqlJsConversationStorage.open();
    const imported = await ConversationManager.importJson(JSON.parse(JSON.stringify(dict)), { llm: openai(), storage, conversationId: 'copy' });
    const byNode = await imported.getImagesByNode();
    expect(Object.values(byNode).flat().map((i) => [i.mime, i.width, i.height, i.size])).toEqual([['image/png', 64, 48, PNG.length]]);
    // The tree holds no inline bytes: the image lives in the store only.
    expect(imported.toState().nodes.some((n) => n.message.images)).toBe(false);
    expect((await storage.loadConversation('copy'))?.nodes.some((n) => n.message.images)).toBe(false);

    const { links, files } = await markdownImages(imported, 'My chat.images');
    const hash = Object.values(byNode)[0][0].hash;
    expect(files.map((f) => f.relativePath)).toEqual([`My chat.images/${hash}.png`]);
    expect(Buffer.from(files[0].bytes).equals(Buffer.from(PNG))).toBe(true);
    const markdown = imported.exportMarkdown({ images: links });
    expect(markdown).toContain(`What is in this picture?\n\n![image-1.png](My%20chat.images/${hash}.png)`);
  });
});
