// `npm run count:webhook-path`: how many of the project's files one finalized payment crosses on its way to its
// signed delivery (docs/webhooks.md "Measured: the payment's path"). The path's entry points are the functions
// the payment runs through: the pay consumer's pass (chain transaction → event + delivery rows), the engine's
// delivery worker (claim → sign → send), and the pay stream's event loader (the stored body the worker sends).
// esbuild bundles exactly those entries, tree-shaken, with every project file marked free of side effects: a file
// counts when the bundle needs code from it (types and unused exports weigh nothing). contract/ (the wire shapes)
// and server/src/platform/ (generic: db, chain reader and codecs, outbound client, signing, ids, worker loop) are
// listed but not counted. Also printed, not bounded: the files the entries reach through the import graph at file
// level (a feature's index.ts makes every file it re-exports reachable). Exits 1 above the bound.
import { relative, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const BOUND = 8;

/** The functions a payment runs through, by module (update these when the pipeline's entry moves). */
const ENTRIES: Record<string, string[]> = {
  'server/src/features/pay-webhooks/indexer.ts': ['runIndexerPass'],
  'server/src/features/webhooks/delivery-worker.ts': ['startDeliveryWorker'],
  'server/src/features/pay-webhooks/events.ts': ['loadPayEvents'],
};

/** Every file of ours may be dropped when none of its code is needed; packages stay outside the bundle. */
const noSideEffects: Plugin = {
  name: 'no-side-effects',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'inner') return undefined;
      const result = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'inner',
      });
      if (result.errors.length > 0) return { errors: result.errors };
      const ours = result.path.startsWith(ROOT) && !result.path.includes('/node_modules/');
      if (!ours && !result.path.includes('/contract/src/')) return { path: args.path, external: true };
      return { path: result.path, sideEffects: false };
    });
  },
};

const entry = Object.entries(ENTRIES)
  .map(([file, names]) => `export { ${names.join(', ')} } from ${JSON.stringify(resolve(ROOT, file))};`)
  .join('\n');
const result = await build({
  stdin: { contents: entry, resolveDir: ROOT, loader: 'ts' },
  bundle: true,
  write: false,
  metafile: true,
  format: 'esm',
  platform: 'node',
  treeShaking: true,
  logLevel: 'silent',
  plugins: [noSideEffects],
});
const output = Object.values(result.metafile.outputs)[0]!;
const ours = (path: string) => !path.startsWith('<stdin>');
const rel = (path: string) => relative(ROOT, resolve(ROOT, path));
const generic = (f: string) => f.startsWith('contract/') || f.startsWith('server/src/platform/');
const needed = Object.entries(output.inputs)
  .filter(([path, input]) => input.bytesInOutput > 0 && ours(path))
  .map(([path]) => rel(path))
  .sort();
const counted = needed.filter((f) => !generic(f));
const reachable = Object.keys(result.metafile.inputs).filter(ours).map(rel);
for (const f of needed) process.stdout.write(`${generic(f) ? '  (generic) ' : '  '}${f}\n`);
process.stdout.write(
  `files crossed from a finalized payment to its signed delivery: ${counted.length} (bound ${BOUND}; ` +
    `${needed.length - counted.length} generic contract/platform files not counted)\n` +
    `reachable through imports at file level: ${reachable.filter((f) => !generic(f)).length} ` +
    `(${reachable.length} with contract/platform)\n`,
);
process.exitCode = counted.length > BOUND ? 1 : 0;
