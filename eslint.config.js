// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, without
// type-aware rules so `npm test` stays fast. Layering is checked by dependency-cruiser
// (.dependency-cruiser.cjs), not here.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/', 'dist.partial-*/', 'node_modules/', 'artifacts/', 'coverage/', 'docs/', 'oclif.manifest.json']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', Response: 'readonly', Request: 'readonly', Headers: 'readonly', NodeJS: 'readonly', performance: 'readonly'},
    },
    rules: {
      // `_name` marks a parameter an interface requires but this implementation ignores;
      // `const {secret, ...rest} = x` is how a field is left out of a copy
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true}],
      // best-effort cleanup (stop a sandbox that may be gone) has nothing to do on failure
      'no-empty': ['error', {allowEmptyCatch: true}],
    },
  },
  {
    // oclif's index loads the whole of oclif at start-up: commands take Flags and Args from
    // cli/base.ts (its light entry points). A type-only import costs nothing at run time.
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [{name: '@oclif/core', allowTypeImports: true, message: 'import Flags and Args from cli/base.ts: oclif\'s index loads the whole of oclif at start-up'}],
      }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {sourceType: 'commonjs', globals: {module: 'writable', require: 'readonly'}},
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // Tests read loosely typed JSON answers (`body.data.x`) and assert on them
    files: ['test/**/*.ts'],
    rules: {'@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off'},
  },
)
