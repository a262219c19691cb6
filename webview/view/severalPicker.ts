/**
 * The composer's Ask Several Models control: a button that opens a checklist of the same models the
 * picker lists; with 2–4 ticked, Send asks each of them at once (in the order ticked) and the ticks
 * clear. The button says how many are ticked.
 */
import { SEVERAL_MAX_MODELS, SEVERAL_MIN_MODELS } from '../../src/shared/protocol';
import { h, icon } from '../dom';
import { togglePopupMenu } from './modelMenu';

/** The Ask Several Models button and its checklist. */
export class SeveralPicker {
  readonly element: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly count: HTMLElement;
  private models: readonly string[] = [];
  /** Ticked models, in the order ticked. */
  private picked: string[] = [];

  constructor() {
    this.count = h('span', { className: 'icon-button-text several-count', testId: 'several-count' });
    this.button = h(
      'button',
      {
        className: 'icon-button several-toggle',
        testId: 'several-toggle',
        title: `Ask several models: tick ${SEVERAL_MIN_MODELS}–${SEVERAL_MAX_MODELS} models, and Send asks each of them at once`,
        ariaLabel: 'Ask several models',
        attrs: { type: 'button', 'aria-haspopup': 'menu' },
        onClick: () => this.open(),
      },
      icon('split-horizontal'),
      this.count,
    );
    this.element = h('span', { className: 'several-picker' }, this.button);
    this.render();
  }

  /** The models the provider lists (ticked ones no longer listed are dropped). */
  setModels(models: readonly string[]): void {
    this.models = models;
    this.picked = this.picked.filter((m) => models.includes(m));
    this.render();
  }

  /** The ticked models when there are enough to ask at once; otherwise none (Send asks the chat's model). */
  chosen(): string[] {
    return this.picked.length >= SEVERAL_MIN_MODELS ? [...this.picked] : [];
  }

  /** Unticks every model (after a send). */
  clear(): void {
    this.picked = [];
    this.render();
  }

  private open(): void {
    togglePopupMenu(
      this.button,
      this.models.map((model) => ({ value: model, label: model, checked: this.picked.includes(model), disabled: !this.picked.includes(model) && this.picked.length >= SEVERAL_MAX_MODELS })),
      { label: 'Ask several models', testId: 'several-menu', optionTestId: 'several-option', empty: 'No models listed by the provider', className: 'several-menu' },
      (model, option) => {
        this.picked = this.picked.includes(model) ? this.picked.filter((m) => m !== model) : [...this.picked, model];
        option.setAttribute('aria-checked', String(this.picked.includes(model)));
        option.classList.toggle('checked', this.picked.includes(model));
        // At the limit, the unticked ones wait until one is unticked.
        option.parentElement?.querySelectorAll<HTMLButtonElement>('[data-testid="several-option"]').forEach((o) => {
          o.disabled = !this.picked.includes(o.dataset.model ?? '') && this.picked.length >= SEVERAL_MAX_MODELS;
        });
        this.render();
      },
    );
  }

  private render(): void {
    const n = this.picked.length;
    this.count.textContent = n > 0 ? String(n) : '';
    this.button.classList.toggle('on', n >= SEVERAL_MIN_MODELS);
    this.button.hidden = this.models.length < SEVERAL_MIN_MODELS;
    const label = n >= SEVERAL_MIN_MODELS ? `Ask several models: Send asks ${this.picked.join(', ')}` : n === 1 ? `Ask several models: ${this.picked[0]} ticked; tick at least one more` : 'Ask several models';
    this.button.setAttribute('aria-label', label);
    this.button.dataset.picked = this.picked.join(',');
  }
}
