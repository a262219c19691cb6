// Lint rules for Arbor. The one architectural rule: nothing under src/core may import `vscode`,
// so the engine stays plain TypeScript that runs and is tested in Node.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'dist/**', 'out/**', '.vscode-test/**', 'coverage/**', 'media/**', 'bench/.data/**'],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    ignores: ['**/*.config.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core is plain TypeScript: reach VS Code through an interface implemented in src/host.' }] }],
    },
  },
);
