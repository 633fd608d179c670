// ESM Jest: run with node --experimental-vm-modules (see package.json scripts).
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Libraries by name (package.json `imports`): Jest runs the TypeScript sources, not dist/.
  moduleNameMapper: {
    '^#([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
    '^#([a-z-]+)/(.*)\\.js$': '<rootDir>/libs/$1/src/$2',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
};
export default {
  maxWorkers: 2,
  // A suite that leaves a child's pipe or a LISTEN socket open must not keep CI waiting after the summary.
  forceExit: true,
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.mjs'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.decider.spec.ts', '<rootDir>/libs/**/*.unit.spec.ts', '<rootDir>/apps/**/*.unit.spec.ts'] },
    { ...base, displayName: 'int', testMatch: ['<rootDir>/libs/**/*.int.spec.ts', '<rootDir>/apps/**/*.int.spec.ts'] },
    { ...base, displayName: 'worker', testMatch: ['<rootDir>/libs/**/*.worker.spec.ts', '<rootDir>/apps/**/*.worker.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.spec.ts'] },
    { ...base, displayName: 'concurrency', testMatch: ['<rootDir>/test/concurrency/**/*.concurrency.spec.ts'] },
    // Failovers of real PostgreSQL (pg_auto_failover) and Redis (Sentinel) clusters: `npm run test:ha`, after `npm test` in CI.
    { ...base, displayName: 'ha', testMatch: ['<rootDir>/test/ha/**/*.ha.spec.ts'] },
  ],
};
