import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const pureCoreImports = {
  group: ['@nestjs/*', '@prisma/*', 'ioredis', 'bullmq', 'pg', 'fastify', 'node:http', 'http', 'undici', '../../../prisma/*'],
  message: 'libs/capabilities is the pure core.',
};
/** Our own libs a part may not import (docs/architecture.md, "Boundaries"); `regex` over the import path. */
const ours = (names, message) => ({ regex: `^@cp/(${names.join('|')})(/|$)`, message });
/** Relative imports that reach into another lib or app: go through its `@cp/<lib>` barrel instead. */
const noReachingIn = {
  regex:
    '^(\\.\\./)+(libs/|apps/)?(capabilities|auth|common|db|jobs|sync|node-sdk|node-protocol|control-plane|worker|agent-node|cpctl)/src/',
  message: 'Import another lib through its @cp/<lib> alias, never by a relative path into its src.',
};
const nodeSdk = ours(['db', 'jobs', 'sync'], 'libs/node-sdk runs on agent nodes: no database, jobs or control-plane sync code.');
/**
 * Relative paths into the sync client (libs/node-sdk/src/sync, node-sync*.ts), or a barrel above
 * (`..`: the SDK's, which holds it, or a2a's own, a cycle).
 */
const noSyncClient = {
  regex: '^(\\.{1,2}/)+(sync|node-sync[^/]*)(/|$)|^(\\.\\./)*\\.\\.(/index)?/?$|^@cp/node-sdk(/|$)',
  message: 'The A2A server does not import the sync client: they meet through ServedBundle (ADR 0223).',
};
/** Relative paths into the A2A server (libs/node-sdk/src/a2a), or a barrel that holds it. */
const noA2aServer = {
  regex: '^(\\.{1,2}/)+a2a(/|$)|^\\.\\.?(/index)?/?$|^@cp/node-sdk(/|$)',
  message: 'The sync client does not import the A2A server: they meet through ServedBundle (ADR 0223).',
};
/** The sync client loads no NestJS (ADR 0222): the @cp/common and @cp/auth barrels do. */
const nestFree = {
  regex: '^(@nestjs/|nestjs-)|^@cp/(common|auth)$',
  message: 'The sync client is Nest-free: import libs/common through @cp/common/core (ADR 0222).',
};
/** The A2A server's product code loads no NestJS either (its package entry, ADR 0224); specs may use the barrel. */
const nestFreeServer = {
  regex: '^(@nestjs/|nestjs-)|^@cp/common$',
  message: 'The A2A server is Nest-free: import libs/common through @cp/common/core (ADRs 0222, 0224).',
};
const boundaries = [
  {
    files: ['libs/capabilities/**/*.ts'],
    patterns: [pureCoreImports, { regex: '^@cp/(?!capabilities(/testing)?$)', message: 'The pure core imports nothing else of ours.' }],
  },
  {
    files: ['libs/node-protocol/**/*.ts'],
    patterns: [
      {
        // jose and canonicalize: the signatures of cards and bundles are part of the contract (ADR 0130).
        regex: '^(?!(zod|jose|canonicalize|node:crypto|@cp/capabilities)$)(?!\\.{1,2}/)',
        message: 'libs/node-protocol (the wire contract) imports only zod, jose, canonicalize and @cp/capabilities.',
      },
    ],
  },
  {
    files: ['libs/common/**/*.ts'],
    patterns: [
      ours(['capabilities', 'auth', 'db', 'jobs', 'sync', 'node-sdk', 'node-protocol'], 'libs/common imports no other lib of ours.'),
    ],
  },
  {
    files: ['libs/auth/**/*.ts'],
    patterns: [ours(['db', 'jobs', 'sync', 'node-sdk', 'node-protocol'], 'libs/auth imports only @cp/common.')],
  },
  {
    files: ['libs/db/**/*.ts'],
    patterns: [ours(['auth', 'jobs', 'sync', 'node-sdk', 'node-protocol'], 'libs/db imports only @cp/capabilities and @cp/common.')],
  },
  {
    files: ['libs/jobs/**/*.ts'],
    patterns: [ours(['sync', 'node-sdk', 'node-protocol'], 'libs/jobs is server side: no sync, no node SDK.')],
  },
  {
    files: ['libs/sync/**/*.ts'],
    patterns: [ours(['node-sdk', 'jobs'], 'libs/sync takes the wire contract from @cp/node-protocol, never from the client SDK.')],
  },
  {
    files: ['libs/node-sdk/**/*.ts'],
    patterns: [nodeSdk],
  },
  // The node SDK's A2A server and its sync client meet only through ServedBundle (issue 29, ADR 0223).
  { files: ['libs/node-sdk/src/{tools,usage,routing}/**/*.ts'], patterns: [nodeSdk], productPatterns: [nestFreeServer] },
  { files: ['libs/node-sdk/src/a2a/**/*.ts'], patterns: [nodeSdk, noSyncClient], productPatterns: [nestFreeServer] },
  { files: ['libs/node-sdk/src/sync/**/*.ts', 'libs/node-sdk/src/node-sync*.ts'], patterns: [nodeSdk, noA2aServer, nestFree] },
  {
    files: ['apps/control-plane/**/*.ts', 'apps/worker/**/*.ts'],
    patterns: [ours(['node-sdk'], 'Server side: take the wire contract from @cp/node-protocol, never from the client SDK.')],
  },
  {
    files: ['apps/agent-node/**/*.ts'],
    patterns: [ours(['db', 'jobs', 'sync'], 'An agent node reaches the registry through the node API only.')],
  },
  {
    files: ['apps/cpctl/**/*.ts'],
    patterns: [ours(['auth', 'common', 'db', 'jobs', 'sync', 'node-sdk'], 'cpctl talks to the control plane over GraphQL only.')],
  },
];
const testOnlyImports = {
  group: ['@cp/*/testing', '**/testing', '**/testing/*'],
  message: 'Test-only code: import it from specs and test/ only (ADR 0110).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'prisma/generated/**', 'coverage/**', '.cache/**', 'apps/console/src/gql/**'] },
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
    // Test-only code (libs/*/src/testing, reached through @cp/<lib>/testing) is not in the
    // production build: product code must not import it (ADR 0110).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'libs/*/src/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [testOnlyImports, noReachingIn] }] },
  },
  // The boundaries between libs and apps (docs/architecture.md, "Boundaries"; the pure core: ADR 0002).
  // A later block replaces the rule's options for its files, so each repeats the test-only pattern.
  ...boundaries.flatMap(({ files, patterns, productPatterns = [] }) => [
    { files, rules: { 'no-restricted-imports': ['error', { patterns }] } },
    {
      files,
      ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'libs/*/src/testing/**'],
      rules: { 'no-restricted-imports': ['error', { patterns: [...patterns, ...productPatterns, testOnlyImports, noReachingIn] }] },
    },
  ]),
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
  {
    // The admin console (apps/console): browser code with its own tsconfig (DOM, JSX, bundler
    // resolution), the same type-aware rules. It reaches the control plane over HTTP only.
    files: ['apps/console/**/*.ts', 'apps/console/**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { window: 'readonly', document: 'readonly', sessionStorage: 'readonly', HTMLDialogElement: 'readonly' },
    },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^@cp/', message: 'The console uses the GraphQL admin API only.' }] }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/restrict-template-expressions': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
    },
  },
  {
    // No import cycles (issue 29): a cycle makes load order decide what a module sees (a class
    // still undefined in a decorator's metadata) and hides which file owns a type. `import type`
    // cycles count too: they are the same tangle, merely erased at run time.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts', 'tools/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // Without these the rule never opens a .ts dependency and sees no cycle at all.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Small units (STYLE.md): a file past 500 lines holds more than one role. Specs and benches may be long.
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.service-spec.ts', 'apps/console/src/gql/**'],
    rules: { 'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }] },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
);
