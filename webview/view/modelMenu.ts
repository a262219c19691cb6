/**
 * Small popup menus under (or above) a button: the provider's models under the Regenerate button, with
 * VS Code's own models in a "VS Code" group below them (picking one regenerates the answer with that
 * model), and the menus of Ask Several Models. Closes on Escape, on a pick (unless it is a checklist)
 * and on any outside click.
 */
import type { VscodeModelView } from '../../src/shared/protocol';
import { h } from '../dom';

/** The label of VS Code's models' group in the pickers (the host's `VSCODE_MODEL_GROUP`). */
export const VSCODE_GROUP_LABEL = 'VS Code';

/** VS Code's models, as the host last listed them. */
let vscodeModels: readonly VscodeModelView[] = [];

/** Keeps VS Code's models for the menu's "VS Code" group (the `models` message). */
export function setMenuVscodeModels(models: readonly VscodeModelView[]): void {
  vscodeModels = models;
}

let openMenu: { menu: HTMLElement; anchor: HTMLElement; dispose: () => void } | undefined;

/** One entry of a popup menu. */
export interface MenuItem {
  value: string;
  label: string;
  /** A checklist entry: shown ticked or not, and the menu stays open when it is picked. */
  checked?: boolean;
  disabled?: boolean;
  /** Shown after the label (and in its tooltip): VS Code models' vendor and family. */
  description?: string;
  /** Items with a group are listed after the others, under the group's label. */
  group?: string;
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
  const inGroup = new Set(vscodeModels.map((m) => m.id));
  const listed = models.filter((m) => !inGroup.has(m));
  const own = listed.length > 0 || vscodeModels.length > 0 ? listed : current ? [current] : [];
  const label = (model: string, name = model) => (model === current ? `${name} (this answer)` : name);
  togglePopupMenu(
    anchor,
    [
      ...own.map((model) => ({ value: model, label: label(model) })),
      ...vscodeModels.map((m) => ({ value: m.id, label: label(m.id, m.name), description: m.description, group: VSCODE_GROUP_LABEL })),
    ],
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
  const groups = new Map<string, HTMLElement>();
  for (const item of [...items.filter((i) => !i.group), ...items.filter((i) => i.group)]) {
    const checklist = item.checked !== undefined;
    const option: HTMLButtonElement = h('button', {
      className: `popup-item${item.checked ? ' checked' : ''}`,
      testId: options.optionTestId,
      text: item.label,
      dataset: { model: item.value },
      attrs: {
        role: checklist ? 'menuitemcheckbox' : 'menuitem',
        type: 'button',
        ...(checklist ? { 'aria-checked': String(item.checked) } : {}),
        ...(item.description ? { title: `${item.label} — ${item.description}` } : {}),
      },
      onClick: () => {
        if (!checklist) closeModelMenu();
        onPick(item.value, option);
      },
    });
    option.disabled = item.disabled === true;
    if (item.description) option.append(h('span', { className: 'popup-detail', text: item.description }));
    if (!item.group) {
      menu.append(option);
      continue;
    }
    let group = groups.get(item.group);
    if (!group) {
      group = h('div', { className: 'popup-group', testId: 'model-group', dataset: { group: item.group }, attrs: { role: 'group', 'aria-label': item.group } });
      group.append(h('div', { className: 'popup-group-label', text: item.group, attrs: { role: 'presentation' } }));
      groups.set(item.group, group);
      menu.append(group);
    }
    group.append(option);
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
