import js from '@eslint/js';
import vitest from '@vitest/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/coverage/**',
      '**/node_modules/**',
      'docs/api/**',
      'bench/out/**',
      '.device/**',
      '.gl/**',
      '.seal-cache/**',
      'runs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message: 'Use literal unions or `as const` objects.',
        },
        {
          selector: 'TSModuleDeclaration[kind="namespace"]',
          message: 'No namespaces.',
        },
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier, ImportDeclaration[source.value='zod'] > ImportDefaultSpecifier",
          message: "Import zod as `import * as z from 'zod'`.",
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../../*/src/*',
                '../../../packages/*',
                // bench/ and examples/ reach the CLI and packages through their exports too.
                '../apps/*',
                '../../apps/*',
                '../packages/*',
              ],
              message: 'Import other packages through their exports.',
            },
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
      // Narrowing a result union before asserting on it is the normal shape here.
      'vitest/no-conditional-expect': 'off',
      'vitest/expect-expect': [
        'error',
        {
          assertFunctionNames: [
            'expect',
            'expect*',
            'roundTrip',
            'replay',
            'assert*',
          ],
        },
      ],
      'vitest/valid-title': ['error', { allowArguments: true }],
      // Skips carry the reason (missing shared fixtures) as their title.
      'vitest/no-disabled-tests': 'off',
    },
  },
);
