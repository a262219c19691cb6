/**
 * The `#file` picker: a search box over the workspace's files (asked of the host with `findFiles`,
 * answered by `response` with paths) and a list to pick one from; the pick becomes an attachment.
 */
import { h } from '../dom';
import { PopupList } from './popupList';

const QUERY_DELAY_MS = 120;

/** A search box plus result list; `search` asks the host, `onPick` receives the chosen path. */
export class FilePicker {
  readonly element: HTMLElement;
  private readonly query: HTMLInputElement;
  private readonly list: PopupList<string>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private latest = 0;

  constructor(
    private readonly search: (query: string) => Promise<readonly string[]>,
    private readonly onPick: (path: string) => void,
    private readonly onClose: () => void,
  ) {
    this.list = new PopupList<string>('file-list', 'file-option', 'Workspace files', (path) => {
      this.close();
      this.onPick(path);
    }, 'No matching files');
    this.query = h('input', {
      className: 'file-query',
      testId: 'file-query',
      attrs: { type: 'text', placeholder: 'Search files to attach', 'aria-label': 'Search workspace files' },
    });
    this.query.addEventListener('input', () => this.schedule());
    this.query.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        this.close();
      } else if (this.list.handleKey(event)) {
        event.preventDefault();
      }
    });
    this.element = h('div', { className: 'file-picker', testId: 'file-picker' }, this.query, this.list.element);
    this.element.hidden = true;
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Shows the picker with an empty query and focuses its search box. */
  open(): void {
    this.element.hidden = false;
    this.query.value = '';
    this.query.focus();
    void this.run('');
  }

  close(): void {
    clearTimeout(this.timer);
    this.latest += 1;
    this.list.hide();
    this.element.hidden = true;
    this.onClose();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(this.query.value), QUERY_DELAY_MS);
  }

  private async run(query: string): Promise<void> {
    const ticket = ++this.latest;
    let paths: readonly string[];
    try {
      paths = await this.search(query);
    } catch {
      paths = [];
    }
    if (ticket !== this.latest || !this.isOpen) {
      return;
    }
    this.list.show(paths.slice(0, 50).map((path) => ({ value: path, label: path.split('/').pop() ?? path, detail: path })));
  }
}
