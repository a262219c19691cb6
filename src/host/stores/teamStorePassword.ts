import * as vscode from 'vscode';
import { SECRET_TEAM_STORE_PASSWORD } from '../base/constants';

/**
 * The team store's database password, kept only in VS Code's `SecretStorage` (the OS keychain):
 * never in settings (the URL with one is refused), logs or the conversation store. One password per
 * user: it belongs to the person's own database role. Fires `onDidChange` when set or cleared in any window.
 */
export class TeamStorePasswordStore implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((e) => {
      if (e.key === SECRET_TEAM_STORE_PASSWORD) this._onDidChange.fire();
    });
  }

  /** The stored password, or `undefined` (a server that trusts the role needs none). */
  async get(): Promise<string | undefined> {
    const password = await this.secrets.get(SECRET_TEAM_STORE_PASSWORD);
    return password ? password : undefined;
  }

  /** Stores the password as typed (spaces may belong to it). */
  async set(password: string): Promise<void> {
    await this.secrets.store(SECRET_TEAM_STORE_PASSWORD, password);
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_TEAM_STORE_PASSWORD);
  }

  dispose(): void {
    this.subscription.dispose();
    this._onDidChange.dispose();
  }
}
