/**
 * The user's message as soon as it is sent, before the host's next `state` includes it: the host
 * may start streaming the answer first, and the question should not vanish meanwhile.
 */
import type { Attachment } from '../../src/shared/protocol';
import { h, icon } from '../dom';
import { formatRange } from '../format';
import type { MarkdownRenderer } from '../render/markdown';
import { fillContent } from './messageParts';
import { messageHeader } from './messageView';

/** A user bubble for text just sent; the next `state` replaces it with the stored message. */
export function renderOutgoing(requestId: string, text: string, attachments: readonly Attachment[], renderer: MarkdownRenderer): HTMLElement {
  const content = h('div', { className: 'message-content markdown', testId: 'message-content' });
  fillContent(content, text, renderer);
  return h(
    'article',
    {
      className: 'message role-user outgoing',
      testId: 'message',
      dataset: { role: 'user', nodeId: '', outgoing: 'true', requestId },
      ariaLabel: 'You (sending)',
    },
    messageHeader('user'),
    content,
    attachments.length > 0
      ? h(
          'div',
          { className: 'chips attachments' },
          ...attachments.map((a) =>
            h('span', { className: 'chip', testId: 'chip' }, icon(a.kind === 'selection' ? 'selection' : 'file'), h('span', { className: 'chip-label', text: formatRange(a.path, a.startLine, a.endLine) })),
          ),
        )
      : null,
  );
}
