// ESLint's flat config: typescript-eslint's recommended rules, plus the type-aware checks this code
// needs (a promise nobody awaits is a lost error or a write that races the exit) and the house
// rules (no `any`: zod schemas are the types; `import type` for what is only a type, so a lazily
// loaded module is not pulled in by a type).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Build outputs, generated code and what tests leave behind: nobody edits them.
    ignores: ['dist/', 'node_modules/', 'test-artifacts/', 'schemas/', '**/*.generated.ts'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // The files tsconfig.json includes get its program; the build scripts and the test runner's
        // config, outside it, get a default one.
        projectService: {
          allowDefaultProject: ['scripts/generate-json-schemas.ts', 'scripts/generate-machine-tables.ts', 'vitest.config.ts'],
          defaultProject: 'tsconfig.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      // `typeof import('node:tty')` types a module loaded on demand without importing it at start-up.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // A leading underscore names what is left unused on purpose (a parameter a signature requires,
      // a field taken out of an object by destructuring it away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      eqeqeq: ['error', 'always'],
      // `let x = []; try { x = read() } catch {}` keeps the type checker's definite assignment and a
      // safe value on the error path; the rule calls that first value useless.
      'no-useless-assignment': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { eqeqeq: ['error', 'always'] },
  },
  {
    // The build script runs on Node; the dashboard's client script runs in the browser.
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: Object.fromEntries(['process', 'console', 'URL'].map((name) => [name, 'readonly'])) },
  },
  {
    files: ['src/serve/client/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'fetch',
          'URL',
          'URLSearchParams',
          'FormData',
          'EventSource',
          'CSS',
          'setTimeout',
          'clearTimeout',
          'console',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
);
