import { describe, expect, it } from 'vitest';
import type { ConversationNode, Role } from '../../core/index';
import {
  bookmarkUpdate,
  chatTitle,
  conversationCost,
  conversationTitle,
  editedUserMessage,
  messageDisplayText,
  nodeCost,
  noteUpdate,
  promptDisplayText,
  retentionNotice,
  storedAttachments,
  titleFromMessage,
  totalCostUpdate,
  userMessageMetadata,
} from './conversationRules';

let next = 0;
function node(role: Role, content: string, metadata: Record<string, unknown> = {}): ConversationNode {
  next += 1;
  return { nodeId: `n${next}`, parentId: 'root', position: next, message: { role, content }, timestamp: '2026-01-01T00:00:00Z', metadata };
}

describe('titles', () => {
  it('prefers the stored title, then the first user text, then firstMessage, then "New conversation"', () => {
    expect(conversationTitle({ title: '  Design\nsecond line' }, 'ignored')).toBe('Design');
    expect(conversationTitle({ title: '   ' }, '\n  Explain   this\nplease')).toBe('Explain this');
    expect(conversationTitle({ firstMessage: 'From the list' })).toBe('From the list');
    expect(conversationTitle({ title: 42 })).toBe('New conversation');
  });

  it('names an open chat by what its first user message shows, not the prompt it rendered', () => {
    const nodes = [node('system', 'Be brief.'), node('user', 'Rendered prompt text…', { displayText: '/explain foo' }), node('assistant', 'ok')];
    expect(chatTitle({}, nodes)).toBe('/explain foo');
    expect(chatTitle({ title: 'Mine' }, nodes)).toBe('Mine');
    expect(chatTitle({}, [node('system', '')])).toBe('New conversation');
  });

  it('names an untitled chat that starts with a / prompt by its values, not "/review"', () => {
    const prompt = { name: 'review', path: 'user/review.md', sha256: '', gitBlobId: '' };
    expect(chatTitle({}, [node('user', 'Review…', { displayText: '/review', prompt, promptParams: { code: 'subtotalCents(lines)' } })])).toBe('subtotalCents(lines)');
    // A message written before the values were kept falls back to the prompt's name.
    expect(chatTitle({}, [node('user', 'Review…', { displayText: '/review', prompt })])).toBe('review');
  });

  it('names an untitled conversation from its first message: text, else the prompt, else the first attachment', () => {
    expect(titleFromMessage({}, { text: 'How do I\nfix this?', attachments: [] })).toBe('How do I');
    expect(titleFromMessage({ title: '' }, { text: '', promptName: 'review', attachments: [{ path: 'a.ts' }] })).toBe('review');
    expect(titleFromMessage({}, { text: '', attachments: [{ path: 'src/a.ts' }] })).toBe('src/a.ts');
    expect(titleFromMessage({}, { text: '', attachments: [] })).toBe('New conversation');
    expect(titleFromMessage({ title: 'Kept' }, { text: 'other', attachments: [] })).toBeUndefined();
  });
});

describe('message text and metadata', () => {
  it('shows the typed text when there is one, else the content', () => {
    expect(messageDisplayText(node('user', 'typed\n\nFile a.ts:\n```\nx\n```', { displayText: 'typed' }))).toBe('typed');
    expect(messageDisplayText(node('user', 'File a.ts:\n```\nx\n```', { displayText: '' }))).toBe('File a.ts:\n```\nx\n```');
    expect(messageDisplayText(node('assistant', 'answer'))).toBe('answer');
  });

  it('shows a prompt message as /name and the text typed with it', () => {
    expect(promptDisplayText('review', '  this file ')).toBe('/review this file');
    expect(promptDisplayText('review', '  ')).toBe('/review');
  });

  it('keeps where attachments came from but not their text', () => {
    const attachments = [{ kind: 'selection' as const, path: 'a.ts', startLine: 1, endLine: 2, text: 'const key = 1;' }];
    expect(storedAttachments(attachments)).toEqual([{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2 }]);
    expect(userMessageMetadata(attachments, 'Why?')).toEqual({ attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2 }], displayText: 'Why?' });
    expect(JSON.stringify(userMessageMetadata(attachments, 'Why?'))).not.toContain('const key');
  });

  it('an edit replaces the typed text and keeps the attached text and list of the original', () => {
    const attached = '\n\nSelection from a.ts (lines 1-2):\n```ts\nx\n```';
    const original = node('user', `Why?${attached}`, { displayText: 'Why?', attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2 }] });
    expect(editedUserMessage(original, 'How?')).toEqual({
      content: `How?${attached}`,
      metadata: { attachments: [{ kind: 'selection', path: 'a.ts', startLine: 1, endLine: 2 }], displayText: 'How?' },
    });
  });

  it('an edit of a message with no typed text recorded replaces the whole content', () => {
    expect(editedUserMessage(node('user', 'old text'), 'new text')).toEqual({ content: 'new text', metadata: { attachments: [], displayText: 'new text' } });
    // The recorded text no longer starts the content (changed elsewhere): nothing is carried over.
    expect(editedUserMessage(node('user', 'something else', { displayText: 'old' }), 'new').content).toBe('new');
  });
});

describe('cost', () => {
  it('reads a node cost as 0 when it is missing or not a number', () => {
    expect(nodeCost(node('assistant', 'a', { costUsd: 0.25 }))).toBe(0.25);
    expect(nodeCost(node('assistant', 'a', { costUsd: '0.25' }))).toBe(0);
    expect(nodeCost(node('assistant', 'a'))).toBe(0);
  });

  it('writes the conversation total only when it changed', () => {
    expect(conversationCost({ totalCostUsd: 0.5 })).toBe(0.5);
    expect(conversationCost({})).toBeUndefined();
    expect(totalCostUpdate({ totalCostUsd: 0.5 }, 0.5)).toBeUndefined();
    expect(totalCostUpdate({ totalCostUsd: 0.5 }, 0.75)).toEqual({ totalCostUsd: 0.75 });
    expect(totalCostUpdate({}, 0)).toEqual({ totalCostUsd: 0 });
  });
});

describe('bookmarks, notes and retention', () => {
  it('removes a bookmark or an empty note instead of storing false or blanks', () => {
    expect(bookmarkUpdate(true)).toEqual({ bookmarked: true });
    expect(bookmarkUpdate(false)).toEqual({ bookmarked: undefined });
    expect(noteUpdate('  check the units \n')).toEqual({ note: 'check the units' });
    expect(noteUpdate('  \n ')).toEqual({ note: undefined });
  });

  it('says how many conversations retention removed, names the first few, and names the setting', () => {
    const removed = ['Cache design', 'Larches', '', 'Four', 'Five', 'Six', 'Seven'].map((title) => ({ metadata: { title } }));
    expect(retentionNotice(removed.slice(0, 1), 1)).toBe(
      'Arbor removed 1 conversation nobody changed in 1 day: "Cache design". Bookmarked conversations are always kept; the setting is arbor.retention.days.',
    );
    expect(retentionNotice(removed, 30)).toBe(
      'Arbor removed 7 conversations nobody changed in 30 days: "Cache design", "Larches", "New conversation", "Four", "Five" and 2 more. ' +
        'Bookmarked conversations are always kept; the setting is arbor.retention.days.',
    );
  });
});
