// Lint rules for Arbor, with the layers: src/core is plain TypeScript (no `vscode`, nothing outside it),
// the host reaches it only through src/core/index.ts, and the webview only through src/shared/protocol.ts.
// The host's rooms import only their own room and the rooms below them (README, "Architecture"); no
// file of src/ or webview/ takes part in an import circle (a test, as eslint cannot see type-only ones).
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const VSCODE_IN_CORE = { name: 'vscode', message: 'src/core is plain TypeScript: reach VS Code through an interface implemented in src/host.' };
const HOST_TO_CORE = ['**/core/*/**', '**/core/*', '!**/core/index', '!**/core/mcp', '!**/core/mcp/index'];
/**
 * The host's rooms (folders of src/host), lowest first. A room imports its own files, the rooms before it
 * and the core; the composition root (the files directly in src/host) imports them all.
 */
const HOST_ROOMS = ['base', 'settings', 'tools', 'llm', 'workspace', 'conversations', 'prompts', 'onboarding', 'stores', 'checkpoints', 'apply', 'mcp', 'chat', 'tree', 'commands', 'imports'];
const HOST_ROOT = ['extension.ts', 'services.ts', 'commands.ts'];
const HOST_ROOM_ZONES = HOST_ROOMS.map((room, i) => ({
  target: `./src/host/${room}`,
  from: [...HOST_ROOMS.slice(i + 1).map((above) => `./src/host/${above}`), ...HOST_ROOT.map((file) => `./src/host/${file}`)],
  message: `src/host/${room}/ imports only its own room, the rooms below it (${HOST_ROOMS.slice(0, i).join(', ') || 'none'}) and the core.`,
}));

const CORE_OUTWARD = { group: ['**/host/*', '**/host/**', '**/shared/*', '**/webview/*'], message: 'src/core depends on nothing outside it.' };
/** Imports of a higher folder of the core (or of a sibling kept apart), refused in the folders below it. */
const CORE_UPWARD = Object.fromEntries(
  ['conversation', 'flows', 'promptFolder', 'prompts'].map((folder) => [
    folder,
    { group: [`**/${folder}/*`, `**/${folder}/**`], message: `This folder may not import ${folder}/: imports point down the core's layers, shared types live at the core's root.` },
  ]),
);

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'dist/**', 'out/**', '.vscode-test/**', 'coverage/**', 'media/**', 'bench/.data/**'],
  },
  ...tseslint.configs.recommended,
  {
    // Import circles, type-only imports included, are found by test/unit/architecture/importCircles.test.ts
    // (madge): eslint's no-cycle skips type-only imports.
    files: ['src/host/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json'] })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: HOST_ROOM_ZONES }],
    },
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    ignores: ['**/*.config.ts', '**/*.config.mts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE_IN_CORE], patterns: [CORE_OUTWARD] }],
    },
  },
  {
    // The conversation engine sits on top of the providers, storage, prompts, retrieval and tools: they share
    // the vocabulary at the core's root and never import back into conversation/, nor into flows/ (which run a
    // conversation) or promptFolder/ (which composes prompts and flows).
    files: [
      'src/core/llm/**/*.ts',
      'src/core/storage/**/*.ts',
      'src/core/prompts/**/*.ts',
      'src/core/rag/**/*.ts',
      'src/core/tools/**/*.ts',
      'src/core/instructions/**/*.ts',
      'src/core/structured/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE_IN_CORE], patterns: [CORE_OUTWARD, CORE_UPWARD.conversation, CORE_UPWARD.flows, CORE_UPWARD.promptFolder] }],
    },
  },
  {
    // The shared pieces of a prompts folder (its safe walk, YAML, the template engine) sit below both the prompt
    // library and flows.
    files: ['src/core/libraryFiles/**/*.ts', 'src/core/templates/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [VSCODE_IN_CORE], patterns: [CORE_OUTWARD, CORE_UPWARD.conversation, CORE_UPWARD.flows, CORE_UPWARD.promptFolder, CORE_UPWARD.prompts] },
      ],
    },
  },
  {
    // A flow runs a conversation manager, so flows/ sits above conversation/, which never imports it.
    files: ['src/core/conversation/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE_IN_CORE], patterns: [CORE_OUTWARD, CORE_UPWARD.flows, CORE_UPWARD.promptFolder] }],
    },
  },
  {
    // Flows and the prompt library do not import each other: what both need is in libraryFiles/ and templates/.
    files: ['src/core/flows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [VSCODE_IN_CORE], patterns: [CORE_OUTWARD, CORE_UPWARD.prompts, CORE_UPWARD.promptFolder] }],
    },
  },
  {
    files: ['src/core/index.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
        { selector: 'ExportAllDeclaration', message: 'The public API lists its exports by name, so nothing becomes public by accident.' },
      ],
    },
  },
  {
    // The MCP client has a barrel of its own (src/core/mcp/index.ts), which the host loads on first use.
    files: ['src/host/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: HOST_TO_CORE, message: 'The host imports the engine only through src/core/index.ts (and the MCP client through src/core/mcp/index.ts).' }] },
      ],
    },
  },
  {
    // Host tests may start the reference MCP servers the core's MCP tests use.
    files: ['src/host/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: [...HOST_TO_CORE, '!**/core/mcp/mcpTestServers'], message: 'The host imports the engine only through src/core/index.ts.' }] },
      ],
    },
  },
  {
    // The examples use the engine as a library user would: through its public API only.
    files: ['examples/**/*.mts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/core/*/**', '**/core/*', '!**/core/index'], message: 'Examples use only the public API, src/core/index.ts.' }] }],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview runs in a browser: talk to the host through src/shared/protocol.ts.' }],
          patterns: [{ group: ['**/src/core/**', '**/src/host/**', '**/src/shared/*', '!**/src/shared/protocol'], message: 'The webview imports only src/shared/protocol.ts from src/.' }],
        },
      ],
    },
  },
);
