import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const pureCoreImports = {
  group: [
    '@nestjs/*',
    '@prisma/*',
    'ioredis',
    'bullmq',
    'pg',
    'fastify',
    'node:http',
    'http',
    'undici',
    '@cp/db',
    '@cp/common',
    '@cp/node-sdk',
    '../../../prisma/*',
  ],
  message: 'libs/capabilities is the pure core.',
};
const testOnlyImports = {
  group: ['@cp/*/testing', '**/testing', '**/testing/*'],
  message: 'Test-only code: import it from specs and test/ only (ADR 0110).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'prisma/generated/**', 'coverage/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='only'][callee.object.name=/^(it|describe|test)$/]",
          message: 'No focused tests.',
        },
        {
          // One injection style: the decorators name what they inject.
          selector: "Decorator > CallExpression[callee.name='Inject'] > Identifier[name=/^(AppConfigToken|RedisToken)$/]",
          message: 'Inject the config with @InjectConfig() and Redis with @InjectRedis().',
        },
      ],
    },
  },
  {
    // The pure core: no framework, database, cache or HTTP imports (docs/adr/0002-pure-core-projections.md).
    files: ['libs/capabilities/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [pureCoreImports] }] },
  },
  {
    files: ['libs/capabilities/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'libs/capabilities/src/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [pureCoreImports, testOnlyImports] }] },
  },
  {
    // Test-only code (libs/*/src/testing, reached through @cp/<lib>/testing) is not in the
    // production build: product code must not import it (ADR 0110).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'libs/*/src/testing/**', 'libs/capabilities/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [testOnlyImports] }] },
  },
  {
    // Nothing but the config module reads process.env.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/common/src/config/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through AppConfig (libs/common/src/config).' },
      ],
    },
  },
  {
    // Type-aware rules for the TypeScript sources (ADR 0120): the type checker sees what the
    // syntax cannot (a promise nobody awaits, an assertion that changes nothing).
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts', 'tools/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      '@typescript-eslint/no-base-to-string': 'error',
      '@typescript-eslint/restrict-template-expressions': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/no-array-delete': 'error',
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-redundant-type-constituents': 'error',
    },
  },
  {
    // `any` does not spread through product code; tests read untyped JSON answers and may.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'libs/*/src/testing/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
);
