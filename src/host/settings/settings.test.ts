import { describe, expect, it } from 'vitest';
import { missingApiKeyMessage, noServerHint, parseSettings } from './settings';
import { DEFAULT_PROTECTED_FILES } from './protectedFileDefaults';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

describe('parseSettings', () => {
  it('uses the defaults when nothing is set', () => {
    const { settings, warnings } = parseSettings(from({}));
    expect(warnings).toEqual([]);
    expect(settings).toMatchObject({ provider: 'ollama', model: 'llama3.2', ollamaHost: 'http://127.0.0.1:11434', openaiBaseUrl: 'https://api.openai.com/v1', promptsFolder: 'prompts', ragMaxFileBytes: 1_000_000 });
    expect(settings.maxHistory).toBeUndefined();
  });

  it('reads valid values and picks the provider default model', () => {
    const { settings } = parseSettings(from({ provider: 'openai', 'openai.baseUrl': 'http://127.0.0.1:9999/v1/', 'context.maxHistory': 20, 'rag.exclude': ['dist/**', ' '], pricing: { m: { input: 1, output: 2 } } }));
    expect(settings.model).toBe('gpt-4o-mini');
    expect(settings.openaiBaseUrl).toBe('http://127.0.0.1:9999/v1');
    expect(settings.maxHistory).toBe(20);
    expect(settings.ragExclude).toEqual(['dist/**']);
    expect(settings.pricing).toEqual({ m: { input: 1, output: 2 } });
  });

  it('ignores bad values with a warning that names the setting', () => {
    const { settings, warnings } = parseSettings(from({ provider: 'claude', 'ollama.host': 'ftp://x', pricing: { m: { input: 'x' } }, 'prompts.folder': '../outside', 'context.maxTokens': -5 }));
    expect(settings.provider).toBe('ollama');
    expect(settings.ollamaHost).toBe('http://127.0.0.1:11434');
    expect(settings.pricing).toEqual({});
    expect(settings.promptsFolder).toBe('prompts');
    expect(settings.maxTokens).toBeUndefined();
    for (const key of ['arbor.provider', 'arbor.ollama.host', 'arbor.pricing["m"]', 'arbor.context.maxTokens', 'arbor.prompts.folder']) {
      expect(warnings.some((w) => w.startsWith(key))).toBe(true);
    }
    expect(warnings).toHaveLength(5);
  });

  it('caps an answer at 1,000,000 characters and 600 s by default, reads other caps and warns on bad ones', () => {
    expect(parseSettings(from({})).settings).toMatchObject({ maxAnswerChars: 1_000_000, maxAnswerSeconds: 600 });
    expect(parseSettings(from({ 'limits.maxAnswerChars': 5000.7, 'limits.maxAnswerSeconds': 0 })).settings).toMatchObject({ maxAnswerChars: 5000, maxAnswerSeconds: 0 });
    const { settings, warnings } = parseSettings(from({ 'limits.maxAnswerChars': -1, 'limits.maxAnswerSeconds': 'long' }));
    expect(settings).toMatchObject({ maxAnswerChars: 1_000_000, maxAnswerSeconds: 600 });
    expect(warnings).toEqual([
      'arbor.limits.maxAnswerChars must be a number of characters, 0 for no cap; using 1000000.',
      'arbor.limits.maxAnswerSeconds must be a number of seconds, 0 for no cap; using 600.',
    ]);
  });

  it('reads per-model context lengths and Ollama\'s num_ctx (0: automatic), warning on bad values', () => {
    expect(parseSettings(from({})).settings).toMatchObject({ contextLengths: {}, ollamaNumCtx: 0 });
    const good = parseSettings(from({ contextLength: { 'qwen2.5-coder': 32768.5, 'gpt-4o': 64000 }, 'ollama.numCtx': 16384 }));
    expect(good.settings).toMatchObject({ contextLengths: { 'qwen2.5-coder': 32768, 'gpt-4o': 64000 }, ollamaNumCtx: 16384 });
    expect(good.warnings).toEqual([]);
    const bad = parseSettings(from({ contextLength: { a: 'big', b: 0, c: 2048 }, 'ollama.numCtx': -1 }));
    expect(bad.settings).toMatchObject({ contextLengths: { c: 2048 }, ollamaNumCtx: 0 });
    expect(bad.warnings).toEqual([
      'arbor.contextLength["a"] must be a positive number of tokens; ignoring it.',
      'arbor.contextLength["b"] must be a positive number of tokens; ignoring it.',
      'arbor.ollama.numCtx must be a number of tokens, 0 for automatic; using automatic.',
    ]);
    expect(parseSettings(from({ contextLength: [1] })).warnings[0]).toMatch(/^arbor.contextLength must be an object/);
  });

  it('says how to fix a missing model server', () => {
    const { settings } = parseSettings(from({ 'ollama.host': 'http://10.0.0.2:11434' }));
    expect(noServerHint(settings, false)).toContain('Start Ollama at http://10.0.0.2:11434');
    const openai = parseSettings(from({ provider: 'openai' })).settings;
    expect(noServerHint(openai, false)).toContain('Set OpenAI API Key');
  });

  it("says the key is missing before sending only for OpenAI's own API without a key", () => {
    const openai = parseSettings(from({ provider: 'openai' })).settings;
    expect(missingApiKeyMessage(openai, false)).toMatch(/^No OpenAI API key is set\. .*Set OpenAI API Key/);
    expect(missingApiKeyMessage(openai, true)).toBeUndefined();
    // A local OpenAI-compatible server (vLLM, LM Studio) may need no key.
    expect(missingApiKeyMessage(parseSettings(from({ provider: 'openai', 'openai.baseUrl': 'http://127.0.0.1:8000/v1' })).settings, false)).toBeUndefined();
    expect(missingApiKeyMessage(parseSettings(from({})).settings, false)).toBeUndefined();
  });

  it('reads the default system prompt and the pass-through request fields as plain copies', () => {
    expect(parseSettings(from({})).settings).toMatchObject({ systemPrompt: 'default', requestOptions: {} });
    const nested = { options: { num_ctx: 4096 }, top_k: 40 };
    const { settings, warnings } = parseSettings(from({ systemPrompt: '  code-assistant ', requestOptions: nested }));
    expect(warnings).toEqual([]);
    expect(settings.systemPrompt).toBe('code-assistant');
    expect(settings.requestOptions).toEqual(nested);
    // A copy: VS Code's read-only setting objects cannot be cloned into a request.
    expect(settings.requestOptions.options).not.toBe(nested.options);
    expect(parseSettings(from({ systemPrompt: '' })).settings.systemPrompt).toBe('');
  });

  it('warns about a system prompt or request options of the wrong type', () => {
    const { settings, warnings } = parseSettings(from({ systemPrompt: 3, requestOptions: [1, 2] }));
    expect(settings).toMatchObject({ systemPrompt: 'default', requestOptions: {} });
    expect(warnings.some((w) => w.startsWith('arbor.systemPrompt must be'))).toBe(true);
    expect(warnings.some((w) => w.startsWith('arbor.requestOptions must be an object'))).toBe(true);
  });

  it('protects the default list of files unless arbor.tools.protectedFiles says otherwise, and ignores a list of the wrong shape with a warning', () => {
    expect(parseSettings(from({})).settings.protectedFiles).toEqual([...DEFAULT_PROTECTED_FILES]);
    expect(parseSettings(from({})).settings.protectedFiles).toEqual(expect.arrayContaining(['**/.vscode/**', 'package.json', 'AGENTS.md', 'prompts/**']));
    expect(parseSettings(from({ 'tools.protectedFiles': [' **/.vscode/** ', '', 'scripts/**'] })).settings.protectedFiles).toEqual(['**/.vscode/**', 'scripts/**']);
    expect(parseSettings(from({ 'tools.protectedFiles': [] })).settings.protectedFiles).toEqual([]);
    const bad = parseSettings(from({ 'tools.protectedFiles': '.vscode/**' }));
    expect(bad.settings.protectedFiles).toEqual([...DEFAULT_PROTECTED_FILES]);
    expect(bad.warnings).toEqual(['arbor.tools.protectedFiles must be a list of globs, e.g. ["**/.vscode/**", "package.json"]; protecting the default list.']);
  });

  it('reads arbor.retention.days: 0 by default, a whole number of days, and refuses anything else with a warning', () => {
    expect(parseSettings(from({})).settings.retentionDays).toBe(0);
    expect(parseSettings(from({ 'retention.days': 30 })).settings.retentionDays).toBe(30);
    for (const bad of [-1, 2.5, '30']) {
      const { settings, warnings } = parseSettings(from({ 'retention.days': bad }));
      expect(settings.retentionDays).toBe(0);
      expect(warnings.join('\n')).toContain('arbor.retention.days must be a whole number of days');
    }
  });

  it('reads the command allow and deny lists of run_command, trimmed, and ignores a list of the wrong shape with a warning', () => {
    expect(parseSettings(from({})).settings).toMatchObject({ commandAllowList: [], commandDenyList: [] });
    const { settings } = parseSettings(from({ 'tools.commandAllowList': [' npm test ', '', 'git status'], 'tools.commandDenyList': ['rm'] }));
    expect(settings).toMatchObject({ commandAllowList: ['npm test', 'git status'], commandDenyList: ['rm'] });
    const bad = parseSettings(from({ 'tools.commandAllowList': 'npm test', 'tools.commandDenyList': [1] }));
    expect(bad.settings).toMatchObject({ commandAllowList: [], commandDenyList: [] });
    expect(bad.warnings).toEqual([
      'arbor.tools.commandAllowList must be a list of command prefixes, e.g. ["npm test", "git status"]; ignoring it.',
      'arbor.tools.commandDenyList must be a list of command prefixes, e.g. ["npm test", "git status"]; ignoring it.',
    ]);
  });
});

describe('team store settings', () => {
  it('stays local by default, with TLS checked once the team store is chosen', () => {
    const { settings, warnings } = parseSettings(from({}));
    expect(warnings).toEqual([]);
    expect(settings.teamStore).toEqual({ kind: 'local', url: '', ssl: 'verify-full' });
  });

  it('reads the team store address, team and TLS', () => {
    const { settings, warnings } = parseSettings(
      from({ 'storage.kind': 'postgres', 'storage.postgres.url': ' postgres://alice@db.example.com:5432/arbor ', 'storage.postgres.team': 'team_web', 'storage.postgres.ssl': 'require', 'storage.postgres.sslCaFile': '/etc/ssl/team-ca.pem' }),
    );
    expect(warnings).toEqual([]);
    expect(settings.teamStore).toEqual({ kind: 'postgres', url: 'postgres://alice@db.example.com:5432/arbor', team: 'team_web', ssl: 'require', caFile: '/etc/ssl/team-ca.pem' });
  });

  it('refuses a password in the URL, in the user part or as a parameter, and points to the command', () => {
    for (const url of ['postgres://alice:hunter2@db.example.com/arbor', 'postgresql://alice@db.example.com/arbor?password=hunter2']) {
      const { settings } = parseSettings(from({ 'storage.kind': 'postgres', 'storage.postgres.url': url }));
      expect(settings.teamStore.problem).toMatch(/contains a password/);
      expect(settings.teamStore.problem).toContain('Arbor: Set Team Store Password');
      expect(settings.teamStore.problem).not.toContain('hunter2');
    }
  });

  it('says what to fix when the team store is chosen without a usable address', () => {
    expect(parseSettings(from({ 'storage.kind': 'postgres' })).settings.teamStore.problem).toMatch(/arbor\.storage\.postgres\.url is empty/);
    expect(parseSettings(from({ 'storage.kind': 'postgres', 'storage.postgres.url': 'http://db/arbor' })).settings.teamStore.problem).toMatch(/must start with postgres:\/\//);
    expect(parseSettings(from({ 'storage.kind': 'postgres', 'storage.postgres.url': 'postgres://a@db/arbor?sslmode=disable' })).settings.teamStore.problem).toMatch(/sets "sslmode".*arbor\.storage\.postgres\.ssl/);
    expect(parseSettings(from({ 'storage.kind': 'postgres', 'storage.postgres.url': 'postgres://a@db/arbor', 'storage.postgres.ssl': 'maybe' })).settings.teamStore.problem).toMatch(/arbor\.storage\.postgres\.ssl must be/);
    expect(parseSettings(from({ 'storage.kind': 'postgres', 'storage.postgres.url': 'postgres://a@db/arbor', 'storage.postgres.sslCaFile': 'ca.pem' })).settings.teamStore.problem).toMatch(/absolute path/);
  });

  it('only warns about team store settings while the store is local, and about an unknown kind', () => {
    const { settings, warnings } = parseSettings(from({ 'storage.kind': 'cloud', 'storage.postgres.url': 'postgres://a:pw@db/arbor' }));
    expect(settings.teamStore.kind).toBe('local');
    expect(settings.teamStore.problem).toBeUndefined();
    expect(warnings.map((w) => w.split(' ')[0])).toEqual(['arbor.storage.kind', 'arbor.storage.postgres.url']);
  });
});
