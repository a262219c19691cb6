/**
 * Edit for a message made from a `/` prompt: its form again, filled with the values it was sent with,
 * and the text typed beside it. Save & Submit renders the prompt anew into a sibling (the old branch
 * stays); Escape or Cancel closes it.
 */
import type { PromptMessageInfo, PromptSummary } from '../../src/shared/protocol';
import { h, textButton } from '../dom';
import { saveOnEnter } from './inlineEditor';
import { PromptForm } from './promptForm';

/** What a saved prompt edit sends. */
export interface PromptEdit {
  params: Record<string, string>;
  text: string;
}

/**
 * The form for a prompt message: the library's prompt when it still has it, else one made from the
 * values the message kept (so a removed or renamed prompt can still be edited, and the host says why it fails).
 */
export function promptForEdit(info: PromptMessageInfo, prompts: readonly PromptSummary[]): PromptSummary {
  return (
    prompts.find((p) => p.name === info.name && (p.kind ?? 'user') === info.kind) ?? {
      name: info.name,
      params: Object.keys(info.params ?? {}).map((name) => ({ name, required: false })),
    }
  );
}

/** Replaces `hide` (the message's content and details) with the prompt's form until saved or cancelled. */
export function openPromptEditor(anchor: HTMLElement, hide: readonly HTMLElement[], prompt: PromptSummary, info: PromptMessageInfo, onSave: (edit: PromptEdit) => void): void {
  if (anchor.parentElement?.querySelector('.inline-editor')) {
    return;
  }
  // The form's own close button means "do not edit" here.
  const form = new PromptForm(() => close());
  const input = document.createElement('vscode-textarea');
  input.dataset.testid = 'edit-input';
  input.setAttribute('aria-label', 'Text sent with the prompt');
  input.placeholder = 'Text sent with the prompt (optional)';
  input.className = 'inline-editor-input';
  input.resize = 'vertical';
  input.rows = 2;
  input.value = info.text;

  const close = (): void => {
    editor.remove();
    for (const element of hide) element.hidden = false;
  };
  const save = (): void => {
    const { params, missing } = form.values();
    if (missing.length > 0) {
      return;
    }
    onSave({ params, text: input.value.trim() });
    close();
  };
  const saveButton = textButton('Save & Submit', 'edit-save', 'Render the prompt with these values as a new branch and answer it', save);
  const cancelButton = textButton('Cancel', 'edit-cancel', 'Cancel the edit', close, { secondary: true });

  const editor = h('div', { className: 'inline-editor prompt-editor', testId: 'inline-editor' }, form.element, input, h('div', { className: 'inline-editor-buttons' }, saveButton, cancelButton));
  saveOnEnter(editor, save, close);
  for (const element of hide) element.hidden = true;
  anchor.after(editor);
  form.open(prompt, info.params ?? {});
  // The form focuses an empty required field; with every field filled, start at the first one.
  requestAnimationFrame(() => {
    if (!editor.contains(document.activeElement)) {
      (form.element.querySelector('input') ?? input).focus();
    }
  });
}
