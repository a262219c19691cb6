import { describe, expect, it } from 'vitest';
import { isStreamedRequest, type FromWebview } from './protocol';

describe('isStreamedRequest', () => {
  it('is true for the requests a model stream answers, so a failure of one ends its stream', () => {
    const streamed: FromWebview[] = [
      { type: 'send', requestId: 'r1', text: 'hi', attachments: [] },
      { type: 'regenerate', requestId: 'r2', nodeId: 'n' },
      { type: 'edit', requestId: 'r3', nodeId: 'n', text: 'x' },
      { type: 'retry', requestId: 'r4' },
    ];
    expect(streamed.filter(isStreamedRequest).map((m) => m.type)).toEqual(['send', 'regenerate', 'edit', 'retry']);
  });

  it('is false for a request answered by one response and for messages that are not answered', () => {
    const others: FromWebview[] = [
      { type: 'findFiles', requestId: 'r5', query: 'a' },
      { type: 'stop', requestId: 'r1' },
      { type: 'ready' },
      { type: 'switch', nodeId: 'n' },
      { type: 'attachSelection' },
    ];
    expect(others.filter(isStreamedRequest)).toEqual([]);
  });
});
