// Builds the published package `@sigil/sdk` into client-sdk/dist (`npm run build -w client-sdk`, or `npm run
// sdk:build` at the root): ESM JavaScript and bundled type declarations per entry, with @sigil/contract (private,
// never published) compiled in, JavaScript and types alike; then scripts/manifest.ts gives dist/ its own
// package.json, README and CHANGELOG, so `npm pack ./client-sdk/dist` makes the tarball. The workspace's own
// package.json stays the in-repo source alias (`@sigil/client-sdk/<module>`, .ts files) that the server's tests
// import without a build.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { ENTRIES } from './scripts/manifest';

/** The contract's own dependencies stay imports (declared in the manifest), like this workspace's. */
const CONTRACT_DEPS = Object.keys(
  (JSON.parse(readFileSync('../contract/package.json', 'utf8')) as { dependencies: Record<string, string> })
    .dependencies,
);

export default defineConfig({
  entry: Object.fromEntries(ENTRIES.map((name) => [name, `src/${name}.ts`])),
  format: ['esm'],
  target: 'es2022',
  platform: 'neutral',
  splitting: true,
  treeshake: true,
  clean: true,
  dts: { resolve: [/^@sigil\/contract/] },
  noExternal: [/^@sigil\/contract/],
  external: CONTRACT_DEPS.map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/|$)`)),
  tsconfig: 'tsconfig.build.json',
});
