/**
 * The small popup that lists the provider's models under the Regenerate button, and VS Code's own models
 * in a "VS Code" group below them; picking one regenerates the answer with that model. Closes on Escape,
 * on a pick and on any outside click.
 */
import type { VscodeModelView } from '../../src/shared/protocol';
import { h } from '../dom';

/** The label of VS Code's models' group in the pickers (the host's `VSCODE_MODEL_GROUP`). */
export const VSCODE_GROUP_LABEL = 'VS Code';

let openMenu: { menu: HTMLElement; anchor: HTMLElement; dispose: () => void } | undefined;
/** VS Code's models, as the host last listed them. */
let vscodeModels: readonly VscodeModelView[] = [];

/** Keeps VS Code's models for the menu's "VS Code" group (the `models` message). */
export function setMenuVscodeModels(models: readonly VscodeModelView[]): void {
  vscodeModels = models;
}

/** One model's button. */
function modelButton(model: string, label: string, current: string | undefined, onPick: (model: string) => void, description?: string): HTMLElement {
  const button = h('button', {
    className: 'popup-item',
    testId: 'model-option',
    text: model === current ? `${label} (this answer)` : label,
    dataset: { model },
    attrs: { role: 'menuitem', type: 'button', ...(description ? { title: `${label} — ${description}` } : {}) },
    onClick: () => {
      closeModelMenu();
      onPick(model);
    },
  });
  if (description) button.append(h('span', { className: 'popup-detail', text: description }));
  return button;
}

/** Opens the menu under `anchor`, or closes it when it is already open there. */
export function toggleModelMenu(anchor: HTMLElement, models: readonly string[], current: string | undefined, onPick: (model: string) => void): void {
  const wasOpenHere = openMenu?.anchor === anchor;
  closeModelMenu();
  if (wasOpenHere) {
    return;
  }
  const inGroup = new Set(vscodeModels.map((m) => m.id));
  const listed = models.filter((m) => !inGroup.has(m));
  const items = listed.length > 0 || vscodeModels.length > 0 ? listed : current ? [current] : [];
  const menu = h('div', { className: 'popup-menu model-menu', testId: 'model-menu', attrs: { role: 'menu', 'aria-label': 'Regenerate with model' } });
  if (items.length === 0 && vscodeModels.length === 0) {
    menu.append(h('div', { className: 'popup-empty', text: 'No models listed by the provider' }));
  }
  for (const model of items) menu.append(modelButton(model, model, current, onPick));
  if (vscodeModels.length > 0) {
    const group = h('div', { className: 'popup-group', testId: 'model-group', dataset: { group: VSCODE_GROUP_LABEL }, attrs: { role: 'group', 'aria-label': VSCODE_GROUP_LABEL } });
    group.append(h('div', { className: 'popup-group-label', text: VSCODE_GROUP_LABEL, attrs: { role: 'presentation' } }));
    for (const m of vscodeModels) group.append(modelButton(m.id, m.name, current, onPick, m.description));
    menu.append(group);
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

/** Closes the open model menu, if any. */
function closeModelMenu(): void {
  openMenu?.dispose();
  openMenu = undefined;
}
