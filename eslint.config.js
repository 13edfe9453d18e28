import js from '@eslint/js';
import vitest from '@vitest/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/coverage/**', '**/node_modules/**', 'docs/api/**', 'bench/out/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use literal unions or `as const` objects.' },
        { selector: 'TSModuleDeclaration[kind="namespace"]', message: 'No namespaces.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'zod', importNames: ['default', 'z'], message: "Import zod as `import * as z from 'zod'`." },
          ],
          patterns: [
            { group: ['../../*/src/*', '../../../packages/*'], message: 'Import other packages through their exports.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts'],
    plugins: { vitest },
    rules: {
      ...vitest.configs.recommended.rules,
      'vitest/consistent-test-it': ['error', { fn: 'it' }],
    },
  },
);
