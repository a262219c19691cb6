/**
 * The context meter in the chat's header: tokens the next request carries against the model's
 * window ("12.3k / 128k"), a bar that turns to a warning near the automatic compaction threshold,
 * and the breakdown on hover (system, instruction files, history, attachments, retrieval, the draft, the
 * tools offered and how many of the chat's, the answer's reserve).
 */
import type { UsageView } from '../../src/shared/protocol';
import { h } from '../dom';

/** "950", "12.3k", "128k", "1.05M". */
export function formatTokenCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(2).replace(/0$/, '').replace(/\.0$/, '')}M`;
}

/** The meter's text, bar and tooltip. */
export class ContextMeter {
  readonly element: HTMLElement;
  private readonly label = h('span', { className: 'context-meter-label', testId: 'context-meter-label' });
  private readonly fill = h('span', { className: 'context-meter-fill' });

  constructor() {
    this.element = h(
      'span',
      { className: 'context-meter', testId: 'context-meter', attrs: { role: 'meter', 'aria-label': 'Context used', hidden: '' } },
      h('span', { className: 'context-meter-bar' }, this.fill),
      this.label,
    );
  }

  update(usage: UsageView): void {
    const { parts } = usage;
    const total = usage.used + usage.reserved;
    const approx = usage.exact ? '' : '~';
    this.element.hidden = false;
    this.label.textContent = usage.limit ? `${approx}${formatTokenCount(total)} / ${formatTokenCount(usage.limit)}` : `${approx}${formatTokenCount(usage.used)} tokens`;
    const fraction = usage.limit ? total / usage.limit : 0;
    this.fill.style.width = `${Math.min(100, Math.round(fraction * 100))}%`;
    this.element.classList.toggle('near-limit', usage.limit !== undefined && fraction >= usage.autoCompactAt * 0.9);
    this.element.classList.toggle('over-limit', usage.limit !== undefined && fraction >= 1);
    if (usage.limit) {
      this.element.setAttribute('aria-valuemin', '0');
      this.element.setAttribute('aria-valuemax', String(usage.limit));
      this.element.setAttribute('aria-valuenow', String(total));
    }
    const line = (name: string, n: number) => `${name}: ${n.toLocaleString('en-US')}`;
    this.element.title = [
      usage.limit
        ? `Context: ${total.toLocaleString('en-US')} of ${usage.limit.toLocaleString('en-US')} tokens (${Math.round(fraction * 100)}%)${usage.exact ? '' : ', estimated'}`
        : `Context: ${usage.used.toLocaleString('en-US')} tokens${usage.exact ? '' : ', estimated'}; the model's window is unknown`,
      line('System prompt and summary', parts.system),
      parts.instructions ? line('Instructions', parts.instructions) : '',
      line('History', parts.history),
      line('Attachments', parts.attachments),
      line('Retrieved context and templates', parts.retrieval),
      line('Your draft', parts.draft),
      usage.tools && usage.tools.offered < usage.tools.total
        ? `${line('Tool definitions', parts.tools)} (${usage.tools.offered} of ${usage.tools.total} tools, to fit the window)`
        : usage.tools
          ? `${line('Tool definitions', parts.tools)} (${usage.tools.total} tool${usage.tools.total === 1 ? '' : 's'})`
          : line('Tool definitions', parts.tools),
      line('Reserved for the answer', usage.reserved),
      usage.limit && usage.autoCompactAt > 0 ? `Arbor compacts older turns at ${Math.round(usage.autoCompactAt * 100)}%` : '',
    ]
      .filter(Boolean)
      .join('\n');
  }
}
