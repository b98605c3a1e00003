// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, and for the
// TypeScript sources and tests the type-aware rules that catch what types alone do not: a
// promise nobody awaits or one passed where a callback's result is ignored, an assertion that
// changes nothing, and (in src/) an `any` from JSON.parse or a loose API flowing on unchecked.
// Layering is checked by dependency-cruiser (.dependency-cruiser.cjs), not here.
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
    files: ['src/**/*.ts', 'test/**/*.ts', 'vitest.config.ts'],
    languageOptions: {parserOptions: {projectService: {allowDefaultProject: ['vitest.config.ts']}, tsconfigRootDir: import.meta.dirname}},
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // what comes from outside (JSON.parse, a loose library type) is typed before it is used
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
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
