import type { Locator } from 'playwright-core';
import type { ChatPage } from './chat';
import type { Workbench } from './workbench';

/**
 * The tools picker ("Choose tools…" in the chat's header, a VS Code quick pick with checkboxes), as a
 * person uses it: open it, find each named tool by typing its name, click its row to flip its tick, and
 * accept with Enter.
 */
export class ToolPicker {
  constructor(
    private readonly workbench: Workbench,
    private readonly chat: ChatPage,
  ) {}

  /** The quick pick's widget. */
  get widget(): Locator {
    return this.workbench.page.locator('.quick-input-widget');
  }

  /** The row of the tool whose label is exactly `name`. */
  row(name: string): Locator {
    const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    return this.widget.locator('.monaco-list-row').filter({ has: this.workbench.page.locator('.label-name', { hasText: exact }) });
  }

  /** Opens the picker from the chat's header and waits until its tools are listed. */
  async open(): Promise<void> {
    await this.chat.byTestId('choose-tools').click();
    await this.widget.locator('.monaco-list-row', { hasText: 'tokens' }).first().waitFor({ timeout: 60_000 });
  }

  /** Whether the tool's row is ticked (its checkbox, as the row reports it to a screen reader). */
  async ticked(name: string): Promise<boolean> {
    await this.filter(name);
    const row = this.row(name).first();
    const checked = (await row.getAttribute('aria-checked')) ?? (await row.locator('.monaco-checkbox').first().getAttribute('aria-checked'));
    return checked === 'true';
  }

  /** Flips the tick of each named tool (typing the name first brings its row into view). */
  async toggle(...names: string[]): Promise<void> {
    for (const name of names) {
      await this.filter(name);
      await this.row(name).first().locator('.quick-input-list-label').first().click();
    }
    await this.filter('');
  }

  /** Clicks the pin button of the tool's row (shown on hover), which pins or unpins it. */
  async togglePin(name: string): Promise<void> {
    await this.filter(name);
    const row = this.row(name).first();
    await row.hover();
    await row.locator('.action-label.codicon-pin, .action-label.codicon-pinned').first().click();
    await this.filter('');
  }

  /** Whether the tool's row shows it pinned. */
  async pinned(name: string): Promise<boolean> {
    await this.filter(name);
    return (await this.row(name).first().locator('.codicon-pinned').count()) > 0;
  }

  /** Clicks "Save as Default for New Chats" in the title bar and waits until the title says it is saved. */
  async saveAsDefault(): Promise<void> {
    await this.widget.locator('.quick-input-titlebar .action-label.codicon-save-all').click();
    await this.widget.locator('.quick-input-title', { hasText: 'saved as the default' }).waitFor({ timeout: 15_000 });
  }

  /** Closes the picker without accepting (Escape): the chat's choice stays as it was. */
  async cancel(): Promise<void> {
    await this.workbench.page.keyboard.press('Escape');
    await this.widget.waitFor({ state: 'hidden', timeout: 15_000 });
  }

  /** Accepts the picker (Enter): the chat's choice is saved. */
  async accept(): Promise<void> {
    await this.widget.locator('.quick-input-box input').press('Enter');
    await this.widget.waitFor({ state: 'hidden', timeout: 15_000 });
  }

  private async filter(text: string): Promise<void> {
    const input = this.widget.locator('.quick-input-box input');
    await input.fill(text);
    if (text) await this.row(text).first().waitFor({ timeout: 15_000 });
  }
}
