/**
 * The inline editor of a message: a text in a `vscode-textarea` with Save and Cancel, in place of the
 * element it edits. Enter saves (Shift+Enter is a new line), Escape cancels. It edits a user message
 * (saving makes a sibling, the old branch stays) and a message's note (saving an empty note removes it).
 */
import { h, textButton } from '../dom';

/** What differs between the editors: their test ids, labels, and whether an empty text may be saved. */
export interface InlineEditorKind {
  /** Prefix of the test ids: `<prefix>-input`, `<prefix>-save`, `<prefix>-cancel`; the editor is `inlineTestId`. */
  testIdPrefix: string;
  inlineTestId: string;
  inputLabel: string;
  saveText: string;
  saveLabel: string;
  placeholder?: string;
  /** Saving an empty text is a change (it removes a note); otherwise it is ignored. */
  allowEmpty?: boolean;
}

/** Editing a user message into a new branch. */
export const EDIT_MESSAGE: InlineEditorKind = {
  testIdPrefix: 'edit',
  inlineTestId: 'inline-editor',
  inputLabel: 'Edit message',
  saveText: 'Save & Submit',
  saveLabel: 'Save the edit as a new branch and answer it',
};

/** Writing the note on a message. */
export const EDIT_NOTE: InlineEditorKind = {
  testIdPrefix: 'note',
  inlineTestId: 'note-editor',
  inputLabel: 'Note on this message (never sent to the model)',
  saveText: 'Save Note',
  saveLabel: 'Save the note; an empty note is removed',
  placeholder: 'A note for yourself: shown here and in the sidebar, never sent to the model',
  allowEmpty: true,
};

/** Enter (without Shift, outside an IME composition) saves and Escape cancels, for keys typed in `element`. */
export function saveOnEnter(element: HTMLElement, save: () => void, cancel: () => void): void {
  element.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      cancel();
    }
  });
}

/**
 * Opens an editor of `text` right after `anchor` until saved or cancelled; `onSave` gets the new text
 * when it changed. With `hide`, `anchor` is hidden while the editor is open (it edits in place).
 */
export function openInlineEditor(anchor: HTMLElement, text: string, onSave: (text: string) => void, kind: InlineEditorKind = EDIT_MESSAGE, hide = true): void {
  if (anchor.parentElement?.querySelector(`[data-testid="${kind.inlineTestId}"]`)) {
    return;
  }
  const input = document.createElement('vscode-textarea');
  input.dataset.testid = `${kind.testIdPrefix}-input`;
  input.setAttribute('aria-label', kind.inputLabel);
  input.className = 'inline-editor-input';
  input.resize = 'vertical';
  input.rows = Math.min(12, Math.max(3, text.split('\n').length + 1));
  input.value = text;
  if (kind.placeholder) input.placeholder = kind.placeholder;

  const close = (): void => {
    editor.remove();
    anchor.hidden = false;
  };
  const save = (): void => {
    const value = input.value.trim();
    if ((value || kind.allowEmpty) && value !== text.trim()) {
      onSave(value);
    }
    close();
  };
  const saveButton = textButton(kind.saveText, `${kind.testIdPrefix}-save`, kind.saveLabel, save);
  const cancelButton = textButton('Cancel', `${kind.testIdPrefix}-cancel`, 'Cancel the edit', close, { secondary: true });

  saveOnEnter(input, save, close);

  const editor = h('div', { className: 'inline-editor', testId: kind.inlineTestId }, input, h('div', { className: 'inline-editor-buttons' }, saveButton, cancelButton));
  if (hide) anchor.hidden = true;
  anchor.after(editor);
  requestAnimationFrame(() => {
    input.focus();
    const inner = input.wrappedElement;
    inner?.setSelectionRange(inner.value.length, inner.value.length);
  });
}
