import { describe, expect, it } from 'vitest';
import { conversationSystemPrompt, pinSystemPromptUpdate, resolveSystemPrompt, systemPromptMetadata } from './conversationSystemPrompt';

const defaults = { systemPrompt: 'default' };
const library = (...names: string[]) => (name: string) => names.includes(name);

describe("a chat's system prompt", () => {
  it('is the one stored on the chat (none included), whatever the default says', () => {
    expect(conversationSystemPrompt(systemPromptMetadata('code-assistant'), defaults)).toEqual({ name: 'code-assistant', stored: true });
    expect(conversationSystemPrompt(systemPromptMetadata(''), { systemPrompt: 'code-assistant' })).toEqual({ name: '', stored: true });
  });

  it('follows the default when none is stored or the stored one is not text', () => {
    expect(conversationSystemPrompt({}, defaults)).toEqual({ name: 'default', stored: false });
    expect(conversationSystemPrompt(undefined, { systemPrompt: '' })).toEqual({ name: '', stored: false });
    expect(conversationSystemPrompt({ systemPrompt: 7 }, defaults)).toEqual({ name: 'default', stored: false });
  });

  it("keeps a conversation's own root system message unless a prompt is picked", () => {
    expect(conversationSystemPrompt({}, defaults, true)).toEqual({ name: '', stored: false });
    expect(conversationSystemPrompt(systemPromptMetadata('terse'), defaults, true)).toEqual({ name: 'terse', stored: true });
  });
});

describe('resolving it against prompts/system/', () => {
  it('sends a prompt the library has, and none for an empty name', () => {
    expect(resolveSystemPrompt({ name: 'terse', stored: true }, library('terse'))).toEqual({ kind: 'prompt', name: 'terse' });
    expect(resolveSystemPrompt({ name: '', stored: true }, library('terse'))).toEqual({ kind: 'none' });
  });

  it('quietly sends none when the built-in default has no file', () => {
    expect(resolveSystemPrompt({ name: 'default', stored: false }, library())).toEqual({ kind: 'none' });
  });

  it('names the missing prompt and the fix when the person chose it', () => {
    const picked = resolveSystemPrompt({ name: 'gone', stored: true }, library('terse'));
    expect(picked).toMatchObject({ kind: 'missing', name: 'gone' });
    expect(picked.kind === 'missing' && picked.message).toMatch(/^This chat uses the system prompt "gone", but prompts\/system\/ has no such file\. Pick another/);
    const setting = resolveSystemPrompt({ name: 'typo', stored: false }, library('terse'));
    expect(setting.kind === 'missing' && setting.message).toMatch(/^arbor\.systemPrompt names the system prompt "typo".*prompts\/system\/typo\.md/);
    // A chat that pinned `default` while it existed says so too, instead of silently dropping it.
    expect(resolveSystemPrompt({ name: 'default', stored: true }, library()).kind).toBe('missing');
  });
});

describe('pinning at the first answer', () => {
  it('stores what was sent when the chat has nothing stored, and nothing otherwise', () => {
    expect(pinSystemPromptUpdate({}, { kind: 'prompt', name: 'default' })).toEqual({ systemPrompt: 'default' });
    expect(pinSystemPromptUpdate({}, { kind: 'none' })).toEqual({ systemPrompt: '' });
    expect(pinSystemPromptUpdate(systemPromptMetadata(''), { kind: 'prompt', name: 'default' })).toBeUndefined();
    expect(pinSystemPromptUpdate(systemPromptMetadata('terse'), { kind: 'prompt', name: 'terse' })).toBeUndefined();
  });
});
