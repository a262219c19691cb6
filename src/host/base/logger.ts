import * as vscode from 'vscode';
import type { Logger } from '../../core/index';
import { redactSecrets } from './redact';

function render(message: string, args: unknown[]): string {
  const parts = args.map((a) => {
    if (a instanceof Error) return a.stack ?? a.message;
    if (typeof a === 'string') return a;
    try {
      return JSON.stringify(a);
    } catch {
      return String(a);
    }
  });
  return redactSecrets([message, ...parts].join(' '));
}

/**
 * The engine's `Logger` on the "Arbor" `LogOutputChannel`. Every line passes through
 * `redactSecrets`, so a key that slipped into an error message is still not written.
 */
export class OutputChannelLogger implements Logger, vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;

  constructor(name = 'Arbor') {
    this.channel = vscode.window.createOutputChannel(name, { log: true });
  }

  debug(message: string, ...args: unknown[]): void {
    this.channel.debug(render(message, args));
  }

  info(message: string, ...args: unknown[]): void {
    this.channel.info(render(message, args));
  }

  warn(message: string, ...args: unknown[]): void {
    this.channel.warn(render(message, args));
  }

  error(message: string, ...args: unknown[]): void {
    this.channel.error(render(message, args));
  }

  dispose(): void {
    this.channel.dispose();
  }
}
