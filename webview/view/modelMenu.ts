/**
 * The small popup that lists the provider's models under the Regenerate button; picking one
 * regenerates the answer with that model. Closes on Escape, on a pick and on any outside click.
 */
import { h } from '../dom';

let openMenu: { menu: HTMLElement; anchor: HTMLElement; dispose: () => void } | undefined;

/** Opens the menu under `anchor`, or closes it when it is already open there. */
export function toggleModelMenu(anchor: HTMLElement, models: readonly string[], current: string | undefined, onPick: (model: string) => void): void {
  const wasOpenHere = openMenu?.anchor === anchor;
  closeModelMenu();
  if (wasOpenHere) {
    return;
  }
  const items = models.length > 0 ? models : current ? [current] : [];
  const menu = h('div', { className: 'popup-menu model-menu', testId: 'model-menu', attrs: { role: 'menu', 'aria-label': 'Regenerate with model' } });
  if (items.length === 0) {
    menu.append(h('div', { className: 'popup-empty', text: 'No models listed by the provider' }));
  }
  for (const model of items) {
    menu.append(
      h('button', {
        className: 'popup-item',
        testId: 'model-option',
        text: model === current ? `${model} (this answer)` : model,
        dataset: { model },
        attrs: { role: 'menuitem', type: 'button' },
        onClick: () => {
          closeModelMenu();
          onPick(model);
        },
      }),
    );
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
