import type { FrameLocator, Locator } from 'playwright-core';
import type { Workbench } from './workbench';

/** The chat webview of a workbench, by the `data-testid`s documented at the top of webview/main.ts. */
export class ChatPage {
  constructor(private readonly workbench: Workbench) {}

  /** The inner document of the visible chat tab. */
  get frame(): FrameLocator {
    return this.workbench.chat();
  }

  byTestId(id: string): Locator {
    return this.frame.locator(`[data-testid="${id}"]`);
  }

  /** The messages of the current path, in order. */
  messages(): Locator {
    return this.byTestId('message');
  }

  /** The messages of one role. */
  messagesOf(role: 'user' | 'assistant'): Locator {
    return this.frame.locator(`[data-testid="message"][data-role="${role}"]`);
  }

  /** The last answer on the current path. */
  lastAnswer(): Locator {
    return this.messagesOf('assistant').last();
  }

  /** The rendered text of a message. */
  async textOf(message: Locator): Promise<string> {
    return ((await message.locator('[data-testid="message-content"]').first().textContent()) ?? '').trim();
  }

  /** The message box (the textarea inside the vscode-textarea element). */
  input(): Locator {
    return this.frame.locator('[data-testid="composer-input"] textarea');
  }

  /** Waits until the chat is ready for input. */
  async waitReady(): Promise<void> {
    await this.input().waitFor({ timeout: 30_000 });
  }

  /** Types a message and sends it with Enter. */
  async send(text: string): Promise<void> {
    await this.waitReady();
    await this.byTestId('send').waitFor({ timeout: 30_000 });
    const input = this.input();
    await input.click();
    await input.fill(text);
    await input.press('Enter');
  }

  /** Sends a message, waits until the last answer reads `answer`, then until the chat is idle. */
  async ask(text: string, answer: string, timeout = 30_000): Promise<void> {
    // Loaded here, not at the top: the benchmarks drive chats through this class outside vitest.
    const { expect } = await import('vitest');
    await this.send(text);
    await expect.poll(() => this.textOf(this.lastAnswer()), { timeout }).toBe(answer);
    await this.waitIdle();
  }

  /** Waits until no answer is streaming (Send is back). */
  async waitIdle(timeout = 60_000): Promise<void> {
    await this.frame.locator('[data-testid="message"][data-streaming="true"]').first().waitFor({ state: 'detached', timeout });
    await this.byTestId('send').waitFor({ state: 'visible', timeout });
  }
}
