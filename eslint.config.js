import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Published hook scripts under test/integration/agent-hooks/ are third-party copies, kept verbatim.
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.venv-sdk/**',
      '.venv-lint/**',
      'test/integration/agent-hooks/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // Type-aware rules for all the TypeScript (typescript-eslint's recommendedTypeChecked): src/,
  // bench/, test/, docs/examples/ and the vitest configs, each with the compiler's own view of it
  // (tsconfig.json includes them all). Tests read foreign JSON (API answers, CLI output, what SDK
  // scripts print) by saying the shape they expect, never as `any` (README, "Checks").
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An async function turns a throw into a rejection; the ones without an await implement
      // promise-returning interfaces (the backend parts, the stores) whose callers rely on that.
      '@typescript-eslint/require-await': 'off',
      // Unions such as `'none' | string` name the documented values for readers and editors.
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      // The dialect and vocabulary tables declare their functions with method syntax; none uses `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // commander hands each action its options as `any`; every command checks its own options.
    files: ['src/cli/main.ts'],
    rules: { '@typescript-eslint/no-unsafe-argument': 'off' },
  },
  {
    // Attach.attach answers a `ws` WebSocket, whose types (@types/ws) the project does not install.
    files: ['src/backends/kubernetes/kubernetes-runtime.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
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
