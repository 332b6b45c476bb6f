// The published SDK, proven from outside the workspace: `npm run sdk:pack` builds and packs it and prints the
// tarball's path, which a fresh temporary project installs with a plain `npm install` (no workspace links, no tsx),
// in a default (CommonJS) package. Then every kind of consumer uses it:
//   (a) a plain-Node ESM script and (b) a plain CommonJS script call the running service (this test starts it);
//   (c) a CommonJS TypeScript project with `module: nodenext` type-checks, compiles and runs;
//   (d) a browser bundle (esbuild): the core client within 5 kB and webhook verification within 10 kB, min+gzip;
//   (e) an edge-style runtime (@edge-runtime/vm: WebCrypto, no require, no process, no Buffer) verifies a delivery
//       and builds, checks and signs Connect strings;
//   (f) with the optional peers installed, TypeScript type-checks a file calling every operation of the OpenAPI
//       document (written from the document and its examples, so a new route is covered without editing this test)
//       and every helper, and CommonJS loads the wallet entries.
// It needs the npm registry (@types/node and the optional peers install from it), like `npm install` itself.
import { execFile } from 'node:child_process';
import { createHmac, createPublicKey, verify } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { EdgeVM } from '@edge-runtime/vm';
import { base58 } from '@scure/base';
import { build } from 'esbuild';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkOpenApiDocument } from '../../scripts/sdk-generate';
import { OPERATION_EXAMPLES } from '../../server/src/platform/http/openapi-examples';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** Budgets, min+gzip, of the issue's "light entry points" (docs/sdk.md records the measured sizes). */
const CORE_BUDGET_BYTES = 5 * 1024;
const WEBHOOKS_BUDGET_BYTES = 10 * 1024;
/** The Node versions the package supports: the oldest of each line (package.json engines). */
const SUPPORTED_NODES = ['20.19.0', '22.12.0', '24.0.0'];

let dir: string;
let app: KeyedApp;
let tarball: string;
let files: string[];
let installLog: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigil-sdk-'));
  const [started, packed] = await Promise.all([
    startKeyedApp({ dialect: 'sqlite' }),
    run('node', ['scripts/sdk-pack.mjs'], { cwd: ROOT, maxBuffer: 16 << 20 }),
  ]);
  app = started;
  tarball = packed.stdout.trim();
  const listed = await run('tar', ['-tzf', tarball]);
  files = listed.stdout
    .trim()
    .split('\n')
    .map((f) => f.replace(/^package\//, ''))
    .sort();
  await mkdir(project());
  // No "type": a default CommonJS package, where an ESM-only SDK used to type-check and then crash.
  await writeFile(join(project(), 'package.json'), JSON.stringify({ name: 'sdk-user', private: true }));
  // @types/node as a Node project has it: the type checks below also check the SDK's own declarations.
  const installed = await run('npm', ['install', '--no-audit', '--no-fund', tarball, '@types/node@20'], {
    cwd: project(),
  });
  installLog = installed.stdout + installed.stderr;
}, 600_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const project = () => join(dir, 'project');
const node = (file: string) =>
  run('node', [file], { cwd: project(), env: { ...process.env, BASE: app.base, KEY: app.key.secret } });
const signed = (secret: string, t: number, body: string) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

/** Every package.json under node_modules, nested ones included. */
async function installedManifests(
  from: string,
): Promise<{ name: string; version: string; engines?: { node?: string } }[]> {
  const found = [];
  for (const name of await readdir(from).catch(() => [] as string[])) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      found.push(...(await installedManifests(join(from, name))));
      continue;
    }
    found.push(JSON.parse(await readFile(join(from, name, 'package.json'), 'utf8')));
    found.push(...(await installedManifests(join(from, name, 'node_modules'))));
  }
  return found;
}

describe('the packed @sigil/sdk', () => {
  it('is what `npm run sdk:pack` printed: every entry as ESM and CommonJS with types for each, nothing else', async () => {
    expect(tarball).toMatch(/\/dist\/sigil-sdk-\d+\.\d+\.\d+\.tgz$/);
    const entries = ['index', 'connect', 'connect-tx', 'connect-proxy', 'x402', 'webhooks'];
    const expected = entries.flatMap((e) => [`${e}.js`, `${e}.cjs`, `${e}.d.ts`, `${e}.d.cts`]);
    expect(files).toEqual(['CHANGELOG.md', 'README.md', 'package.json', ...expected].sort());
    const manifest = JSON.parse(await readFile(join(project(), 'node_modules/@sigil/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@sigil/sdk', type: 'module', sideEffects: false });
    expect(semver.gte(manifest.version, '0.23.0')).toBe(true);
    expect(manifest.exports['./webhooks']).toEqual({
      import: { types: './webhooks.d.ts', default: './webhooks.js' },
      require: { types: './webhooks.d.cts', default: './webhooks.cjs' },
    });
    // The light entries need openapi-fetch alone; the wallet stack is an optional peer, not installed here.
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(manifest.peerDependenciesMeta['@solana/kit']).toEqual({ optional: true });
    expect(Object.keys(manifest.peerDependencies)).toContain('zod');
    expect((await readdir(join(project(), 'node_modules'))).filter((n) => !n.startsWith('.')).sort()).toEqual([
      '@sigil',
      '@types',
      'openapi-fetch',
      'openapi-typescript-helpers',
      'undici-types',
    ]);
    expect(await readdir(join(project(), 'node_modules/@sigil'))).toEqual(['sdk']);
  });

  it('installs without an engine warning, and its whole tree accepts Node 20.19, 22 and 24', async () => {
    expect(installLog).not.toMatch(/EBADENGINE|notsup/i);
    const refusing: string[] = [];
    for (const m of await installedManifests(join(project(), 'node_modules'))) {
      const range = m.engines?.node;
      for (const version of SUPPORTED_NODES) {
        if (range && !semver.satisfies(version, range)) refusing.push(`${m.name}@${m.version}: ${range} ∌ ${version}`);
      }
    }
    expect(refusing).toEqual([]);
  });

  it('(a) a plain-Node ESM script calls the service through it', async () => {
    await writeFile(join(project(), 'call.mjs'), consumerScript('esm'));
    expect(JSON.parse((await node('call.mjs')).stdout)).toStrictEqual(expectedCalls());
  });

  it('(b) a plain CommonJS script calls the service through it', async () => {
    await writeFile(join(project(), 'call.js'), consumerScript('cjs'));
    expect(JSON.parse((await node('call.js')).stdout)).toStrictEqual(expectedCalls());
  });

  it('(c) CommonJS TypeScript with module nodenext type-checks, compiles to require() and runs', async () => {
    await writeFile(
      join(project(), 'consumer.ts'),
      `import { createSigilClient, resolveName, type ResolveFailure } from '@sigil/sdk';
       import { verifyWebhook, type VerifyWebhookResult } from '@sigil/sdk/webhooks';
       import { walletControlString } from '@sigil/sdk/connect';
       async function main(): Promise<void> {
         const client = createSigilClient({ baseUrl: process.env.BASE!, retry: false });
         const health = await client.GET('/health');
         const alice = await resolveName(client, '@alice');
         const kind: ResolveFailure['kind'] | null = alice.ok ? null : alice.kind;
         const check: VerifyWebhookResult = await verifyWebhook('{}', ${JSON.stringify(signed('whsec_x', 5, '{}'))}, 'whsec_x', { now: 5 });
         console.log(JSON.stringify({ health: health.ok && health.data, kind, owner: alice.ok && alice.data.namespace, check, s: walletControlString('a', 'b', 'c') }));
       }
       void main();`,
    );
    await writeFile(join(project(), 'tsconfig.cjs.json'), JSON.stringify(tsconfig(['consumer.ts'], false)));
    const compiled = await run('node', [TSC, '-p', 'tsconfig.cjs.json'], { cwd: project() }).catch((e) => e);
    expect(compiled.stdout).toBe('');
    const emitted = await readFile(join(project(), 'out/consumer.js'), 'utf8');
    expect(emitted).toContain('require("@sigil/sdk")');
    expect(JSON.parse((await node('out/consumer.js')).stdout)).toStrictEqual({
      health: { ok: true },
      kind: null,
      owner: 'handle',
      check: { ok: true, secretIndex: 0, timestamp: 5 },
      s: 'sigil-connect:v2:wallet-control:a:b:c',
    });
  }, 300_000);

  it('(d) browser bundles: the core client within 5 kB, webhook verification within 10 kB (min+gzip)', async () => {
    const core = await browserBundle(
      `import { createSigilClient, resolveName, resolveAddress, reverseLookup } from '@sigil/sdk';
       const client = createSigilClient({ baseUrl: location.origin });
       export const lookups = [resolveName, resolveAddress, reverseLookup].map((f) => (name) => f(client, name));`,
    );
    const hooks = await browserBundle(`export { verifyWebhook } from '@sigil/sdk/webhooks';`);
    console.log(`@sigil/sdk min+gzip: core client + resolve helpers ${core.gzip} B, verifyWebhook ${hooks.gzip} B`);
    expect(core.gzip).toBeLessThanOrEqual(CORE_BUDGET_BYTES);
    expect(core.gzip).toBeGreaterThan(1000); // the client is really in it
    expect(hooks.gzip).toBeLessThanOrEqual(WEBHOOKS_BUDGET_BYTES);
    expect(hooks.code).toContain('HMAC');
  });

  it('(e) an edge-style runtime (WebCrypto only) verifies a delivery and builds, checks and signs Connect strings', async () => {
    const bundle = await browserBundle(
      `export { verifyWebhook } from '@sigil/sdk/webhooks';
       export { checkChallenge, signChallenge, walletControlString, memoString } from '@sigil/sdk/connect';`,
      { format: 'iife', globalName: 'sigil' },
    );
    const edge = new EdgeVM();
    expect(edge.evaluate('[typeof require, typeof process, typeof Buffer]')).toEqual([
      'undefined',
      'undefined',
      'undefined',
    ]);
    edge.evaluate(bundle.code);
    const body = '{"id":"pev_1"}';
    const result = await edge.evaluate(`(async () => {
      const keys = await crypto.subtle.generateKey('Ed25519', true, ['sign', 'verify']);
      const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey));
      const challenge = { audience: 'key_A', nonce: 'n1', challenge: sigil.walletControlString('key_A', 'W', 'n1') };
      return {
        good: await sigil.verifyWebhook(${JSON.stringify(body)}, new Headers({ 'Sigil-Signature': ${JSON.stringify(signed('whsec_e', 9, body))} }), 'whsec_e', { now: 9 }),
        bad: await sigil.verifyWebhook(${JSON.stringify(body)}, ${JSON.stringify(signed('whsec_other', 9, body))}, 'whsec_e', { now: 9 }),
        memo: sigil.memoString('key_A', 'n1'),
        foreign: (() => { try { return sigil.checkChallenge(challenge, 'key_B'); } catch (e) { return e.message; } })(),
        signed: await sigil.signChallenge(challenge, { keyPair: keys, address: 'W' }, 'key_A'),
        publicKey: Array.from(publicKey),
      };
    })()`);
    expect(result.good).toEqual({ ok: true, secretIndex: 0, timestamp: 9 });
    expect(result.bad).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(result.memo).toBe('sigil-verify:key_A:n1');
    expect(result.foreign).toBe('challenge audience key_A is not key_B');
    expect(result.signed).toMatchObject({ nonce: 'n1', signer: 'W' });
    // The signature made in the edge runtime verifies in Node over the exact challenge string.
    const key = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(result.publicKey)]),
      format: 'der',
      type: 'spki',
    });
    const message = Buffer.from('sigil-connect:v2:wallet-control:key_A:W:n1');
    expect(verify(null, message, key, Buffer.from(base58.decode(result.signed.signature)))).toBe(true);
  });

  it('(f) with the optional peers: every operation and every helper type-check; CommonJS loads the wallet entries', async () => {
    const sdk = JSON.parse(await readFile(join(ROOT, 'client-sdk/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const contract = JSON.parse(await readFile(join(ROOT, 'contract/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const manifest = JSON.parse(await readFile(join(project(), 'node_modules/@sigil/sdk/package.json'), 'utf8'));
    const versions = { ...contract.dependencies, ...sdk.dependencies };
    const peers = Object.keys(manifest.peerDependencies).map((name) => `${name}@${versions[name]}`);
    await run('npm', ['install', '--no-audit', '--no-fund', ...peers], { cwd: project() });
    await writeFile(join(project(), 'every-operation.mts'), everyOperationFile());
    await writeFile(join(project(), 'tsconfig.json'), JSON.stringify(tsconfig(['every-operation.mts'], true)));
    const checked = await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: project() }).catch((e) => e);
    expect(checked.stdout).toBe('');
    await writeFile(
      join(project(), 'wallet.js'),
      `const x402 = require('@sigil/sdk/x402'); const tx = require('@sigil/sdk/connect-tx');
       console.log(JSON.stringify([typeof x402.createX402Fetch, typeof tx.signMemoTransaction, x402.WRAPPED_NATIVE_MINT]));`,
    );
    expect(JSON.parse((await node('wallet.js')).stdout)).toEqual([
      'function',
      'function',
      'So11111111111111111111111111111111111111112',
    ]);
  }, 600_000);
});

/** The same calls from an ESM or a CommonJS script. */
function consumerScript(kind: 'esm' | 'cjs'): string {
  const imports =
    kind === 'esm'
      ? `import { createSigilClient, resolveName, resolveAddress } from '@sigil/sdk';
         import { verifyWebhook } from '@sigil/sdk/webhooks';`
      : `const { createSigilClient, resolveName, resolveAddress } = require('@sigil/sdk');
         const { verifyWebhook } = require('@sigil/sdk/webhooks');`;
  return `${imports}
    async function main() {
      const client = createSigilClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
      const out = {
        health: await client.GET('/health'),
        ambiguous: await resolveName(client, '@satoshi.x1'),
        missing: await resolveAddress(client, 'nobody'),
        unkeyed: await createSigilClient({ baseUrl: process.env.BASE }).GET('/v1/usage'),
        tooLarge: await client.POST('/v1/gate/check', { body: { subject: { handle: 'x'.repeat(70000) } } }),
        unreachable: await resolveName(createSigilClient({ baseUrl: 'http://127.0.0.1:1', retry: false }), '@alice'),
        webhook: await verifyWebhook('{}', ${JSON.stringify(signed('whsec_x', 1, '{}'))}, ['whsec_old', 'whsec_x'], { now: 1 }),
      };
      for (const value of Object.values(out)) delete value.headers;
      delete out.unreachable.message;
      console.log(JSON.stringify(out));
    }
    main();`;
}

function expectedCalls(): unknown {
  return {
    health: { ok: true, status: 200, data: { ok: true } },
    ambiguous: {
      ok: false,
      kind: 'ambiguous',
      status: 409,
      code: 'ambiguous: both a handle and a domain shape',
      message: 'ambiguous: both a handle and a domain shape',
      body: { error: 'ambiguous: both a handle and a domain shape', input: '@satoshi.x1' },
    },
    missing: {
      ok: false,
      kind: 'not-found',
      status: 404,
      code: 'HANDLE_NOT_REGISTERED',
      message: expect.any(String),
      body: { code: 'HANDLE_NOT_REGISTERED', message: expect.any(String) },
    },
    unkeyed: {
      ok: false,
      status: 401,
      code: 'INVALID_SESSION',
      message: expect.any(String),
      body: { code: 'INVALID_SESSION', message: expect.any(String) },
    },
    tooLarge: {
      ok: false,
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      message: 'request body larger than 65536 bytes',
      body: { code: 'PAYLOAD_TOO_LARGE', message: 'request body larger than 65536 bytes' },
    },
    unreachable: { ok: false, status: 0, code: 'NETWORK_ERROR', kind: 'sigil-unreachable' },
    webhook: { ok: true, secretIndex: 1, timestamp: 1 },
  };
}

function tsconfig(files: string[], esm: boolean): unknown {
  return {
    compilerOptions: {
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      // esnext.disposable: @solana/kit's declarations name `Disposable`.
      lib: ['es2023', 'dom', 'esnext.disposable'],
      types: ['node'],
      strict: true,
      skipLibCheck: false,
      ...(esm ? { noEmit: true } : { outDir: 'out' }),
    },
    files,
  };
}

async function browserBundle(
  contents: string,
  options: { format?: 'esm' | 'iife'; globalName?: string } = {},
): Promise<{ code: string; gzip: number }> {
  const result = await build({
    stdin: { contents, resolveDir: project(), loader: 'js' },
    bundle: true,
    minify: true,
    format: options.format ?? 'esm',
    globalName: options.globalName,
    // Browser and worker conditions; a node: builtin would fail to resolve here.
    platform: 'browser',
    conditions: ['worker', 'browser'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  return { code, gzip: gzipSync(code, { level: 9 }).length };
}

/** A file calling every operation of the document (from its examples) and every helper of every entry. */
function everyOperationFile(): string {
  const doc = sdkOpenApiDocument() as unknown as {
    paths: Record<
      string,
      Record<string, { parameters?: { name: string; in: string; schema?: { type?: string } }[]; requestBody?: unknown }>
    >;
  };
  const calls: string[] = [];
  let n = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const example = OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`] ?? {};
      const params: Record<string, Record<string, string | number>> = {};
      for (const p of op.parameters ?? []) {
        const value = example.parameters?.[p.name];
        if (value === undefined || (p.in !== 'path' && p.in !== 'query')) continue;
        (params[p.in] ??= {})[p.name] =
          p.schema?.type === 'integer' || p.schema?.type === 'number' ? Number(value) : value;
      }
      const init: Record<string, unknown> = {};
      if (Object.keys(params).length) init.params = params;
      if (op.requestBody) init.body = example.request;
      const args = Object.keys(init).length ? `, ${JSON.stringify(init)}` : '';
      const r = `r${n++}`;
      calls.push(
        `const ${r} = await client.${method.toUpperCase()}(${JSON.stringify(path)}${args});`,
        `if (${r}.ok) seen.push(${r}.status, ${r}.data); else seen.push(${r}.code.length, ${r}.message);`,
      );
    }
  }
  expect(n).toBe(Object.keys(OPERATION_EXAMPLES).length);
  return `
    import {
      createSigilClient, resolveName, resolveAddress, reverseLookup, classifyResolveFailure, retryable,
      checkChallenge, signChallenge, signMessage, buildSignInMessage, signSignIn, createConnectProxy,
      type SigilResult, type ResolveFailure,
    } from '@sigil/sdk';
    import { verifyWebhook } from '@sigil/sdk/webhooks';
    import { connectProxyNodeHandler } from '@sigil/sdk/connect-proxy';
    import { signMemoTransaction } from '@sigil/sdk/connect-tx';
    import { createX402Fetch, payAndFetch, signRedeemMessage } from '@sigil/sdk/x402';

    const client = createSigilClient({
      baseUrl: 'http://127.0.0.1:8787', apiKey: 'sigil_sk_x', timeoutMs: 5000, retry: { attempts: 2, baseDelayMs: 10 },
      fetch: (request) => fetch(request), headers: { 'X-Request-Id': 'req-1' },
    });
    const seen: unknown[] = [];

    export async function everyOperation(): Promise<unknown[]> {
      ${calls.join('\n      ')}
      return seen;
    }

    export async function narrowing(): Promise<void> {
      const usage = await client.withSession('token').GET('/v1/usage');
      // @ts-expect-error NOT_RESUMABLE is not a code /v1/usage answers
      if (!usage.ok && usage.code === 'NOT_RESUMABLE') return;
      // What the HTTP layer answers on any operation is in its union.
      if (!usage.ok && (usage.code === 'PAYLOAD_TOO_LARGE' || usage.code === 'METHOD_NOT_ALLOWED')) return;
      const check = await client.POST('/v1/gate/check', { body: { subject: { handle: '@alice' } } });
      if (!check.ok && check.code === 'UNSUPPORTED_MEDIA_TYPE') return;
      const removed = await client.DELETE('/v1/pay/webhooks/{id}', { params: { path: { id: 'whsub_x' } } });
      const nothing: undefined = removed.ok ? removed.data : undefined;
      // @ts-expect-error the path does not exist
      await client.GET('/v1/nope');
      // @ts-expect-error the parameters are required
      await client.GET('/resolve/{name}');
      const result: SigilResult<unknown> = usage;
      seen.push(nothing, result, retryable({ status: 502, code: 'RPC_ERROR' }, 'GET'));
    }

    export async function helpers(): Promise<void> {
      const name = await resolveName(client, '@alice');
      const kind: ResolveFailure['kind'] | undefined = name.ok ? undefined : name.kind;
      if (kind === 'sigil-unreachable' || kind === 'rpc-error') seen.push(kind);
      const address = await resolveAddress(client, 'alice', 'SOL');
      const reverse = await reverseLookup(client, 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T');
      const handle: string | undefined = reverse.ok ? reverse.data?.handle : undefined;
      seen.push(kind, address, handle, classifyResolveFailure({ ok: false, status: 0, code: 'TIMEOUT', message: '' }));
      seen.push(checkChallenge, signChallenge, signMessage, buildSignInMessage, signSignIn, signMemoTransaction);
      seen.push(createConnectProxy, connectProxyNodeHandler, createX402Fetch, payAndFetch, signRedeemMessage);
      seen.push(await verifyWebhook('{}', 't=1,v1=00', ['whsec_x']));
    }
  `;
}
