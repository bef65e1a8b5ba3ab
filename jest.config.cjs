/** One jest config for unit specs (next to the code) and e2e specs (test/). */
const { compilerOptions } = require('./tsconfig.json');
// Relative imports written with .js (the generated Prisma client) resolve to the .ts sources.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target.replace(/^\.\//, '')}`;
}
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: [
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
    '<rootDir>/test/**/*.spec.ts',
  ],
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
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
