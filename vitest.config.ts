import { defineConfig } from 'vitest/config';

// One runner for every package. Suites that start servers or chains do so themselves.
export default defineConfig({
  test: {
    include: ['contract/src/**/*.test.ts', 'server/src/**/*.test.ts', 'client-sdk/src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/bench/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
