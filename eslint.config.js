import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.venv-sdk/**', '.venv-lint/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Node's CommonJS preload for hook processes (docs/security.md, "Hooks and the workspace"):
    // a plain .cjs file that node loads with --require, so `require` is how it imports.
    files: ['sandbox-image/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The web console runs in the browser (docs/console.md).
    files: ['console/**/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        AbortController: 'readonly',
        TextDecoderStream: 'readonly',
        addEventListener: 'readonly',
        removeEventListener: 'readonly',
      },
    },
  },
);
