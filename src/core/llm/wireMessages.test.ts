import { describe, expect, it } from 'vitest';
import { bareBase64, imageDataUrl, toOllamaMessages, toOpenAIMessages, ToolCallAccumulator } from './wireMessages';

describe('ToolCallAccumulator', () => {
  it('joins argument pieces by index, whether names come once, split or repeated', () => {
    const acc = new ToolCallAccumulator();
    acc.add([{ index: 1, id: 'b', function: { name: 'op', arguments: '{"x"' } }]);
    acc.add([{ index: 0, id: 'a', function: { name: 'sea', arguments: '' } }]);
    acc.add([{ index: 0, function: { name: 'rch', arguments: '{"q":' } }]);
    acc.add([{ index: 1, function: { name: 'op', arguments: ':1}' } }]);
    acc.add([{ index: 0, function: { arguments: '"t"}' } }]);
    expect(acc.result()).toEqual([
      { id: 'a', type: 'function', function: { name: 'search', arguments: '{"q":"t"}' } },
      { id: 'b', type: 'function', function: { name: 'op', arguments: '{"x":1}' } },
    ]);
  });

  it('joins the pieces of a server that sends no index: a new id starts a call, the rest continue the last one', () => {
    const acc = new ToolCallAccumulator();
    acc.add([{ id: 'a', function: { name: 'read', arguments: '{"path":' } }]);
    acc.add([{ function: { arguments: '"a.ts"}' } }]);
    acc.add([{ id: 'b', function: { name: 'grep', arguments: '' } }]);
    acc.add([{ id: 'b', function: { arguments: '{"q":"x"}' } }]);
    expect(acc.result()).toEqual([
      { id: 'a', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
      { id: 'b', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } },
    ]);
  });

  it('gives calls without an id a fresh one, and has no result without calls', () => {
    const acc = new ToolCallAccumulator();
    expect(acc.result()).toBeUndefined();
    acc.add([{ index: 0, function: { name: 'f', arguments: '{}' } }]);
    expect(acc.result()![0].id).toMatch(/^call_[0-9a-f]{16}$/);
  });
});

describe('message conversions', () => {
  it('maps legacy function messages and keeps names', () => {
    expect(toOpenAIMessages([{ role: 'function', name: 'lookup', content: 'r' }, { role: 'user', name: 'ann', content: 'hi' }])).toEqual([
      { role: 'function', name: 'lookup', content: 'r' },
      { role: 'user', name: 'ann', content: 'hi' },
    ]);
  });

  it('keeps invalid tool-call argument text for Ollama instead of dropping it', () => {
    const [m] = toOllamaMessages([{ role: 'assistant', content: '', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }]);
    expect(m.tool_calls).toEqual([{ function: { name: 'f', arguments: { _raw: '{oops' } } }]);
  });

  it('guesses image types from base64 and strips data URLs for Ollama', () => {
    expect(imageDataUrl('/9j/4AAQ')).toBe('data:image/jpeg;base64,/9j/4AAQ');
    expect(imageDataUrl('https://example.com/a.png')).toBe('https://example.com/a.png');
    expect(bareBase64('data:image/png;base64,AAAA')).toBe('AAAA');
  });
});

describe('images with their type', () => {
  it('send a data: URL as is to OpenAI (the type it names wins over a guess) and as bare base64 to Ollama', () => {
    const url = 'data:image/webp;base64,UklGRhIAAABXRUJQ';
    const message = { role: 'user' as const, content: 'Look', images: [url] };
    expect(toOpenAIMessages([message])).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url } }] }]);
    expect(toOllamaMessages([message])).toEqual([{ role: 'user', content: 'Look', images: ['UklGRhIAAABXRUJQ'] }]);
    // An image without text sends only the image part.
    expect(toOpenAIMessages([{ role: 'user', content: '', images: [url] }])[0].content).toEqual([{ type: 'image_url', image_url: { url } }]);
  });
});
