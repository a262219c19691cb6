/**
 * The chat header's system prompt picker and request options: a list of `prompts/system/` (plus None),
 * and a small form for temperature, maximum output tokens and thinking. Both change the chat from its
 * next request on; the history stays as it is. Thinking is offered as the provider reports it: for an
 * Ollama model that lists the `thinking` capability (on, off or a level), never for one that says it
 * cannot, and as `reasoning_effort` levels on OpenAI-compatible servers, which do not say.
 */
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { ChatOptionsMessage, RequestOptionsView } from '../../src/shared/protocol';
import { h, iconButton } from '../dom';

/** What the controls ask of the host. */
export interface ChatOptionsHost {
  selectSystemPrompt(name: string): void;
  setRequestOptions(options: RequestOptionsView): void;
}

type Think = NonNullable<RequestOptionsView['think']>;

const THINK_LABELS: ReadonlyArray<[string, Think | undefined, string]> = [
  ['', undefined, "Model's default"],
  ['off', false, 'Off'],
  ['on', true, 'On'],
  ['low', 'low', 'Low'],
  ['medium', 'medium', 'Medium'],
  ['high', 'high', 'High'],
];

/** The system prompt picker and the request options button with its form. */
export class ChatOptionsControls {
  readonly element: HTMLElement;
  private readonly picker: VscodeSingleSelect;
  private readonly summary = h('span', { className: 'request-options-summary', testId: 'request-options-summary' });
  // novalidate: the form checks its own fields and says why in words, instead of the browser's bubble.
  private readonly form = h('form', { className: 'request-options-form popup-menu', testId: 'request-options-form', attrs: { 'aria-label': 'Request options', novalidate: '' } });
  private readonly temperature = h('input', {
    className: 'prompt-param-input',
    testId: 'option-temperature',
    attrs: { type: 'number', min: '0', max: '2', step: '0.1', placeholder: 'default', 'aria-label': 'Temperature (0–2)' },
  });
  private readonly maxTokens = h('input', {
    className: 'prompt-param-input',
    testId: 'option-max-tokens',
    attrs: { type: 'number', min: '1', step: '1', placeholder: 'default', 'aria-label': 'Maximum output tokens' },
  });
  private readonly think = h('select', { className: 'prompt-param-input', testId: 'option-think', attrs: { 'aria-label': 'Thinking' } });
  private readonly thinkNote = h('span', { className: 'request-options-note', testId: 'option-think-note' });
  private readonly error = h('div', { className: 'request-options-error', testId: 'request-options-error', attrs: { role: 'alert' } });
  private options: ChatOptionsMessage | undefined;

  constructor(private readonly host: ChatOptionsHost) {
    this.picker = document.createElement('vscode-single-select');
    this.picker.dataset.testid = 'system-prompt-picker';
    this.picker.className = 'system-prompt-picker';
    this.picker.setAttribute('aria-label', 'System prompt');
    this.picker.title = 'System prompt of this chat (from prompts/system/); a change applies from the next request';
    this.picker.addEventListener('change', () => {
      if (this.options && this.picker.value !== this.options.systemPrompt) this.host.selectSystemPrompt(this.picker.value);
    });
    const toggle = iconButton('settings', 'Request options: temperature, maximum tokens, thinking', 'request-options', () => this.toggleForm());
    toggle.setAttribute('aria-haspopup', 'dialog');
    toggle.append(this.summary);
    const apply = h('button', { className: 'popup-item request-options-apply', testId: 'options-apply', text: 'Apply', attrs: { type: 'submit' } });
    const reset = h('button', {
      className: 'popup-item',
      testId: 'options-reset',
      text: 'Reset',
      title: "Send no options: the server's defaults",
      attrs: { type: 'button' },
      onClick: () => this.submit({}),
    });
    this.form.append(
      row('Temperature', this.temperature),
      row('Max tokens', this.maxTokens),
      row('Thinking', this.think),
      this.thinkNote,
      this.error,
      h('div', { className: 'request-options-buttons' }, apply, reset),
    );
    this.form.hidden = true;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const read = this.read();
      if (read) this.submit(read);
    });
    this.form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.form.hidden = true;
    });
    this.element = h('span', { className: 'chat-options' }, this.picker, h('span', { className: 'request-options-anchor' }, toggle, this.form));
  }

  /** Shows the chat's choices (sent after `ready` and after every change). */
  update(options: ChatOptionsMessage): void {
    this.options = options;
    const choices = [{ name: '', description: 'Send no system prompt from the library' }, ...options.systemPrompts];
    // A chosen prompt that is gone from the folder still shows, so the picker does not pretend otherwise.
    if (options.systemPrompt && !options.systemPrompts.some((p) => p.name === options.systemPrompt)) choices.push({ name: options.systemPrompt, description: 'Not in prompts/system/' });
    this.picker.replaceChildren(
      ...choices.map((choice) => {
        const option = document.createElement('vscode-option');
        option.value = choice.name;
        option.textContent = choice.name || 'No system prompt';
        if (choice.description) option.description = choice.description;
        if (choice.name && !options.systemPrompts.some((p) => p.name === choice.name)) option.dataset.missing = 'true';
        option.selected = choice.name === options.systemPrompt;
        return option;
      }),
    );
    this.picker.value = options.systemPrompt;
    this.picker.disabled = options.systemPromptNote !== undefined && options.systemPrompts.length === 0;
    this.picker.title = options.systemPromptNote ?? 'System prompt of this chat (from prompts/system/); a change applies from the next request';
    this.fillThink(options);
    this.fillFields(options.requestOptions);
    // On/off reaches only Ollama: an OpenAI-compatible server gets a level or nothing.
    const thinkNotSent = options.thinking === 'unsupported' || (options.provider !== 'ollama' && typeof options.requestOptions.think === 'boolean');
    this.summary.textContent = summarize(options.requestOptions, thinkNotSent);
  }

  private fillThink(options: ChatOptionsMessage): void {
    // OpenAI-compatible servers take a level (`reasoning_effort`), not on/off; Ollama takes both.
    const levelsOnly = options.provider !== 'ollama';
    const offered = options.thinking === 'unsupported' ? THINK_LABELS.slice(0, 1) : THINK_LABELS.filter(([key]) => !levelsOnly || (key !== 'on' && key !== 'off'));
    this.think.replaceChildren(...offered.map(([key, , label]) => h('option', { text: label, attrs: { value: key } })));
    this.think.disabled = options.thinking === 'unsupported';
    this.thinkNote.textContent =
      options.thinking === 'unsupported'
        ? 'This model does not think (Ollama does not list "thinking" for it): nothing is sent.'
        : options.thinking === 'supported'
          ? 'Ollama reports that this model thinks.'
          : options.provider === 'ollama'
            ? 'Ollama did not say whether this model thinks; the setting is sent as asked.'
            : 'Sent as reasoning_effort; the server refuses it for models that do not reason.';
  }

  private fillFields(options: RequestOptionsView): void {
    this.temperature.value = options.temperature === undefined ? '' : String(options.temperature);
    this.maxTokens.value = options.maxTokens === undefined ? '' : String(options.maxTokens);
    const key = THINK_LABELS.find(([, value]) => value === options.think)?.[0] ?? '';
    this.think.value = [...this.think.options].some((o) => o.value === key) ? key : '';
  }

  /** The form's values, or `undefined` (with the reason shown) when one is out of range. */
  private read(): RequestOptionsView | undefined {
    const out: { temperature?: number; maxTokens?: number; think?: Think } = {};
    const t = this.temperature.value.trim();
    const m = this.maxTokens.value.trim();
    if (t) {
      const value = Number(t);
      if (!Number.isFinite(value) || value < 0 || value > 2) return this.fail('Temperature must be a number from 0 to 2.');
      out.temperature = value;
    }
    if (m) {
      const value = Number(m);
      if (!Number.isInteger(value) || value < 1) return this.fail('Max tokens must be a whole number of at least 1.');
      out.maxTokens = value;
    }
    // A model that cannot think shows no choice: the chat's setting is kept for its other models.
    const think = this.think.disabled ? this.options?.requestOptions.think : THINK_LABELS.find(([key]) => key === this.think.value)?.[1];
    if (think !== undefined) out.think = think;
    return out;
  }

  private fail(message: string): undefined {
    this.error.textContent = message;
    return undefined;
  }

  private submit(options: RequestOptionsView): void {
    this.error.textContent = '';
    this.form.hidden = true;
    this.host.setRequestOptions(options);
  }

  private toggleForm(): void {
    this.form.hidden = !this.form.hidden;
    if (!this.form.hidden) {
      this.error.textContent = '';
      if (this.options) this.fillFields(this.options.requestOptions);
      this.temperature.focus();
    }
  }
}

function row(label: string, field: HTMLElement): HTMLElement {
  return h('label', { className: 'request-options-row' }, h('span', { className: 'prompt-param-name', text: label }), field);
}

/** A few words for the button: which options the chat sets (thinking marked when it is not sent). */
function summarize(options: RequestOptionsView, thinkNotSent: boolean): string {
  const parts: string[] = [];
  if (options.temperature !== undefined) parts.push(`T ${options.temperature}`);
  if (options.maxTokens !== undefined) parts.push(`${options.maxTokens} tok`);
  if (options.think !== undefined) {
    parts.push(`think ${options.think === true ? 'on' : options.think === false ? 'off' : options.think}${thinkNotSent ? ' (not sent)' : ''}`);
  }
  return parts.join(' · ');
}
