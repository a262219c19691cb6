/**
 * The inline editor of a user message: the text in a `vscode-textarea` with Save and Cancel.
 * Enter saves (Shift+Enter is a new line), Escape cancels; saving makes a sibling, the old branch stays.
 */
import { h } from '../dom';

/** Replaces `content` with an editor until saved or cancelled; `onSave` gets the new text. */
export function openInlineEditor(content: HTMLElement, text: string, onSave: (text: string) => void): void {
  if (content.parentElement?.querySelector('.inline-editor')) {
    return;
  }
  const input = document.createElement('vscode-textarea');
  input.dataset.testid = 'edit-input';
  input.setAttribute('aria-label', 'Edit message');
  input.className = 'inline-editor-input';
  input.resize = 'vertical';
  input.rows = Math.min(12, Math.max(3, text.split('\n').length + 1));
  input.value = text;

  const close = (): void => {
    editor.remove();
    content.hidden = false;
  };
  const save = (): void => {
    const value = input.value.trim();
    if (value && value !== text.trim()) {
      onSave(value);
    }
    close();
  };
  const saveButton = document.createElement('vscode-button');
  saveButton.dataset.testid = 'edit-save';
  saveButton.textContent = 'Save & Submit';
  saveButton.setAttribute('aria-label', 'Save the edit as a new branch and answer it');
  saveButton.addEventListener('click', save);
  const cancelButton = document.createElement('vscode-button');
  cancelButton.dataset.testid = 'edit-cancel';
  cancelButton.secondary = true;
  cancelButton.textContent = 'Cancel';
  cancelButton.setAttribute('aria-label', 'Cancel the edit');
  cancelButton.addEventListener('click', close);

  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close();
    }
  });

  const editor = h('div', { className: 'inline-editor', testId: 'inline-editor' }, input, h('div', { className: 'inline-editor-buttons' }, saveButton, cancelButton));
  content.hidden = true;
  content.after(editor);
  requestAnimationFrame(() => {
    input.focus();
    const inner = input.wrappedElement;
    inner?.setSelectionRange(inner.value.length, inner.value.length);
  });
}
