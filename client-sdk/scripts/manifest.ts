// The published manifest of `@sigil/sdk`, written into dist/ after tsup built it (`npm run build -w client-sdk`),
// with the README and CHANGELOG. Its dependencies are read from the built files: every bare import left in
// dist/*.js and dist/*.d.ts must be a runtime dependency declared by this workspace or the contract (whose code is
// compiled in), so none is missing and none is extra. test/sdk/tarball.test.ts installs the packed result in a
// clean folder to prove it.
import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The published name and version (CHANGELOG.md has one section per version). */
export const NAME = '@sigil/sdk';
export const VERSION = '0.22.0';

export const ENTRIES = ['index', 'connect', 'connect-proxy', 'x402', 'webhooks'] as const;

const root = fileURLToPath(new URL('..', import.meta.url));

async function manifestDeps(): Promise<Record<string, string>> {
  const own = JSON.parse(await readFile(`${root}package.json`, 'utf8')) as { dependencies: Record<string, string> };
  const contract = JSON.parse(await readFile(`${root}../contract/package.json`, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const known: Record<string, string> = { ...contract.dependencies, ...own.dependencies };
  const used = new Set<string>();
  for (const file of (await readdir(`${root}dist`)).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    const text = await readFile(`${root}dist/${file}`, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"'./][^"']*)["']/g)) {
      if (spec!.startsWith('node:') || builtinModules.includes(spec!)) continue;
      used.add(spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!);
    }
  }
  const deps: Record<string, string> = {};
  for (const name of [...used].sort()) {
    if (name.startsWith('@sigil/')) throw new Error(`${name} must be compiled in, not imported, by the built SDK`);
    const version = known[name];
    if (!version) throw new Error(`the built SDK imports ${name}, which no package.json declares`);
    deps[name] = version;
  }
  return deps;
}

export async function writeManifest(): Promise<void> {
  const exports: Record<string, unknown> = {};
  for (const name of ENTRIES) {
    exports[name === 'index' ? '.' : `./${name}`] = { types: `./${name}.d.ts`, import: `./${name}.js` };
  }
  exports['./package.json'] = './package.json';
  const manifest = {
    name: NAME,
    version: VERSION,
    description:
      'Typed client for Sigil: every REST operation, resolve helpers, Connect signing, the x402 payer, webhook verification.',
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20.19' },
    exports,
    types: './index.d.ts',
    dependencies: await manifestDeps(),
  };
  await writeFile(`${root}dist/package.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  await copyFile(`${root}README.md`, `${root}dist/README.md`);
  await copyFile(`${root}CHANGELOG.md`, `${root}dist/CHANGELOG.md`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await writeManifest();
