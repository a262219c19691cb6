/**
 * A keyboard-driven list shown above the composer: the `/` prompt menu and the `#file` picker.
 * The composer keeps focus in its text box and forwards Up, Down, Enter, Tab and Escape here.
 */
import { h } from '../dom';

/** How the list shows an item. */
export interface PopupItem<T> {
  value: T;
  label: string;
  detail?: string;
}

/** A list with a highlighted row that the keyboard moves and Enter picks. */
export class PopupList<T> {
  readonly element: HTMLElement;
  private items: Array<PopupItem<T>> = [];
  private rows: HTMLElement[] = [];
  private active = 0;

  constructor(
    testId: string,
    private readonly itemTestId: string,
    label: string,
    private readonly onPick: (value: T) => void,
    private readonly emptyText: string,
  ) {
    this.element = h('div', { className: 'popup-menu composer-popup', testId, attrs: { role: 'listbox', 'aria-label': label } });
    this.element.hidden = true;
  }

  /** Shows `items`, highlighting the first. */
  show(items: Array<PopupItem<T>>): void {
    this.items = items;
    this.active = 0;
    this.element.hidden = false;
    this.render();
  }

  hide(): void {
    this.element.hidden = true;
    this.items = [];
    this.rows = [];
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Handles a key the composer got; true when the list used it. */
  handleKey(event: KeyboardEvent): boolean {
    if (!this.isOpen) {
      return false;
    }
    switch (event.key) {
      case 'ArrowDown':
        this.move(1);
        return true;
      case 'ArrowUp':
        this.move(-1);
        return true;
      case 'Enter':
      case 'Tab':
        if (event.shiftKey || this.items.length === 0) {
          return false;
        }
        this.pick(this.active);
        return true;
      case 'Escape':
        this.hide();
        return true;
      default:
        return false;
    }
  }

  private move(delta: number): void {
    if (this.items.length === 0) {
      return;
    }
    this.highlight(this.active, false);
    this.active = (this.active + delta + this.items.length) % this.items.length;
    this.highlight(this.active, true);
  }

  /** Moves the highlight by patching two rows, not by rebuilding the list. */
  private highlight(index: number, on: boolean): void {
    const row = this.rows[index];
    row?.classList.toggle('active', on);
    row?.setAttribute('aria-selected', String(on));
  }

  private pick(index: number): void {
    const item = this.items[index];
    if (item) {
      this.hide();
      this.onPick(item.value);
    }
  }

  private render(): void {
    if (this.items.length === 0) {
      this.rows = [];
      this.element.replaceChildren(h('div', { className: 'popup-empty', text: this.emptyText }));
      return;
    }
    this.rows = this.items.map((item, index) => {
      const row = h(
        'div',
        {
          className: `popup-item${index === this.active ? ' active' : ''}`,
          testId: this.itemTestId,
          attrs: { role: 'option', 'aria-selected': String(index === this.active) },
        },
        h('span', { className: 'popup-label', text: item.label }),
        item.detail ? h('span', { className: 'popup-detail', text: item.detail }) : null,
      );
      // mousedown, not click, so the composer's text box keeps its focus.
      row.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.pick(index);
      });
      return row;
    });
    this.element.replaceChildren(...this.rows);
  }
}
