/**
 * The cards of summary nodes in the chat: a compaction (how many messages its summary stands for,
 * what it saved, the summary folded, Undo) and a branch summary (what a branch the reader left
 * found, with Remove), and the collapsed look of the messages a compaction covers.
 */
import type { CompactionView, MessageView } from '../../src/shared/protocol';
import { h, icon, textButton } from '../dom';
import type { MarkdownRenderer } from '../render/markdown';
import type { MessageActions } from './actions';
import { fillContent, siblingSwitcher } from './messageParts';

/**
 * A message a compaction below it summarises: shown collapsed (the summary stands for it in what
 * is sent); a click on its badge opens it.
 */
export function markCovered(article: HTMLElement): void {
  article.classList.add('covered', 'collapsed');
  article.dataset.covered = 'true';
  const badge = h('button', {
    className: 'badge badge-covered',
    testId: 'covered-badge',
    text: 'Summarised',
    title: 'A summary below stands for this message in what is sent. Click to show or hide it.',
    attrs: { type: 'button', 'aria-expanded': 'false' },
    onClick: () => {
      const collapsed = article.classList.toggle('collapsed');
      badge.setAttribute('aria-expanded', String(!collapsed));
    },
  });
  article.querySelector('.message-header')?.insertBefore(badge, article.querySelector('.message-header .message-actions'));
}

/** What a summary card shows: its kind's look, the header's parts, and the summary folded under a line. */
interface SummaryCard {
  className: string;
  dataset: Record<string, string>;
  ariaLabel: string;
  headerParts: Array<Node | null>;
  summaryTestId: string;
  summaryLine: string;
  open: boolean;
}

/** The article of a summary node: its header, then the rendered summary in a `<details>`. */
function summaryCard(message: MessageView, renderer: MarkdownRenderer, card: SummaryCard): HTMLElement {
  const content = h('div', { className: 'message-content markdown', testId: 'message-content' });
  fillContent(content, message.content, renderer);
  return h(
    'article',
    { className: `message role-system ${card.className}`, testId: 'message', dataset: { nodeId: message.nodeId, role: message.role, ...card.dataset }, ariaLabel: card.ariaLabel },
    h('header', { className: 'message-header' }, ...card.headerParts),
    h('details', { className: 'compaction-summary', testId: card.summaryTestId, attrs: card.open ? { open: '' } : {} }, h('summary', { text: card.summaryLine }), content),
  );
}

/**
 * A compaction: how many messages its summary stands for and what it saved, the summary itself
 * collapsed, and Undo (back to the full history).
 */
export function renderCompaction(message: MessageView, info: CompactionView, renderer: MarkdownRenderer, actions: MessageActions): HTMLElement {
  const how = info.method === 'fallback' ? ', without a model' : info.model ? ` by ${info.model}` : '';
  const when = info.trigger === 'auto' ? 'Compacted automatically' : info.trigger === 'overflow' ? 'Compacted after the model refused the length' : 'Compacted';
  return summaryCard(message, renderer, {
    className: 'compaction',
    dataset: { compaction: 'true' },
    ariaLabel: 'Summary of earlier messages',
    headerParts: [
      icon('fold'),
      h('span', { className: 'message-author', testId: 'compaction-title', text: `Summary of ${info.coveredCount} earlier message${info.coveredCount === 1 ? '' : 's'}` }),
      h('span', { className: 'compaction-stats', testId: 'compaction-stats', text: `${info.tokensBefore.toLocaleString('en-US')} → ${info.tokensAfter.toLocaleString('en-US')} tokens` }),
      siblingSwitcher(message, actions),
      h('span', { className: 'spacer' }),
      textButton('Undo', 'compaction-undo', 'Undo the compaction: back to the full history', () => actions.undoCompaction(message.nodeId), { secondary: true }),
    ],
    summaryTestId: 'compaction-summary',
    summaryLine: `${when}${how}${info.focus ? `, focused on ${info.focus}` : ''}`,
    open: false,
  });
}

/** A branch summary: what the branch the reader left found, folded, with Remove. */
export function renderBranchSummary(message: MessageView, info: NonNullable<MessageView['branchSummary']>, renderer: MarkdownRenderer, actions: MessageActions): HTMLElement {
  return summaryCard(message, renderer, {
    className: 'compaction branch-summary',
    dataset: { branchSummary: 'true' },
    ariaLabel: 'Summary of a branch you left',
    headerParts: [
      icon('git-branch'),
      h('span', { className: 'message-author', testId: 'branch-summary-title', text: `Summary of the branch you left (${info.coveredCount} messages)` }),
      h('span', { className: 'spacer' }),
      textButton('Remove', 'branch-summary-remove', 'Remove this branch summary', () => actions.removeBranchSummary(message.nodeId), { secondary: true }),
    ],
    summaryTestId: 'branch-summary',
    summaryLine: `Carried into this branch${info.model ? `, written by ${info.model}` : ''}`,
    open: true,
  });
}
