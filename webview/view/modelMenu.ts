/**
 * Small popup menus under (or above) a button: the provider's models under the Regenerate button
 * (picking one regenerates the answer with that model), and the menus of Ask Several Models. Closes on
 * Escape, on a pick (unless it is a checklist) and on any outside click.
 */
import { h } from '../dom';

let openMenu: { menu: HTMLElement; anchor: HTMLElement; dispose: () => void } | undefined;

/** One entry of a popup menu. */
export interface MenuItem {
  value: string;
  label: string;
  /** A checklist entry: shown ticked or not, and the menu stays open when it is picked. */
  checked?: boolean;
  disabled?: boolean;
}

/** How a popup menu is named and laid out. */
export interface MenuOptions {
  label: string;
  testId: string;
  optionTestId: string;
  /** Shown when there are no items. */
  empty: string;
  /** Extra class, e.g. to open above the anchor. */
  className?: string;
}

/** Opens the menu under `anchor`, or closes it when it is already open there. */
export function toggleModelMenu(anchor: HTMLElement, models: readonly string[], current: string | undefined, onPick: (model: string) => void): void {
  const items = models.length > 0 ? models : current ? [current] : [];
  togglePopupMenu(
    anchor,
    items.map((model) => ({ value: model, label: model === current ? `${model} (this answer)` : model })),
    { label: 'Regenerate with model', testId: 'model-menu', optionTestId: 'model-option', empty: 'No models listed by the provider' },
    onPick,
  );
}

/**
 * Opens a menu of `items` after `anchor` (or closes the one open there). Each option carries its value
 * as `data-model`; a checklist's options are `menuitemcheckbox`es whose ticks the caller updates.
 */
export function togglePopupMenu(anchor: HTMLElement, items: readonly MenuItem[], options: MenuOptions, onPick: (value: string, option: HTMLButtonElement) => void): void {
  const wasOpenHere = openMenu?.anchor === anchor;
  closeModelMenu();
  if (wasOpenHere) {
    return;
  }
  const menu = h('div', { className: `popup-menu model-menu${options.className ? ` ${options.className}` : ''}`, testId: options.testId, attrs: { role: 'menu', 'aria-label': options.label } });
  if (items.length === 0) {
    menu.append(h('div', { className: 'popup-empty', text: options.empty }));
  }
  for (const item of items) {
    const checklist = item.checked !== undefined;
    const option: HTMLButtonElement = h('button', {
      className: `popup-item${item.checked ? ' checked' : ''}`,
      testId: options.optionTestId,
      text: item.label,
      dataset: { model: item.value },
      attrs: { role: checklist ? 'menuitemcheckbox' : 'menuitem', type: 'button', ...(checklist ? { 'aria-checked': String(item.checked) } : {}) },
      onClick: () => {
        if (!checklist) closeModelMenu();
        onPick(item.value, option);
      },
    });
    option.disabled = item.disabled === true;
    menu.append(option);
  }
  anchor.after(menu);
  anchor.setAttribute('aria-expanded', 'true');
  const onDocClick = (event: MouseEvent): void => {
    if (!menu.contains(event.target as Node) && event.target !== anchor && !anchor.contains(event.target as Node)) {
      closeModelMenu();
    }
  };
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      closeModelMenu();
      anchor.focus();
    }
  };
  document.addEventListener('click', onDocClick, true);
  document.addEventListener('keydown', onKey);
  openMenu = {
    menu,
    anchor,
    dispose: () => {
      document.removeEventListener('click', onDocClick, true);
      document.removeEventListener('keydown', onKey);
      anchor.setAttribute('aria-expanded', 'false');
      menu.remove();
    },
  };
  (menu.querySelector('button') as HTMLButtonElement | null)?.focus();
}

/** Closes the open menu, if any. */
export function closeModelMenu(): void {
  openMenu?.dispose();
  openMenu = undefined;
}
