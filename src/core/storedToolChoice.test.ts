import { describe, expect, it } from 'vitest';
import { conversationMetadata, readConversationMetadata } from './metadataKeys';
import { MAX_TOOL_CHOICE_KEY_LENGTH, MAX_TOOL_CHOICE_KEYS, parseToolChoice } from './storedToolChoice';

describe('reading a stored tool choice', () => {
  it('keeps well-formed lists as they are', () => {
    expect(parseToolChoice({ on: ['builtin/read_file'], off: ['mcp/everything/echo'], pinned: ['builtin/grep'] })).toEqual({
      on: ['builtin/read_file'],
      off: ['mcp/everything/echo'],
      pinned: ['builtin/grep'],
    });
    expect(parseToolChoice({ on: [], off: [] })).toEqual({ on: [], off: [] });
  });

  it('rejects what is not an object, and reads missing or malformed lists as empty', () => {
    for (const bad of [null, undefined, 'on', 3, true, ['builtin/read_file']]) expect(parseToolChoice(bad)).toBeUndefined();
    expect(parseToolChoice({})).toEqual({ on: [], off: [] });
    expect(parseToolChoice({ on: 'builtin/read_file', off: { 0: 'x' }, pinned: 7 })).toEqual({ on: [], off: [] });
  });

  it('drops entries that are not short non-empty strings, and duplicates', () => {
    const long = 'x'.repeat(MAX_TOOL_CHOICE_KEY_LENGTH + 1);
    expect(parseToolChoice({ on: ['a', 1, null, '', long, { k: 'b' }, 'a', 'b'], off: [] })).toEqual({ on: ['a', 'b'], off: [] });
  });

  it('counts a key that is both on and off as off: a malformed choice never offers more', () => {
    expect(parseToolChoice({ on: ['extension/leaf_counter', 'builtin/grep'], off: ['extension/leaf_counter'] })).toEqual({ on: ['builtin/grep'], off: ['extension/leaf_counter'] });
  });

  it('keeps at most MAX_TOOL_CHOICE_KEYS keys of a huge list', () => {
    const many = Array.from({ length: MAX_TOOL_CHOICE_KEYS * 50 }, (_, i) => `builtin/t${i}`);
    const parsed = parseToolChoice({ on: many, off: many.slice(0, 3) });
    expect(parsed?.on).toHaveLength(MAX_TOOL_CHOICE_KEYS - 3);
    expect(parsed?.off).toEqual(['builtin/t0', 'builtin/t1', 'builtin/t2']);
  });

  it('is the reader of the conversation metadata key toolChoice', () => {
    expect(readConversationMetadata({ toolChoice: { on: ['a'], off: ['a', 'b'] } }, 'toolChoice')).toEqual({ on: [], off: ['a', 'b'] });
    expect(readConversationMetadata({ toolChoice: 'all' }, 'toolChoice')).toBeUndefined();
    expect(conversationMetadata({ title: 't', toolChoice: [] })).toEqual({ title: 't' });
  });
});
