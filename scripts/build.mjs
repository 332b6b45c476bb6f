// `npm run build`: every package compiled to JavaScript with esbuild (docs/deploy.md "Build").
//   contract/dist/index.js, client-sdk/dist/index.js   ESM, their npm dependencies left as imports
//   server/dist/main.js, server/dist/mcp.js            ESM for plain `node`: the service and the MCP process, with
//                                                      the workspace packages compiled in and every npm dependency
//                                                      left as an import of server/package.json's dependencies
// The portal (Next.js) builds with its own compiler: `npm run build -w web-portal`.
// Plain Node plus esbuild (a devDependency): nothing here runs at service run time.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/**
 * Bare imports stay imports (resolved from node_modules at run time), except the workspace packages, whose
 * TypeScript sources are compiled in. `allowed` (when given) is the list an import must come from.
 */
function externals(allowed) {
  return {
    name: 'externals',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@sigil/')) return undefined;
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        if (allowed && !builtins.has(args.path) && !builtins.has(name) && !allowed.has(name))
          return { errors: [{ text: `${args.path} is not a dependency of the package being built` }] };
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * `new URL(path, import.meta.url)` keeps meaning "relative to this source file" in a bundle: the bundle lives in
 * the same checkout, so the source file's URL is rebuilt from the bundle's own (package.json for the version, the
 * default SQLite file under data/).
 */
function sourceRelativeUrls(outdir) {
  return {
    name: 'source-relative-urls',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url)')) return undefined;
        const fromBundle = relative(outdir, args.path).split('\\').join('/');
        const here = `new URL(${JSON.stringify(fromBundle)}, import.meta.url)`;
        return {
          contents: text.replaceAll(/new URL\(([^()]+), import\.meta\.url\)/g, `new URL($1, ${here})`),
          loader: 'ts',
        };
      });
    },
  };
}

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
};

async function buildLibrary(dir) {
  await build({
    ...common,
    entryPoints: [join(root, dir, 'src/index.ts')],
    outfile: join(root, dir, 'dist/index.js'),
    plugins: [externals()],
  });
}

/** The server's two processes. */
async function buildServer() {
  const outdir = join(root, 'server/dist');
  const pkg = JSON.parse(readFileSync(join(root, 'server/package.json'), 'utf8'));
  const allowed = new Set(Object.keys(pkg.dependencies).filter((d) => !d.startsWith('@sigil/')));
  return build({
    ...common,
    entryPoints: { main: join(root, 'server/src/main.ts'), mcp: join(root, 'server/src/mcp/main.ts') },
    outdir,
    // Some dependencies are CommonJS and call require(): give the ESM bundle one.
    banner: {
      js: "import { createRequire as __sigilRequire } from 'node:module'; const require = __sigilRequire(import.meta.url);",
    },
    plugins: [externals(allowed), sourceRelativeUrls(outdir)],
  });
}

{
  const started = performance.now();
  await buildLibrary('contract');
  await buildLibrary('client-sdk');
  await buildServer();
  console.log(
    `sigil: built contract, client-sdk and server to */dist in ${Math.round(performance.now() - started)} ms`,
  );
}
