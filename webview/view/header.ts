/**
 * The chat's header: the conversation title, its total cost (and this branch's, when other branches
 * cost something too), the provider and model, a badge in
 * restricted mode, and the notice banner for problems not tied to one answer (no model server…).
 */
import type { ChatState, ErrorActionCommand, NoticeMessage } from '../../src/shared/protocol';
import { h, icon, iconButton, textButton } from '../dom';
import { formatCost } from '../format';
import type { MarkdownRenderer } from '../render/markdown';
import { ContextMeter } from './contextMeter';

/** Title bar plus notice banner. */
export class Header {
  readonly element: HTMLElement;
  private readonly title = h('h1', { className: 'chat-title', testId: 'title', text: 'Arbor' });
  private readonly cost = h('span', { className: 'total-cost', testId: 'total-cost', text: formatCost(0), title: 'Total cost of this conversation, all branches' });
  /** Shown when the conversation has branches that cost something apart from the one read now. */
  private readonly branchCost = h('span', { className: 'branch-cost', testId: 'branch-cost', title: 'Cost of the answers on this branch, from the start to here' });
  private readonly model = h('span', { className: 'chat-model', testId: 'chat-model' });
  private readonly restricted = h('span', {
    className: 'badge badge-restricted',
    testId: 'restricted',
    text: 'Restricted mode',
    title: 'The workspace is not trusted: workspace prompts and retrieval are off',
  });
  private readonly notices = h('div', { className: 'notices' });
  /** Where controls of the chat (the system prompt picker, request options) go, before the model. */
  private readonly controls = h('span', { className: 'chat-controls' });
  /** How full the context is. */
  readonly meter = new ContextMeter();

  constructor(private readonly renderer: MarkdownRenderer) {
    this.restricted.hidden = true;
    this.element = h(
      'div',
      { className: 'chat-header-wrap' },
      h('header', { className: 'chat-header' }, this.title, this.restricted, h('span', { className: 'spacer' }), this.meter.element, this.controls, this.model, this.branchCost, this.cost),
      this.notices,
    );
  }

  /** Puts a control in the header, before the model. */
  addControl(control: HTMLElement): void {
    this.controls.append(control);
  }

  update(state: ChatState): void {
    this.title.textContent = state.title || 'New conversation';
    this.cost.textContent = formatCost(state.totalCostUsd);
    const differs = Math.abs(state.totalCostUsd - state.branchCostUsd) > 1e-12;
    this.branchCost.hidden = !differs;
    this.branchCost.textContent = differs ? `this branch ${formatCost(state.branchCostUsd)} ·` : '';
    this.cost.title = differs ? 'Total cost of this conversation, all branches' : 'Total cost of this conversation';
    this.model.textContent = state.provider && state.model ? `${state.provider} · ${state.model}` : state.model;
    this.restricted.hidden = !state.restricted;
  }

  /** Shows a notice; the same text replaces an older copy instead of stacking. `undo` answers its Undo button. */
  showNotice(
    notice: NoticeMessage,
    offers: {
      undo?: (nodeId: string) => void;
      summariseBranch?: (fromNodeId: string) => void;
      runAction?: (command: ErrorActionCommand) => void;
      retryLoad?: () => void;
      /** What Retry does, when not loading the chat again (sending a message that was not stored). */
      retryTitle?: string;
    } = {},
  ): void {
    const { undo } = offers;
    for (const old of Array.from(this.notices.children)) {
      if ((old as HTMLElement).dataset.message === notice.message) {
        old.remove();
      }
    }
    const iconName = notice.level === 'error' ? 'error' : notice.level === 'warning' ? 'warning' : 'info';
    const banner = h(
      'div',
      {
        className: `notice notice-${notice.level}`,
        testId: 'notice',
        dataset: { level: notice.level, message: notice.message },
        attrs: { role: notice.level === 'info' ? 'status' : 'alert' },
      },
      icon(iconName),
      h('span', { className: 'notice-text' }, this.renderer.renderInline(notice.message)),
    );
    const nodeId = notice.undoCompaction;
    if (nodeId !== undefined && undo) {
      banner.append(
        textButton('Undo', 'notice-undo', 'Undo the compaction: back to the full history', () => {
          undo(nodeId);
          banner.remove();
        }, { secondary: true }),
      );
    }
    const fromNodeId = notice.offerBranchSummary;
    if (fromNodeId !== undefined && offers.summariseBranch) {
      const summarise = offers.summariseBranch;
      banner.append(
        textButton('Carry a Summary', 'notice-summarise-branch', 'Summarise the branch you left into this one', () => {
          summarise(fromNodeId);
          banner.remove();
        }),
      );
    }
    const { runAction, retryLoad } = offers;
    for (const fix of runAction ? (notice.actions ?? []) : []) {
      const button = textButton(fix.title, 'notice-action', fix.title, () => runAction?.(fix.command), { secondary: true });
      button.dataset.command = fix.command;
      banner.append(button);
    }
    if (notice.retryLoad && retryLoad) {
      banner.append(
        textButton('Retry', 'notice-retry', offers.retryTitle ?? 'Load the chat again', () => {
          banner.remove();
          retryLoad();
        }),
      );
    }
    banner.append(iconButton('close', 'Dismiss', 'notice-dismiss', () => banner.remove()));
    this.notices.append(banner);
  }

  /** Removes notices, e.g. once a request went through. */
  clearNotices(): void {
    this.notices.replaceChildren();
  }
}
