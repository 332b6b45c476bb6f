// The published manifest of `@sigil/sdk`, written into dist/ after tsup built it (`npm run build -w client-sdk`),
// with the README and CHANGELOG. Its dependencies are read from the built files: every bare import left in an
// entry's .js/.cjs/.d.ts/.d.cts must be a runtime dependency declared by this workspace or the contract (whose code
// is compiled in), so none is missing and none is extra. What only the wallet entries (WALLET_ENTRIES) import —
// @solana/kit and the rest of the payer's stack — is an optional peer dependency, installed by whoever uses those
// entries, so that the client, the Connect helpers and webhook verification install light.
// test/sdk/tarball.test.ts installs the packed result in a clean folder to prove it.
import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The published name and version (CHANGELOG.md has one section per version). */
export const NAME = '@sigil/sdk';
export const VERSION = '0.23.0';

export const ENTRIES = ['index', 'connect', 'connect-tx', 'connect-proxy', 'x402', 'webhooks'] as const;

/** Entries where a wallet signs a Solana transaction: they need @solana/kit, the optional peers. */
const WALLET_ENTRIES: readonly string[] = ['connect-tx', 'x402'];

/** Packages no light entry may import: they are what made the SDK heavy. */
const HEAVY = /^(@solana\/|@solana-program\/|zod$)/;

/** Node versions the package supports: require() of an ES module (the payer's @noble/hashes) needs these. */
const ENGINES = '^20.19.0 || >=22.12.0';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The packages an entry's built files import (not relative, not node builtins). */
async function importsOf(entry: string, files: string[]): Promise<Set<string>> {
  const used = new Set<string>();
  for (const file of files.filter((f) => /^[^.]+\.(js|cjs|d\.ts|d\.cts)$/.test(f) && f.split('.')[0] === entry)) {
    const text = await readFile(`${root}dist/${file}`, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from|import|require)\s*\(?\s*["']([^"'./][^"']*)["']/g)) {
      if (spec!.startsWith('node:') || builtinModules.includes(spec!)) continue;
      used.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
    }
  }
  return used;
}

async function manifestDeps(): Promise<{ dependencies: Record<string, string>; peers: Record<string, string> }> {
  const own = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as { dependencies: Record<string, string> };
  const contract = JSON.parse(await readFile(`${root}../contract/package.json`, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const known: Record<string, string> = { ...contract.dependencies, ...own.dependencies };
  const files = await readdir(`${root}dist`);
  const light = new Set<string>();
  const wallet = new Set<string>();
  for (const entry of ENTRIES) {
    for (const name of await importsOf(entry, files)) {
      if (name.startsWith('@sigil/')) throw new Error(`${name} must be compiled in, not imported, by the built SDK`);
      if (!known[name]) throw new Error(`the built SDK imports ${name}, which no package.json declares`);
      if (!WALLET_ENTRIES.includes(entry) && HEAVY.test(name))
        throw new Error(`the light entry ${entry} imports ${name}`);
      (WALLET_ENTRIES.includes(entry) ? wallet : light).add(name);
    }
  }
  const pick = (names: Iterable<string>) => Object.fromEntries([...names].sort().map((name) => [name, known[name]!]));
  return { dependencies: pick(light), peers: pick([...wallet].filter((name) => !light.has(name))) };
}

/** `exports`: per entry, the ESM file and its types for `import`, the CommonJS file and its types for `require`. */
function exportsMap(): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  for (const name of ENTRIES) {
    exports[name === 'index' ? '.' : `./${name}`] = {
      import: { types: `./${name}.d.ts`, default: `./${name}.js` },
      require: { types: `./${name}.d.cts`, default: `./${name}.cjs` },
    };
  }
  exports['./package.json'] = './package.json';
  return exports;
}

export async function writeManifest(): Promise<void> {
  const { dependencies, peers } = await manifestDeps();
  const manifest = {
    name: NAME,
    version: VERSION,
    description:
      'Typed client for Sigil: every REST operation, resolve helpers, Connect signing, the x402 payer, webhook verification.',
    type: 'module',
    sideEffects: false,
    engines: { node: ENGINES },
    exports: exportsMap(),
    // For resolvers that read no `exports` (TypeScript's `node10`, old bundlers).
    main: './index.cjs',
    module: './index.js',
    types: './index.d.cts',
    dependencies,
    peerDependencies: peers,
    peerDependenciesMeta: Object.fromEntries(Object.keys(peers).map((name) => [name, { optional: true }])),
  };
  await writeFile(`${root}dist/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(`${root}README.md`, `${root}dist/README.md`);
  await copyFile(`${root}CHANGELOG.md`, `${root}dist/CHANGELOG.md`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await writeManifest();
