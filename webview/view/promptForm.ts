/**
 * The small form that appears when a prompt is picked from the `/` menu: one field per parameter,
 * prefilled with its default; required ones must be filled before the message is sent.
 */
import type { PromptSummary } from '../../src/shared/protocol';
import { h, icon, iconButton } from '../dom';

/** The picked prompt and its parameter fields, above the composer's text box. */
export class PromptForm {
  readonly element: HTMLElement;
  private prompt: PromptSummary | undefined;
  private fields = new Map<string, HTMLInputElement>();

  constructor(private readonly onClose: () => void) {
    this.element = h('div', { className: 'prompt-form', testId: 'prompt-form' });
    this.element.hidden = true;
  }

  /** The picked prompt, if any. */
  get current(): PromptSummary | undefined {
    return this.prompt;
  }

  /**
   * Shows the form for `prompt` and focuses its first empty required field; `values` (a message's, when
   * it is edited) fill the fields they name, the rest start from their defaults.
   */
  open(prompt: PromptSummary, values: Readonly<Record<string, string>> = {}): void {
    this.prompt = prompt;
    this.fields.clear();
    const rows = prompt.params.map((param) => {
      const input = h('input', {
        className: 'prompt-param-input',
        testId: 'prompt-param',
        attrs: { type: 'text', name: param.name, placeholder: param.description ?? '', 'aria-label': `${param.name}${param.required ? ' (required)' : ''}` },
        dataset: { name: param.name },
      });
      input.value = values[param.name] ?? param.default ?? '';
      input.required = param.required;
      this.fields.set(param.name, input);
      return h('label', { className: 'prompt-param' }, h('span', { className: 'prompt-param-name', text: `${param.name}${param.required ? ' *' : ''}` }), input);
    });
    this.element.replaceChildren(
      h(
        'div',
        { className: 'prompt-form-header' },
        icon('book'),
        h('span', { className: 'prompt-form-name', testId: 'prompt-form-name', text: `/${prompt.name}` }),
        prompt.source ? h('span', { className: 'prompt-form-source', testId: 'prompt-form-source', text: prompt.source }) : null,
        prompt.description ? h('span', { className: 'prompt-form-description', text: prompt.description }) : null,
        iconButton('close', 'Do not use this prompt', 'prompt-form-close', () => this.close()),
      ),
      ...rows,
    );
    this.element.hidden = false;
    const firstEmpty = [...this.fields.values()].find((input) => input.required && !input.value);
    firstEmpty?.focus();
  }

  /** The parameter values, or the names of required ones still empty. */
  values(): { params: Record<string, string>; missing: string[] } {
    const params: Record<string, string> = {};
    const missing: string[] = [];
    for (const [name, input] of this.fields) {
      const value = input.value;
      if (value) {
        params[name] = value;
      } else if (input.required) {
        missing.push(name);
        input.classList.add('invalid');
      }
    }
    return { params, missing };
  }

  close(): void {
    this.prompt = undefined;
    this.fields.clear();
    this.element.replaceChildren();
    this.element.hidden = true;
    this.onClose();
  }
}
