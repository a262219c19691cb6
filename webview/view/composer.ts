/**
 * The message box: a `vscode-textarea` where Enter sends and Shift+Enter breaks the line, Up in an
 * empty box edits the last user message, `/` at the start opens the prompt library, `#file` and
 * `#selection` attach context, attachments show as removable chips; the model picker and
 * Send/Stop sit under it.
 */
import type { Attachment, ImageSupport, ImageView, PromptSummary, VscodeModelView } from '../../src/shared/protocol';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import { h, icon, iconButton } from '../dom';
import { formatRange } from '../format';
import { fitToText } from './autoGrow';
import { FilePicker } from './filePicker';
import { ComposerImages } from './imageThumbnails';
import { PopupList } from './popupList';
import { VSCODE_GROUP_LABEL } from './modelMenu';
import { PromptForm } from './promptForm';
import { SeveralPicker } from './severalPicker';

/** What the composer asks of the page. */
export interface ComposerHost {
  /** `models`: Ask Several Models, when 2–4 are ticked. */
  send(message: { text: string; attachments: readonly Attachment[]; promptName?: string; promptKind?: 'user' | 'messages' | 'flow'; params?: Record<string, string>; models?: string[]; images?: readonly ImageView[] }): void;
  stop(): void;
  selectModel(model: string): void;
  findFiles(query: string): Promise<readonly string[]>;
  attachSelection(): void;
  /** Opens the editor on the last user message; false when there is none. */
  editLast(): boolean;
  saveDraft(draft: string, attachments: readonly Attachment[]): void;
}

const SLASH = /^\/(\S*)$/;
/** `/compact [focus]`: Arbor's own command, listed in the `/` menu after the library's prompts. */
const COMPACT_COMMAND: PromptSummary = {
  name: 'compact',
  description: 'Summarise the older turns to free context (Undo brings them back); add what to focus on',
  params: [],
};
const HASH_TRIGGER = /(^|\s)#(file|selection)$/;

/** The composer at the bottom of the chat. */
export class Composer {
  readonly element: HTMLElement;
  private readonly input: HTMLElementTagNameMap['vscode-textarea'];
  private readonly sendButton: HTMLElementTagNameMap['vscode-button'];
  private readonly stopButton: HTMLElementTagNameMap['vscode-button'];
  private readonly modelPicker: VscodeSingleSelect;
  private readonly attachmentBar: HTMLElement;
  private readonly promptMenu: PopupList<PromptSummary>;
  private readonly promptForm: PromptForm;
  private readonly filePicker: FilePicker;
  private readonly several = new SeveralPicker();
  private readonly images = new ComposerImages(() => this.input.focus());
  private attachments: Attachment[] = [];
  private prompts: readonly PromptSummary[] = [];
  private busy = false;

  constructor(private readonly host: ComposerHost) {
    this.input = document.createElement('vscode-textarea');
    this.input.dataset.testid = 'composer-input';
    this.input.className = 'composer-input';
    this.input.placeholder = 'Ask about your code. / for prompts, #file or #selection to attach; Enter sends, Shift+Enter new line';
    this.input.setAttribute('aria-label', 'Message');
    this.input.rows = 3;
    // It grows with its text (up to about 12 lines, then scrolls) instead of being dragged.
    this.input.resize = 'none';
    this.input.addEventListener('keydown', (event) => this.onKeyDown(event));
    this.input.addEventListener('input', () => {
      fitToText(this.input);
      this.onInput();
    });
    window.addEventListener('resize', () => fitToText(this.input));

    this.sendButton = document.createElement('vscode-button');
    this.sendButton.dataset.testid = 'send';
    this.sendButton.textContent = 'Send';
    this.sendButton.setAttribute('aria-label', 'Send message');
    this.sendButton.addEventListener('click', () => this.submit());

    this.stopButton = document.createElement('vscode-button');
    this.stopButton.dataset.testid = 'stop';
    this.stopButton.className = 'stop-button';
    this.stopButton.secondary = true;
    this.stopButton.append(icon('debug-stop'), 'Stop');
    this.stopButton.setAttribute('aria-label', 'Stop the answer; the partial text is kept');
    this.stopButton.hidden = true;
    this.stopButton.addEventListener('click', () => this.host.stop());

    this.modelPicker = document.createElement('vscode-single-select');
    this.modelPicker.dataset.testid = 'model-picker';
    this.modelPicker.className = 'model-picker';
    // The composer sits at the bottom of the panel: open the list upwards.
    this.modelPicker.position = 'above';
    this.modelPicker.setAttribute('aria-label', 'Model');
    this.modelPicker.addEventListener('change', () => {
      if (this.modelPicker.value) {
        this.host.selectModel(this.modelPicker.value);
      }
    });

    this.attachmentBar = h('div', { className: 'chips composer-attachments', testId: 'composer-attachments', attrs: { 'aria-label': 'Attached context' } });
    this.promptMenu = new PopupList<PromptSummary>('prompt-menu', 'prompt-option', 'Prompts', (prompt) => this.pickPrompt(prompt), 'No prompts in the workspace library');
    this.promptForm = new PromptForm(() => this.input.focus());
    this.filePicker = new FilePicker(
      (query) => this.host.findFiles(query),
      (path) => this.addAttachments([{ kind: 'file', path }]),
      () => this.input.focus(),
    );

    this.element = h(
      'footer',
      { className: 'composer', testId: 'composer' },
      this.promptMenu.element,
      this.filePicker.element,
      this.promptForm.element,
      this.images.element,
      this.attachmentBar,
      this.input,
      h(
        'div',
        { className: 'composer-bar' },
        this.modelPicker,
        this.several.element,
        iconButton('mention', 'Attach a file (#file)', 'attach-file', () => this.filePicker.open()),
        iconButton('selection', 'Attach the editor selection (#selection)', 'attach-selection', () => this.host.attachSelection()),
        h('span', { className: 'spacer' }),
        this.stopButton,
        this.sendButton,
      ),
    );
    this.images.listen(this.input, this.element);
  }

  /** The text in the box now. */
  get text(): string {
    return this.input.value;
  }

  /** Sends what is in the box, as Send does (Retry of a message that was not stored). */
  sendDraft(): void {
    this.submit();
  }

  /** Restores a draft saved before a reload. */
  restore(draft: string, attachments: readonly Attachment[]): void {
    this.setText(draft);
    this.attachments = [...attachments];
    this.renderAttachments();
  }

  /** While busy, Stop replaces Send and Enter does not send. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.stopButton.hidden = !busy;
    this.sendButton.hidden = busy;
  }

  /**
   * Fills the model picker: the provider's models, then VS Code's under a "VS Code" heading (a disabled
   * option) with vendor and family as each one's description; `current` is selected without telling the
   * host again.
   */
  setModels(models: readonly string[], current: string, vscodeModels: readonly VscodeModelView[] = []): void {
    const inGroup = vscodeModels.some((m) => m.id === current);
    const all = models.includes(current) || !current || inGroup ? models : [current, ...models];
    const option = (value: string, text: string, description?: string) => {
      const o = document.createElement('vscode-option');
      o.value = value;
      o.textContent = text;
      if (description) o.description = description;
      o.selected = value === current;
      return o;
    };
    const group: HTMLElement[] = [];
    if (vscodeModels.length > 0) {
      const heading = option('', VSCODE_GROUP_LABEL);
      heading.disabled = true;
      heading.dataset.testid = 'model-group-label';
      group.push(heading, ...vscodeModels.map((m) => option(m.id, m.name, m.description)));
    }
    this.modelPicker.replaceChildren(...all.map((model) => option(model, model)), ...group);
    this.modelPicker.value = current;
    this.several.setModels(all);
  }

  /** Keeps the picker on the model the chat uses, once the list is there. */
  setCurrentModel(model: string): void {
    if (model && this.modelPicker.value !== model && [...this.modelPicker.querySelectorAll('vscode-option')].some((o) => o.value === model)) {
      this.modelPicker.value = model;
    }
  }

  setPrompts(prompts: readonly PromptSummary[]): void {
    this.prompts = prompts;
    // A `/` typed before the list came (a chat just opened) shows the prompts as soon as they are here.
    if (!this.promptMenu.element.hidden) this.updatePromptMenu();
  }

  /** Adds attachments (from `attach`, `#file` or `#selection`) and optional text. */
  addAttachments(attachments: readonly Attachment[], text?: string): void {
    for (const attachment of attachments) {
      const key = attachmentKey(attachment);
      if (!this.attachments.some((existing) => attachmentKey(existing) === key)) {
        this.attachments.push(attachment);
      }
    }
    if (text) {
      this.setText(this.input.value ? `${this.input.value}\n${text}` : text);
    }
    this.renderAttachments();
    this.saveDraft();
    this.input.focus();
  }

  /** Puts the caret in the message box (once the element has drawn its inner box, which takes the focus). */
  focus(): void {
    this.input.focus();
    void this.input.updateComplete.then(() => {
      if (!this.input.matches(':focus-within')) this.input.focus();
    });
  }

  /** Branch from Here: focus, and for a new version of a message start from its text when the box is empty. */
  startBranch(text: string | undefined): void {
    if (text && !this.input.value.trim()) {
      this.setText(text);
      this.saveDraft();
    }
    this.input.focus();
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (event.isComposing) {
      return;
    }
    if (this.promptMenu.handleKey(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === 'ArrowUp' && this.input.value === '' && !this.busy) {
      if (this.host.editLast()) {
        event.preventDefault();
      }
    }
  }

  /** Shows the `/` menu for what is typed (or hides it); also when the prompt list arrives while it is open. */
  private updatePromptMenu(): void {
    const slash = SLASH.exec(this.input.value);
    if (slash && !this.promptForm.current) {
      const query = slash[1].toLowerCase();
      this.promptMenu.show(
        [...this.prompts, COMPACT_COMMAND]
          .filter((prompt) => prompt.name.toLowerCase().includes(query))
          .map((prompt) => ({ value: prompt, label: `/${prompt.name}`, detail: promptDetail(prompt) })),
      );
    } else {
      this.promptMenu.hide();
    }
  }

  private onInput(): void {
    const value = this.input.value;
    this.updatePromptMenu();
    const caret = this.input.wrappedElement?.selectionStart ?? value.length;
    const hash = HASH_TRIGGER.exec(value.slice(0, caret));
    if (hash) {
      const start = caret - hash[2].length - 1;
      this.setText(value.slice(0, start) + value.slice(caret));
      this.input.wrappedElement?.setSelectionRange(start, start);
      if (hash[2] === 'file') {
        this.filePicker.open();
      } else {
        this.host.attachSelection();
      }
    }
    this.saveDraft();
  }

  private pickPrompt(prompt: PromptSummary): void {
    if (prompt === COMPACT_COMMAND) {
      // A command, not a template: `/compact` and, optionally, what to focus on; Enter runs it.
      this.setText('/compact ');
      this.promptMenu.hide();
      this.input.focus();
      this.saveDraft();
      return;
    }
    this.setText('');
    this.promptForm.open(prompt);
    if (!this.promptForm.element.contains(document.activeElement)) {
      this.input.focus();
    }
    this.saveDraft();
  }

  /** The limits of images and whether the chat's model takes them (from the chat state). */
  setImageSupport(support: ImageSupport | undefined): void {
    this.images.setSupport(support);
  }

  private submit(): void {
    if (this.busy) {
      return;
    }
    const text = this.input.value.trim();
    const prompt = this.promptForm.current;
    const models = this.several.chosen();
    const several = models.length > 0 && !/^\/compact\b/.test(text) ? { models } : {};
    if (prompt) {
      const { params, missing } = this.promptForm.values();
      if (missing.length > 0) {
        return;
      }
      this.host.send({ text, attachments: [...this.attachments], promptName: prompt.name, ...(prompt.kind ? { promptKind: prompt.kind } : {}), params, ...several });
    } else {
      if (!text && this.images.count === 0) {
        return;
      }
      const images = this.images.take();
      this.host.send({ text, attachments: [...this.attachments], ...several, ...(images.length ? { images } : {}) });
    }
    this.setText('');
    this.attachments = [];
    this.several.clear();
    this.renderAttachments();
    if (prompt) {
      this.promptForm.close();
    }
    this.saveDraft();
  }

  /**
   * Sets the text box now: the element's own `value` renders on the next microtask, and a blur
   * before then (focus moving to the file picker) would read the old text back from the inner box.
   */
  private setText(value: string): void {
    this.input.value = value;
    const inner = this.input.wrappedElement as HTMLTextAreaElement | null | undefined;
    if (inner) {
      inner.value = value;
    }
    fitToText(this.input);
  }

  private renderAttachments(): void {
    this.attachmentBar.replaceChildren(
      ...this.attachments.map((attachment) => {
        const label = formatRange(attachment.path, attachment.startLine, attachment.endLine);
        return h(
          'span',
          { className: 'chip', testId: 'attachment', title: label },
          icon(attachment.kind === 'selection' ? 'selection' : 'file'),
          h('span', { className: 'chip-label', text: label }),
          iconButton('close', `Remove ${label}`, 'attachment-remove', () => {
            this.attachments = this.attachments.filter((item) => item !== attachment);
            this.renderAttachments();
            this.saveDraft();
          }),
        );
      }),
    );
    this.attachmentBar.hidden = this.attachments.length === 0;
  }

  private saveDraft(): void {
    this.host.saveDraft(this.input.value, this.attachments);
  }
}

function attachmentKey(attachment: Attachment): string {
  return `${attachment.kind}:${attachment.path}:${attachment.startLine ?? ''}-${attachment.endLine ?? ''}`;
}

/** What the `/` menu says beside a prompt: its kind or the tool whose file it is (`Copilot: …`), and its description. */
function promptDetail(prompt: PromptSummary): string | undefined {
  if (prompt.kind === 'messages') return `few-shot: ${prompt.description ?? 'example messages first'}`;
  if (prompt.source) return `${prompt.source}: ${prompt.description ?? ''}`.trim();
  return prompt.description;
}
