import { describe, expect, it } from 'vitest';
import { isStreamedRequest, severalModelsProblem, type FromWebview } from './protocol';

describe('isStreamedRequest', () => {
  it('is true for the requests a model stream answers, so a failure of one ends its stream', () => {
    const streamed: FromWebview[] = [
      { type: 'send', requestId: 'r1', text: 'hi', attachments: [] },
      { type: 'regenerate', requestId: 'r2', nodeId: 'n' },
      { type: 'edit', requestId: 'r3', nodeId: 'n', text: 'x' },
      { type: 'retry', requestId: 'r4' },
      { type: 'mergeAnswers', requestId: 'r6', nodeIds: ['a', 'b'], model: 'm' },
    ];
    expect(streamed.filter(isStreamedRequest).map((m) => m.type)).toEqual(['send', 'regenerate', 'edit', 'retry', 'mergeAnswers']);
  });

  it('is false for a request answered by one response and for messages that are not answered', () => {
    const others: FromWebview[] = [
      { type: 'findFiles', requestId: 'r5', query: 'a' },
      { type: 'stop', requestId: 'r1' },
      { type: 'ready' },
      { type: 'switch', nodeId: 'n' },
      { type: 'attachSelection' },
      // A several-models run ends its own stream (every column, then streamDone) whatever happens.
      { type: 'sendSeveral', requestId: 'r7', text: 'hi', attachments: [], models: ['a', 'b'] },
      { type: 'compareAnswers', leftNodeId: 'a', rightNodeId: 'b' },
    ];
    expect(others.filter(isStreamedRequest)).toEqual([]);
  });
});

describe('severalModelsProblem', () => {
  it('accepts 2 to 4 distinct models and says what is wrong otherwise', () => {
    expect(severalModelsProblem(['a', 'b'])).toBeUndefined();
    expect(severalModelsProblem(['a', 'b', 'c', 'd'])).toBeUndefined();
    expect(severalModelsProblem(['a'])).toMatch(/at least 2/);
    expect(severalModelsProblem(['a', 'b', 'c', 'd', 'e'])).toMatch(/at most 4/);
    expect(severalModelsProblem(['a', 'a'])).toMatch(/each model once/);
    expect(severalModelsProblem(['a', ' '])).toMatch(/no empty/);
  });
});
