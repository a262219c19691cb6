import { describe, expect, it } from 'vitest';
import type { ConversationNode } from '../../core/index';
import { promptMessageInfo, promptTitle, typedPromptText } from './promptMessages';

const ref = { name: 'review', path: 'user/review.md', sha256: 'a'.repeat(64), gitBlobId: 'b'.repeat(40) };

function node(metadata: Record<string, unknown>, content = 'Review this code for bugs.\n\nsubtotal()', role: ConversationNode['message']['role'] = 'user'): ConversationNode {
  return { nodeId: 'n1', parentId: '', position: 0, message: { role, content }, timestamp: '2026-01-01T00:00:00Z', metadata, promptName: 'review' };
}

describe('promptMessageInfo', () => {
  it('shows the version, the values sent, the typed text and the rendered text', () => {
    const info = promptMessageInfo(node({ prompt: ref, promptParams: { code: 'subtotal()' }, displayText: '/review look at rounding' }), () => ref.gitBlobId);
    expect(info).toEqual({
      name: 'review',
      kind: 'user',
      path: 'user/review.md',
      gitBlobId: ref.gitBlobId,
      status: 'current',
      params: { code: 'subtotal()' },
      text: 'look at rounding',
      rendered: 'Review this code for bugs.\n\nsubtotal()',
    });
  });

  it('says when the file changed since, was removed, or cannot be asked', () => {
    const n = node({ prompt: ref, displayText: '/review' });
    expect(promptMessageInfo(n, () => 'c'.repeat(40))?.status).toBe('changed');
    expect(promptMessageInfo(n, () => null)?.status).toBe('missing');
    expect(promptMessageInfo(n, () => undefined)?.status).toBe('unknown');
    expect(promptMessageInfo(n)?.status).toBe('unknown');
  });

  it('reads a message written before the values were kept: no params, the form starts from defaults', () => {
    const info = promptMessageInfo(node({ prompt: ref, displayText: '/review' }), () => ref.gitBlobId);
    expect(info?.params).toBeUndefined();
    expect(info?.text).toBe('');
  });

  it('marks the messages of a few-shot prompt, and leaves plain messages and system prompts alone', () => {
    const few = { name: 'few-shot-naming', path: 'messages/few-shot-naming.yaml', sha256: '', gitBlobId: 'd'.repeat(40) };
    const info = promptMessageInfo({ ...node({ prompt: few }, 'canEditDocument', 'assistant'), promptName: undefined }, () => few.gitBlobId);
    expect(info).toMatchObject({ kind: 'messages', name: 'few-shot-naming', text: '', rendered: 'canEditDocument' });
    expect(promptMessageInfo({ ...node({}), promptName: undefined })).toBeUndefined();
    expect(promptMessageInfo(node({ prompt: { ...ref, path: 'system/default.md' } }, 'Be brief.', 'system'))).toBeUndefined();
    // A value of the wrong shape (another tool's metadata) is left out rather than shown.
    expect(promptMessageInfo(node({ prompt: ref, promptParams: { code: 3, focus: 'tests' } }))?.params).toEqual({ focus: 'tests' });
  });
});

describe('promptTitle', () => {
  it('names a conversation by the typed text, else the values, else the description, never /name', () => {
    expect(promptTitle({ name: 'review', text: 'why does this round down?', params: { code: 'x' } })).toBe('why does this round down?');
    expect(promptTitle({ name: 'review', text: '', params: { focus: '', code: 'subtotalCents(lines)\nmore' } })).toBe('subtotalCents(lines)');
    expect(promptTitle({ name: 'review', text: ' ', params: {}, description: 'Find bugs and breaking inputs' })).toBe('Find bugs and breaking inputs');
    expect(promptTitle({ name: 'review', text: '' })).toBe('review');
  });

  it('takes the typed text back out of what the message shows', () => {
    expect(typedPromptText('/review  this file ', 'review')).toBe('this file');
    expect(typedPromptText('/review', 'review')).toBe('');
    expect(typedPromptText(undefined, 'review')).toBe('');
  });
});
