/**
 * The secret and tool-folder rules judge a path as the file system that will hold it reads it: a
 * repository is shared with macOS and Windows, where `.GIT`, `.git.`, `.git ` and `.git::$INDEX_ALLOCATION`
 * all name `.git`, and `.env::$DATA` is `.env`. So every segment is compared without case, trailing
 * dots and spaces, and alternate-stream suffixes, on every platform. And more credential stores are
 * secret: tokens of gh, gcloud and az, shell histories, VS Code's own state, browser profiles.
 */
import { describe, expect, it } from 'vitest';
import { canonicalPath, FileRules, inGitFolder } from '../../../src/core/index';
import { canonicalSegment } from '../../../src/core/rag/pathNames';

const rules = new FileRules();

describe('path spellings', () => {
  it('reads a segment as a case-insensitive file system with Windows name rules does', () => {
    expect(canonicalSegment('.GIT')).toBe('.git');
    expect(canonicalSegment('.git.')).toBe('.git');
    expect(canonicalSegment('.git. . ')).toBe('.git');
    expect(canonicalSegment('.git::$INDEX_ALLOCATION')).toBe('.git');
    expect(canonicalSegment('.env::$DATA')).toBe('.env');
    expect(canonicalSegment('.env:$DATA')).toBe('.env');
    expect(canonicalSegment('.env:hidden:$DATA')).toBe('.env');
    // `.` and `..` stay what they are.
    expect(canonicalSegment('..')).toBe('..');
    expect(canonicalSegment('.')).toBe('.');
    expect(canonicalPath('.VSCode./Settings.JSON ')).toBe('.vscode/settings.json');
  });

  it('finds .git however it is spelled, and only .git', () => {
    for (const p of ['.GIT/hooks/pre-commit', '.git./hooks/x', '.git::$INDEX_ALLOCATION/x', 'sub/.Git /config', '.git']) expect(inGitFolder(p), p).toBe(true);
    for (const p of ['.github/workflows/ci.yml', 'src/git.ts', '.gitignore', 'a/.gitx/b']) expect(inGitFolder(p), p).toBe(false);
    for (const p of ['.GIT/hooks/pre-commit', '.git./hooks/x', '.git::$INDEX_ALLOCATION/x', 'NODE_MODULES/pkg/index.js']) {
      expect(rules.forbids(p), p).toBe(true);
      expect(rules.fileSkipReason(p), p).toBe('tool-folder');
    }
    expect(rules.directorySkipReason('.GIT')).toBe('tool-folder');
    expect(rules.directorySkipReason('.git.')).toBe('tool-folder');
  });

  it('finds secret files and .ssh-style folders however they are spelled', () => {
    for (const p of ['.ENV', '.env.', '.env ', '.env::$DATA', 'config/.Env.Local', '.SSH/id_rsa', '.ssh./config', 'home/u/.Ssh::$INDEX_ALLOCATION/known_hosts', '.AWS/credentials', 'ID_RSA', 'server.PEM.']) {
      expect(rules.isSecret(p), p).toBe(true);
    }
    expect(rules.directorySkipReason('.SSH')).toBe('secret');
    expect(rules.directorySkipReason('home/.ssh.')).toBe('secret');
  });

  it('keeps the credentials of command-line tools, shell histories, VS Code state and browser profiles secret', () => {
    const secrets = [
      '.git-credentials', '.netrc', '.npmrc', '.pypirc',
      'home/u/.config/gh/hosts.yml', '.config/gh/config.yml', '.config/gcloud/credentials.db', 'home/u/.config/gcloud/legacy_credentials/me/adc.json',
      '.azure/msal_token_cache.json', 'home/u/.aws/credentials',
      '.bash_history', 'home/u/.zsh_history', '.history', '.local/share/fish/fish_history', '.python_history', '.node_repl_history', '.psql_history',
      '.mysql_history', '.sqlite_history', '.lesshst', 'AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine/ConsoleHost_history.txt',
      'home/u/.config/Code/User/globalStorage/storage.json', 'home/u/.local/share/code-server/User/globalStorage/state.vscdb', 'state.vscdb', 'state.vscdb.backup',
      'data/User/workspaceStorage/0a1b/state.vscdb', 'Library/Application Support/Code/User/workspaceStorage/x/memento.json',
      '.config/google-chrome/Default/Preferences', '.config/chromium/Profile 1/Bookmarks', '.mozilla/firefox/abc.default/places.sqlite',
      'Login Data', 'Default/Cookies', 'Web Data', 'logins.json', 'key4.db', 'cookies.sqlite',
      'Library/Application Support/Google/Chrome/Default/History', 'AppData/Local/Google/Chrome/User Data/Default/Network/Cookies',
      'Library/Application Support/Firefox/Profiles/x/prefs.js', '.config/BraveSoftware/Brave-Browser/Default/Preferences',
    ];
    for (const p of secrets) expect(rules.isSecret(p), p).toBe(true);
    const ordinary = ['src/history.ts', 'docs/history.md', 'src/cookies.ts', 'src/gh/client.ts', 'config/app.json', '.github/workflows/ci.yml', 'src/state.ts', 'README.md', 'src/login.ts'];
    for (const p of ordinary) expect(rules.isSecret(p), p).toBe(false);
  });
});
