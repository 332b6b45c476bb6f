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
    // Test files share their worker's module cache instead of re-importing the server's module graph for each file:
    // with isolation, imports took a third of a whole run (416 s of 1,295 s on this 2-core machine). No test stubs
    // modules or globals, and every suite starts what it needs, so a file leaves nothing behind that another reads.
    isolate: false,
    // Probes Postgres once per run for the dialect matrix (test/support/db.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
