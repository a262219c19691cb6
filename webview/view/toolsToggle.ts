/**
 * The header's tools toggle: whether this chat offers tools to the model. Pressed means on; the host
 * keeps the choice on the conversation. Beside it, "Choose tools…" opens the host's tools picker, where
 * the user ticks which tools this chat offers.
 */
import type { ChatToolsView } from '../../src/shared/protocol';
import { iconButton } from '../dom';

/** A toggle button that follows the chat state and reports clicks. */
export class ToolsToggle {
  readonly element: HTMLButtonElement;
  private enabled = false;

  constructor(onToggle: (enabled: boolean) => void) {
    this.element = iconButton('tools', 'Tools', 'tools-toggle', () => onToggle(!this.enabled));
    this.element.classList.add('tools-toggle');
  }

  update(tools: ChatToolsView | undefined): void {
    this.enabled = tools?.enabled ?? false;
    this.element.setAttribute('aria-pressed', String(this.enabled));
    const label = this.enabled ? 'Tools are on in this chat: the model may read the workspace and call MCP tools (click to turn off)' : 'Tools are off in this chat (click to turn on)';
    this.element.title = label;
    this.element.setAttribute('aria-label', label);
  }
}

/** The header's "Choose tools…" button: asks the host to open the tools picker for this chat. */
export function chooseToolsButton(onChoose: () => void): HTMLButtonElement {
  const button = iconButton('checklist', 'Choose tools for this chat…', 'choose-tools', () => onChoose());
  button.classList.add('choose-tools');
  return button;
}
