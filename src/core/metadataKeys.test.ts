import { describe, expect, it } from 'vitest';
import { conversationMetadata, nodeMetadata, nodeRagMetadata, readConversationMetadata, readNodeMetadata } from './metadataKeys';
import type { RagMetadata } from './promptContracts';

const rag = (placeholder: string, path: string): RagMetadata => ({
  placeholder,
  adapter: 'workspace',
  query: 'q',
  queryHash: 'h',
  k: 1,
  results: [{ content: 'x', score: 1, path }],
  formattedContent: 'x',
  timestamp: '2026-01-01T00:00:00Z',
});

describe('node metadata readers', () => {
  it('reads each key with the shape its type promises', () => {
    const md = nodeMetadata({
      displayText: 'typed',
      attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2, text: 'secret', extra: 1 }],
      model: 'm1',
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      costUsd: 0.002,
      interrupted: true,
      stopReason: 'cancelled',
      error: 'broke',
      somethingElse: 'kept out',
    });
    expect(md).toEqual({
      displayText: 'typed',
      attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2 }],
      model: 'm1',
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      costUsd: 0.002,
      interrupted: true,
      stopReason: 'cancelled',
      error: 'broke',
    });
  });

  it('leaves out values of the wrong shape instead of passing them on', () => {
    const md = nodeMetadata({
      displayText: 42,
      attachments: [{ path: 3 }, null, { kind: 'weird', path: 'b.ts' }],
      costUsd: Number.NaN,
      usage: { totalTokens: '5' },
      interrupted: 'yes',
      stopReason: 'bored',
      model: ['m'],
    });
    expect(md).toEqual({ attachments: [{ kind: 'file', path: 'b.ts' }] });
    expect(nodeMetadata(undefined)).toEqual({});
  });

  it('reads the older error shape { message } as its message', () => {
    expect(readNodeMetadata({ error: { message: 'old failure' } }, 'error')).toBe('old failure');
    expect(readNodeMetadata({ error: { code: 1 } }, 'error')).toBeUndefined();
  });

  it('lists retrievals from ragMetadata, else from the older rag key, skipping malformed entries', () => {
    expect(nodeRagMetadata({ ragMetadata: { a: rag('a', 'x.ts'), b: { results: 'no' } } }).map((r) => r.placeholder)).toEqual(['a']);
    expect(nodeRagMetadata({ rag: [rag('old', 'y.ts'), 7] }).map((r) => r.placeholder)).toEqual(['old']);
    expect(nodeRagMetadata({ ragMetadata: { n: rag('new', 'z.ts') }, rag: [rag('old', 'y.ts')] }).map((r) => r.placeholder)).toEqual(['new']);
    expect(nodeRagMetadata({})).toEqual([]);
  });
});

describe('conversation metadata readers', () => {
  it('reads title, total cost and firstMessage, and nothing else', () => {
    expect(conversationMetadata({ title: 'T', totalCostUsd: 0.5, firstMessage: 'hi', project: 'arbor' })).toEqual({ title: 'T', totalCostUsd: 0.5, firstMessage: 'hi' });
    expect(readConversationMetadata({ title: 7 }, 'title')).toBeUndefined();
    expect(readConversationMetadata({ totalCostUsd: Infinity }, 'totalCostUsd')).toBeUndefined();
  });
});

describe('system prompt and request options metadata', () => {
  const ref = { name: 'terse', path: 'system/terse.md', sha256: 'a'.repeat(64), gitBlobId: 'b'.repeat(40) };

  it("reads an answer's system prompt and a chat's choice and options", () => {
    expect(readNodeMetadata({ systemPrompt: ref }, 'systemPrompt')).toEqual(ref);
    expect(readNodeMetadata({ systemPrompt: 'terse' }, 'systemPrompt')).toBeUndefined();
    expect(conversationMetadata({ systemPrompt: '', requestOptions: { temperature: 0.5, think: 'low', junk: 1 } })).toEqual({
      systemPrompt: '',
      requestOptions: { temperature: 0.5, think: 'low' },
    });
    expect(readConversationMetadata({ requestOptions: 'hot' }, 'requestOptions')).toBeUndefined();
  });

  it('reads nothing of them from metadata written before they existed', () => {
    expect(readConversationMetadata({ title: 'old', model: 'm' }, 'systemPrompt')).toBeUndefined();
    expect(readConversationMetadata({ title: 'old' }, 'requestOptions')).toBeUndefined();
    expect(nodeMetadata({ model: 'm', provider: 'ollama' }).systemPrompt).toBeUndefined();
  });
});


describe('several-models metadata', () => {
  it('reads the run id and the merged answers, and leaves out wrong shapes', () => {
    expect(nodeMetadata({ severalRun: 'run-1', mergedFrom: ['3', 4, '7'] })).toEqual({ severalRun: 'run-1', mergedFrom: ['3', '7'] });
    expect(readNodeMetadata({ severalRun: 5 }, 'severalRun')).toBeUndefined();
    expect(readNodeMetadata({ mergedFrom: [] }, 'mergedFrom')).toBeUndefined();
    expect(readNodeMetadata({ mergedFrom: '3' }, 'mergedFrom')).toBeUndefined();
  });
});
