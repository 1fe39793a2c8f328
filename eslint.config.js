// Lint: the recommended JavaScript and TypeScript rules, plus the project's standing rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'web/dist/', 'bench/results/', '.bench-build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', Headers: 'readonly', Response: 'readonly' } },
    rules: {
      // PINs, ids and keys come from node:crypto only.
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Use node:crypto (randomInt, randomBytes, randomUUID).' }],
      // Rejecting control characters (header injection) is exactly what some patterns are for.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read JSON answers whose shape is what they assert.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
