// @swc/jest transforms TS and the ESM-only packages (octokit) into CommonJS; type-checking is `npm run typecheck`.
const transform = {
  '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const transformIgnorePatterns = ['/node_modules/(@temporalio|@swc|webpack|@grpc|protobufjs)/'];
const common = {
  transform,
  transformIgnorePatterns,
  resolver: '<rootDir>/test/support/jest-resolver.js',
  // Lazy imports name the built file (`import('./list.js')`, as Node needs); in tests that is the .ts source.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testEnvironment: 'node',
  // Jest 30 "soft-deletes" what a test file left on its globals, and the setter it wraps a number in recurses
  // forever: execa's exit bookkeeping, touched when a file's subprocess ends after that file, then overflowed the
  // stack in whichever file ran next, or killed its worker. test/unit/suite/jest-teardown.test.ts holds this.
  testEnvironmentOptions: { globalsCleanup: 'off' },
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/unit-global-teardown.ts',
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts', '<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  // Four files at a time on a 2-core CI machine: most tests wait on real processes (claude turns, tmux, git,
  // Temporal) rather than compute. The two failures once seen at four had causes of their own, since fixed: the
  // cluster's services racing to write its metadata record, and a paste into a dead pane crashing tmux.
  maxWorkers: 4,
  testTimeout: 120000,
};
