import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors';
import type { LLMMessage, ToolDefinition } from '../types';
import { PathTokenCache, type CountableNode } from './pathTokenCache';
import { EstimatingTokenCounter, exactTokenCounter, type TokenCounter } from './tokenCount';

/** A real counter that also records which texts it was asked to count. */
function recording(inner: TokenCounter): { counter: TokenCounter; counted: string[] } {
  const counted: string[] = [];
  const counter: TokenCounter = {
    get exact() {
      return inner.exact;
    },
    get method() {
      return inner.method;
    },
    get revision() {
      return inner.revision;
    },
    countText: (t) => (counted.push(t), inner.countText(t)),
    countMessage: (m) => (counted.push(m.content), inner.countMessage(m)),
    countMessages: (ms) => inner.countMessages(ms),
    countTools: (t) => (counted.push('<tools>'), inner.countTools(t)),
    calibrate: (e, r) => inner.calibrate(e, r),
  };
  return { counter, counted };
}

function path(n: number): CountableNode[] {
  return Array.from({ length: n }, (_, i) => ({
    nodeId: `n${i}`,
    message: { role: i % 2 ? 'assistant' : 'user', content: `Message ${i}: ${'some words about code '.repeat(1 + (i % 5))}` } as LLMMessage,
  }));
}

describe('PathTokenCache', () => {
  it('totals the path, extras, tools and priming exactly as the counter would', async () => {
    const c = await exactTokenCounter('o200k_base');
    const cache = new PathTokenCache(c);
    const nodes = path(20);
    const system: LLMMessage = { role: 'system', content: 'You are Arbor.' };
    const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];
    const result = cache.count(nodes, { system, draft: 'What about **this**?', retrieved: 'src/a.ts: export const a = 1;', none: undefined }, tools);
    const messages = nodes.map((n) => n.message);
    expect(result.byPart).toEqual({
      path: messages.reduce((s, m) => s + c.countMessage(m), 0),
      priming: 3,
      tools: c.countTools(tools),
      system: c.countMessage(system),
      draft: c.countText('What about **this**?'),
      retrieved: c.countText('src/a.ts: export const a = 1;'),
    });
    expect(result.total).toBe(c.countMessages([system, ...messages]) + c.countTools(tools) + c.countText('What about **this**?') + c.countText('src/a.ts: export const a = 1;'));
    expect(cache.tokensOf('n3')).toBe(c.countMessage(messages[3]));
    expect(cache.tokensOf('nope')).toBeUndefined();
  });

  it('recounts only the draft while typing, and a node only when its message changed', async () => {
    const { counter, counted } = recording(await exactTokenCounter('o200k_base'));
    const cache = new PathTokenCache(counter);
    const nodes = path(1000);
    const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'f' } }];
    const first = cache.count(nodes, { system: 'Be brief.', draft: 'H' }, tools);
    expect(counted).toHaveLength(1003);
    counted.length = 0;
    const second = cache.count(nodes.map((n) => ({ nodeId: n.nodeId, message: { ...n.message } })), { system: 'Be brief.', draft: 'Hello there' }, tools);
    expect(counted).toEqual(['Hello there']);
    expect(second.byPart.path).toBe(first.byPart.path);
    expect(second.total - first.total).toBe(second.byPart.draft - first.byPart.draft);
    // An edited message (same id, new content) and a message whose caller object was mutated are recounted.
    counted.length = 0;
    const edited = [...nodes];
    edited[10] = { nodeId: 'n10', message: { ...nodes[10].message, content: 'changed' } };
    nodes[20].message.content += ' and more';
    cache.count(edited, { system: 'Be brief.', draft: 'Hello there' }, tools);
    expect(counted.sort()).toEqual(['changed', nodes[20].message.content].sort());
  });

  it('starts afresh when the counter is recalibrated or replaced', async () => {
    const estimate = new EstimatingTokenCounter();
    const cache = new PathTokenCache(estimate);
    const nodes = path(50);
    const before = cache.count(nodes).byPart.path;
    estimate.calibrate(1000, 2000);
    const after = cache.count(nodes).byPart.path;
    expect(after).toBeGreaterThan(1.9 * before);
    expect(after).toBe(nodes.reduce((s, n) => s + estimate.countMessage(n.message), 0));
    const exact = await exactTokenCounter('cl100k_base');
    cache.counter = exact;
    expect(cache.count(nodes).byPart.path).toBe(nodes.reduce((s, n) => s + exact.countMessage(n.message), 0));
  });

  it('drops other branches\' counts once they outnumber the path, and refuses reserved part names', () => {
    const cache = new PathTokenCache(new EstimatingTokenCounter());
    cache.count(path(400));
    const other = path(10).map((n) => ({ ...n, nodeId: `b${n.nodeId}` }));
    cache.count(other);
    expect(cache.tokensOf('n5')).toBeUndefined();
    expect(cache.tokensOf('bn5')).toBeGreaterThan(0);
    expect(() => cache.count(other, { path: 'x' })).toThrow(InvalidArgumentError);
  });
});
