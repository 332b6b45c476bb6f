// Builds the published package `@sigil/sdk` into client-sdk/dist (`npm run build -w client-sdk`, or `npm run
// sdk:build` at the root): per entry, ESM (`.js`) and CommonJS (`.cjs`) JavaScript with bundled type declarations
// for each (`.d.ts`, `.d.cts`), with @sigil/contract (private, never published) compiled in, JavaScript and types
// alike, and @scure/base too (the few bytes of base58/base64 the Connect helpers use, so that the light entries
// depend on nothing ESM-only); then scripts/manifest.ts gives dist/ its own package.json, README and CHANGELOG, so
// `npm pack ./client-sdk/dist` makes the tarball (`npm run sdk:pack`). The workspace's own package.json stays the
// in-repo source alias (`@sigil/client-sdk/<module>`, .ts files) that the server's tests import without a build.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { ENTRIES } from './scripts/manifest';

const BUNDLED = [/^@sigil\/contract/, /^@scure\/base(\/|$)/];

/** The contract's own dependencies stay imports (declared in the manifest), like this workspace's. */
const CONTRACT_DEPS = Object.keys(
  (JSON.parse(readFileSync('../contract/package.json', 'utf8')) as { dependencies: Record<string, string> })
    .dependencies,
).filter((name) => !BUNDLED.some((pattern) => pattern.test(name)));

export default defineConfig({
  entry: Object.fromEntries(ENTRIES.map((name) => [name, `src/${name}.ts`])),
  format: ['esm', 'cjs'],
  target: 'es2022',
  platform: 'neutral',
  // Each entry is self-contained: a CommonJS build cannot share chunks, and the ESM one then has the same files.
  // What two entries share (the contract's strings and header names) is a few hundred bytes.
  splitting: false,
  treeshake: true,
  clean: true,
  dts: { resolve: [/^@sigil\/contract/] },
  noExternal: BUNDLED,
  external: CONTRACT_DEPS.map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(/|$)`)),
  tsconfig: 'tsconfig.build.json',
});
