// knip: unused files, exports, types and dependencies, and dependencies used but not declared. `npm run lint:unused`.
// Entry points are the processes the project starts (README, package.json scripts, spawned children), every test,
// and what plugins find on their own (vitest.config.ts and its globalSetup, the Next.js app of web-portal).
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // An export that its own file uses is not dead code (dropping the `export` keyword changes nothing that runs), and
  // contract/ exports its sub-schemas on purpose. What is reported: exports and types nobody uses at all.
  ignoreExportsUsedInFile: true,
  // System tools, not npm packages: test/support/https-receiver.ts makes throwaway TLS certificates (openssl);
  // apt-get: scripts/ensure-chromium.mjs installs Debian's Chromium for the browser suite.
  ignoreBinaries: ['openssl', 'apt-get'],
  workspaces: {
    '.': {
      // package.json scripts already name server/src/dev.ts, test/bench/run.ts and server/src/features/keys/cli.ts.
      // scripts/sdk-generate.ts is `npm run sdk:generate`.
      entry: ['scripts/*.mjs', 'scripts/*.ts'],
      project: ['scripts/**/*.{mjs,ts}', '*.ts'],
      // Run by path from node_modules/.bin by scripts/openapi-lint.ts (`npm run lint:openapi`), which knip does not
      // read as a binary use.
      ignoreDependencies: ['@stoplight/spectral-cli', '@redocly/cli'],
    },
    contract: {
      entry: ['src/**/*.test.ts'],
      project: ['src/**/*.ts'],
      // Private package: its consumers are all in this repository, so an export nobody imports is dead even though
      // package.json#exports makes every file an entry.
      includeEntryExports: true,
    },
    server: {
      entry: ['src/main.ts', 'src/localchain/main.ts', 'src/mcp/main.ts', 'src/**/*.test.ts'],
      project: ['src/**/*.ts'],
      // Imported by contract/ source that the server bundles (contract/src/gate.ts): the server's own package
      // declares it so its install holds it; knip sees the import in the contract workspace only.
      // @types/http-cache-semantics: that package's `types` field names its JavaScript file, so knip counts the
      // package as typed by itself, while TypeScript still needs the DefinitelyTyped declarations.
      ignoreDependencies: ['canonicalize', '@types/http-cache-semantics'],
      ignoreIssues: {
        // `import * as m0001` objects handed to Kysely's Migrator, which calls `up` and `down`.
        'src/platform/db/migrations/0*.ts': ['exports'],
      },
    },
    'client-sdk': {
      // The published SDK: package.json#exports is its public API, used by third parties; exports are not checked.
      // index.ts and the subpath entries are the published package (scripts/manifest.ts); tsup.config.ts builds it.
      entry: ['src/**/*.test.ts', 'src/{index,connect,connect-tx,connect-proxy,x402,webhooks}.ts'],
      project: ['src/**/*.ts', 'scripts/**/*.ts', '*.ts'],
    },
    test: {
      entry: [
        // Spawned by path, or run by hand (see their header comments).
        'bench/universal-child.ts',
        'bench/mcp-child.ts',
        'bench/localchain-reads.ts',
        // Bundled by test-wallet.ts with esbuild and run in the browser page.
        'browser/test-wallet.page.ts',
        '**/*.test.ts',
      ],
      project: ['**/*.ts'],
      // Named only inside the module text that test/bench/sdk.ts hands esbuild to bundle (`npm run bench -- sdk`).
      ignoreDependencies: ['@unkey/api'],
    },
    'web-portal': {
      // The Next.js plugin adds next.config.ts and the app/ router files (pages, layouts, route handlers).
      project: ['**/*.{ts,tsx}'],
    },
  },
};

export default config;
