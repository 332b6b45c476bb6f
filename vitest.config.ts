import { defineConfig } from 'vitest/config';

// One runner for every package. Suites that start servers or chains do so themselves.
export default defineConfig({
  test: {
    include: [
      'contract/src/**/*.test.ts',
      'server/src/**/*.test.ts',
      'client-sdk/src/**/*.test.ts',
      'web-portal/lib/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'test/bench/**'],
    pool: 'forks',
    // Probes Postgres once per run for the dialect matrix (test/support/db.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
