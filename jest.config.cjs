/**
 * Three tiers (Immich's small / medium / large), one `npm test` for all of them:
 * - unit: specs next to the code (and test/unit); no PostgreSQL, no Redis: a setup file refuses
 *   every connection to them, so a unit spec that reaches a service fails instead of passing here
 *   and breaking on a machine without them. `npm run test:unit` runs with the services stopped.
 * - service: one Nest service with its real repositories and PrismaService on a database of its
 *   own (test/service/*.service-spec.ts), and lib classes against the real Redis
 *   (`.service-spec.ts` files under libs/, e.g. the Redis task store and budgets); no HTTP.
 * - e2e: the booted apps over HTTP with PostgreSQL and Redis (test/e2e/*.e2e-spec.ts), and the
 *   security suite (test/security/*.e2e-spec.ts).
 * The global setup (services reachable?) runs only for the tiers that need them.
 */
const { compilerOptions } = require('./tsconfig.json');
// Relative imports written with .js (the generated Prisma client) resolve to the .ts sources.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target.replace(/^\.\//, '')}`;
}
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      {
        diagnostics: false,
        // CommonJS output turns dynamic import() (the generated Prisma client loads its query
        // compiler that way) into require(), which jest can run without --experimental-vm-modules.
        tsconfig: { ...compilerOptions, module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' },
      },
    ],
    '^.+\\.(m?js|cjs)$': ['babel-jest', require('./tools/babel-jest.config.cjs')],
  },
  // ESM-only packages can sit at any depth of node_modules; transform all JS (cached after the first run).
  transformIgnorePatterns: [],
  testTimeout: 30000,
};
const withServices = '<rootDir>/test/support/global-setup.ts';

module.exports = {
  // Two cores: more workers only queue for the same CPUs and the shared PostgreSQL.
  maxWorkers: 2,
  testTimeout: 30000,
  // A worker that ran ~40 unit files holds 1-2 GB and needs 0.2-1 s to exit once jest lets it go on a
  // loaded 2-core machine (freeing that memory), with no open handle left: jest's 500 ms default then
  // reported "a worker process has failed to exit gracefully". A real leak keeps a worker alive for
  // good and is still reported, 5 s later (ADR 0227).
  workerGracefulExitTimeout: 5000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts', '<rootDir>/test/unit/**/*.spec.ts'],
      setupFiles: ['<rootDir>/test/support/no-services.ts'],
    },
    {
      ...shared,
      displayName: 'service',
      testMatch: ['<rootDir>/test/service/**/*.service-spec.ts', '<rootDir>/libs/**/*.service-spec.ts'],
      globalSetup: withServices,
      setupFiles: ['<rootDir>/test/support/services-allowed.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts', '<rootDir>/test/security/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-timeout.ts'],
      globalSetup: withServices,
      setupFiles: ['<rootDir>/test/support/services-allowed.ts'],
    },
  ],
};
