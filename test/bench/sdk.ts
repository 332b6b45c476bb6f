// `npm run bench -- sdk`: what each light entry of @sigil/sdk costs a browser app, next to its peers' equivalents,
// all measured the same way: esbuild bundles one small module that imports the thing (browser platform, minified,
// ESM), and the size is that bundle gzipped at level 9. The SDK is bundled from its source entries (the workspace
// package `@sigil/client-sdk`), which is what tsup compiles into the published files; test/sdk/tarball.test.ts checks
// the installed tarball against the same budgets (core client 5 kB, webhook verification 10 kB).
//   webhook verification: `verifyWebhook` vs the `standardwebhooks` package (Svix's Standard Webhooks verifier);
//   REST client: `createSigilClient` (+ the resolve helpers) vs `@unkey/api`'s `Unkey` client.
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { table } from './support';

const HERE = fileURLToPath(new URL('.', import.meta.url));

const SUBJECTS: [name: string, source: string][] = [
  ['`@sigil/sdk/webhooks` verifyWebhook', `export { verifyWebhook } from '@sigil/client-sdk/webhooks';`],
  ['`standardwebhooks` Webhook (verify)', `export { Webhook } from 'standardwebhooks';`],
  ['`@sigil/sdk` createSigilClient (core client)', `export { createSigilClient } from '@sigil/client-sdk/client';`],
  [
    '`@sigil/sdk` core client + resolve helpers',
    `export { createSigilClient } from '@sigil/client-sdk/client';
     export { resolveName, resolveAddress, reverseLookup } from '@sigil/client-sdk/resolve';`,
  ],
  ['`@sigil/sdk/connect` (strings, checks, signing)', `export * from '@sigil/client-sdk/connect';`],
  ['`@unkey/api` Unkey (client)', `export { Unkey } from '@unkey/api';`],
];

async function measure(source: string): Promise<{ min: number; gzip: number }> {
  const result = await build({
    stdin: { contents: source, resolveDir: HERE, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

export async function benchSdk(): Promise<{ markdown: string }> {
  const rows: (string | number)[][] = [];
  for (const [name, source] of SUBJECTS) {
    const { min, gzip } = await measure(source);
    rows.push([name, (min / 1024).toFixed(1), (gzip / 1024).toFixed(1)]);
  }
  return { markdown: table(['bundle (esbuild, browser, minified)', 'min kB', 'min+gzip kB'], rows) };
}
