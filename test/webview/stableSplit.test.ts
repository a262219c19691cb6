import { describe, expect, it } from 'vitest';
import { stableSplit } from '../../webview/render/stableSplit';

describe('stableSplit', () => {
  it('cuts before an unindented line that follows a blank line', () => {
    const text = 'First paragraph.\n\nSecond one\n';
    expect(stableSplit(text, 0)).toBe(text.indexOf('Second'));
  });

  it('does not cut inside a code fence, even at blank lines', () => {
    const text = 'Intro\n\n```ts\nconst a = 1;\n\nconst b = 2;\n';
    expect(stableSplit(text, 0)).toBe(text.indexOf('```'));
    const closed = `${text}\`\`\`\n\nAfter\n`;
    expect(stableSplit(closed, 0)).toBe(closed.indexOf('After'));
  });

  it('keeps list continuations (indented after a blank line) with their item', () => {
    const text = '1. item\n\n   more of the item\n';
    expect(stableSplit(text, 0)).toBe(0);
  });

  it('waits for the line being written and resumes from an earlier cut', () => {
    expect(stableSplit('Done.\n\nStill wri', 0)).toBe(0);
    const text = 'A\n\nB\n\nC\n';
    const first = stableSplit('A\n\nB\n', 0);
    expect(first).toBe(3);
    expect(stableSplit(text, first)).toBe(text.indexOf('C'));
  });

  it('needs a closing fence of the same kind and length', () => {
    const text = '````md\n```\n\nstill code\n````\n\nText\n';
    expect(stableSplit(text, 0)).toBe(text.indexOf('Text'));
    const tilde = '~~~\n```\n\ncode\n';
    expect(stableSplit(tilde, 0)).toBe(0);
  });
});
