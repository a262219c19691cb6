import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConversationManager, OllamaProvider, SqlJsConversationStorage } from '../../core/index';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { makePng } from '../../../test/fixtures/pngImages';
import { ImageSupportCache, imagesFromWebview, sendImages } from './chatImages';

const dataUrl = (bytes: Uint8Array, mime = 'image/png') => `data:${mime};base64,${Buffer.from(bytes).toString('base64')}`;

describe('images a send carries', () => {
  it('are checked again in the host: size (before decoding, naming the setting), count, and type from the bytes', () => {
    const big = makePng(300, 300, 1);
    expect(() => imagesFromWebview([{ name: 'big.png', mime: 'image/png', dataUrl: dataUrl(big) }], 1000)).toThrow(/Image "big\.png" is .* \(setting arbor\.images\.maxBytes\)/);
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `${i}.png`, mime: 'image/png', dataUrl: dataUrl(makePng(2, 2, i)) }));
    expect(() => imagesFromWebview(many, 1 << 20)).toThrow(/at most 20 images/);
    // The webview said PNG; the bytes are text: refused.
    expect(() => imagesFromWebview([{ name: 'x.png', mime: 'image/png', dataUrl: dataUrl(new Uint8Array(Buffer.from('<script>'))) }], 1 << 20)).toThrow(/not a PNG, JPEG, GIF or WebP/);
    expect(imagesFromWebview(undefined, 10)).toEqual([]);
    const [ok] = imagesFromWebview([{ name: 'ok.png', mime: 'image/jpeg', dataUrl: dataUrl(makePng(7, 5)) }], 1 << 20);
    expect(ok).toMatchObject({ name: 'ok.png', mime: 'image/png', width: 7, height: 5 });
  });

  it('take whole image files picked with the attach picker as images, and leave other attachments as text', async () => {
    const logo = makePng(16, 16, 4);
    const reads: string[] = [];
    const { images, attachments } = await sendImages(
      [{ name: 'pasted.png', mime: 'image/png', dataUrl: dataUrl(makePng(4, 4)) }],
      [
        { kind: 'file', path: 'media/logo.png' },
        { kind: 'file', path: 'src/app.ts' },
        { kind: 'file', path: 'media/other.png', startLine: 1, endLine: 2 },
      ],
      async (p) => {
        reads.push(p);
        return logo;
      },
      1 << 20,
    );
    expect(images.map((i) => [i.name, i.width])).toEqual([['pasted.png', 4], ['logo.png', 16]]);
    expect(attachments.map((a) => a.path)).toEqual(['src/app.ts', 'media/other.png']);
    expect(reads).toEqual(['media/logo.png']);
    await expect(sendImages([], [{ kind: 'file', path: 'big.png' }], async () => makePng(200, 200), 500)).rejects.toThrow(/arbor\.images\.maxBytes/);
  });
});

describe('ImageSupportCache', () => {
  it('answers at once, asks the model server once per model in the background, and redraws when a model takes no images', async () => {
    const server = new FakeLlmServer({ defaultTokenDelayMs: 0, capabilities: { 'arbor-test-model-2': ['completion'] } });
    await server.start();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-image-support-'));
    const storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
    try {
      const manager = await ConversationManager.create({ llm: new OllamaProvider({ host: server.url, model: 'arbor-test-model' }), storage });
      let redraws = 0;
      const cache = new ImageSupportCache(() => redraws++);
      // Not known yet: taken to take images, without waiting for the server.
      expect(cache.get(manager, 'arbor-test-model-2', 1000)).toEqual({ maxBytes: 1000, maxCount: 20, model: 'arbor-test-model-2', supportsVision: true });
      await expect.poll(() => redraws).toBe(1);
      expect(cache.get(manager, 'arbor-test-model-2', 1000).supportsVision).toBe(false);
      cache.get(manager, 'arbor-test-model', 1000);
      await expect.poll(() => server.requests.filter((r) => r.path === '/api/show').length).toBe(2);
      expect(cache.get(manager, 'arbor-test-model', 1000).supportsVision).toBe(true);
      expect(redraws).toBe(1);
    } finally {
      await storage.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
