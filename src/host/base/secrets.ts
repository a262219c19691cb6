import * as vscode from 'vscode';
import { SECRET_OPENAI_KEY } from './constants';

/**
 * The OpenAI API key, kept only in VS Code's `SecretStorage` (the OS keychain): never in settings,
 * logs or the conversation database. Fires `onDidChange` when it is set or cleared in any window.
 */
export class ApiKeyStore implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === SECRET_OPENAI_KEY) this._onDidChange.fire();
    });
  }

  /** The stored key, or `undefined`. */
  async get(): Promise<string | undefined> {
    const key = await this.secrets.get(SECRET_OPENAI_KEY);
    return key && key.trim() ? key.trim() : undefined;
  }

  async set(key: string): Promise<void> {
    await this.secrets.store(SECRET_OPENAI_KEY, key.trim());
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_OPENAI_KEY);
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}
