// The published SDK, proven from outside the workspace: build it, `npm pack` it, install the tarball into a fresh
// temporary project with a plain `npm install` (no workspace links, no tsx), then
//   (a) a plain-Node ESM script calls the running service through it (this test starts the service);
//   (b) TypeScript type-checks a file that calls every operation of the OpenAPI document through the client (written
//       from the document and its examples, so a new route is covered without editing this test), plus every helper;
//   (c) esbuild bundles the browser entry's core client, and its min+gzip size stays within 15 kB.
// It needs the npm registry (the tarball's dependencies install from it), like `npm install` itself.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkOpenApiDocument } from '../../scripts/sdk-generate';
import { OPERATION_EXAMPLES } from '../../server/src/platform/http/openapi-examples';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const SDK = join(ROOT, 'client-sdk');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** Core client budget, min+gzip (docs/benchmarks.md records the measured size). */
const CORE_BUDGET_BYTES = 15 * 1024;

let dir: string;
let app: KeyedApp;
let files: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigil-sdk-'));
  const [started] = await Promise.all([
    startKeyedApp({ dialect: 'sqlite' }),
    run('npm', ['run', 'build'], { cwd: SDK, maxBuffer: 16 << 20 }),
  ]);
  app = started;
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: join(SDK, 'dist') });
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  files = info.files.map((f) => f.path).sort();
  const project = join(dir, 'project');
  await run('mkdir', [project]);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', join(dir, info.filename)], { cwd: project });
}, 600_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const project = () => join(dir, 'project');

describe('the packed @sigil/sdk', () => {
  it('holds the built entries with their declarations and no source or test files', async () => {
    expect(files).toContain('package.json');
    expect(files).toContain('README.md');
    expect(files).toContain('CHANGELOG.md');
    for (const entry of ['index', 'connect', 'connect-proxy', 'x402', 'webhooks']) {
      expect(files).toContain(`${entry}.js`);
      expect(files).toContain(`${entry}.d.ts`);
    }
    expect(files.filter((f) => /\.test\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(await readFile(join(project(), 'node_modules/@sigil/sdk/package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@sigil/sdk', type: 'module', sideEffects: false });
    expect(manifest.version >= '0.22.0').toBe(true);
    expect(manifest.exports['.']).toEqual({ types: './index.d.ts', import: './index.js' });
    expect(Object.keys(manifest.dependencies)).not.toContain('@sigil/contract');
    // Nothing of the workspace leaked in: the installed tree has no @sigil package but the SDK itself.
    expect(await readdir(join(project(), 'node_modules/@sigil'))).toEqual(['sdk']);
  });

  it('(a) a plain-Node ESM script calls the service through it', async () => {
    const script = `
      import { createSigilClient, resolveName, reverseLookup, resolveAddress } from '@sigil/sdk';
      import { verifyWebhook } from '@sigil/sdk/webhooks';
      import { createHmac } from 'node:crypto';
      const signed = createHmac('sha256', 'whsec_x').update('1.{}').digest('hex');
      const client = createSigilClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
      const out = {
        health: await client.GET('/health'),
        alice: await resolveName(client, '@alice'),
        ambiguous: await resolveName(client, '@satoshi.x1'),
        reverse: await reverseLookup(client, process.env.HEIDI),
        sol: await resolveAddress(client, 'alice', 'SOL'),
        missing: await resolveAddress(client, 'nobody'),
        unkeyed: await createSigilClient({ baseUrl: process.env.BASE }).GET('/v1/usage'),
        webhook: verifyWebhook('{}', 't=1,v1=' + signed, ['whsec_old', 'whsec_x'], { now: 1 }),
      };
      for (const value of Object.values(out)) delete value.headers;
      console.log(JSON.stringify(out));
    `;
    await writeFile(join(project(), 'call.mjs'), script);
    const scenario = (app.chain as unknown as { scenario: { wallets: Record<string, { address: string }> } }).scenario;
    const { stdout } = await run('node', ['call.mjs'], {
      cwd: project(),
      env: { ...process.env, BASE: app.base, KEY: app.key.secret, HEIDI: scenario.wallets.heidi!.address },
    });
    const out = JSON.parse(stdout);
    expect(out.health).toStrictEqual({ ok: true, status: 200, data: { ok: true } });
    expect(out.alice).toStrictEqual({
      ok: true,
      data: {
        input: '@alice',
        name: 'alice',
        namespace: 'handle',
        owner: scenario.wallets.alice!.address,
        tokenized: false,
        verification: 'owner',
      },
    });
    expect(out.ambiguous).toStrictEqual({
      ok: false,
      kind: 'ambiguous',
      status: 409,
      code: 'ambiguous: both a handle and a domain shape',
      message: 'ambiguous: both a handle and a domain shape',
      body: { error: 'ambiguous: both a handle and a domain shape', input: '@satoshi.x1' },
    });
    expect(out.reverse).toStrictEqual({ ok: true, data: null });
    expect(out.sol.data).toMatchObject({ chain: 'SOL', source: 'sigil', verified: true });
    expect(out.missing).toMatchObject({ ok: false, kind: 'not-found', status: 404, code: 'HANDLE_NOT_REGISTERED' });
    expect(out.unkeyed).toMatchObject({ ok: false, status: 401, code: 'INVALID_SESSION' });
    expect(out.webhook).toStrictEqual({ ok: true, secretIndex: 1, timestamp: 1 });
  });

  it('(b) TypeScript type-checks a file calling every operation and every helper', async () => {
    const doc = sdkOpenApiDocument() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; in: string; schema?: { type?: string } }[]; requestBody?: unknown }
        >
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
    const file = `
      import {
        createSigilClient, resolveName, resolveAddress, reverseLookup, classifyResolveFailure, retryable,
        checkChallenge, signChallenge, signMessage, buildSignInMessage, signSignIn, signMemoTransaction,
        createConnectProxy, createX402Fetch, payAndFetch, signRedeemMessage,
        type SigilResult, type ResolveFailureKind,
      } from '@sigil/sdk';
      import { verifyWebhook } from '@sigil/sdk/webhooks';
      import { connectProxyNodeHandler } from '@sigil/sdk/connect-proxy';

      const client = createSigilClient({
        baseUrl: 'http://127.0.0.1:8787', apiKey: 'sigil_sk_x', timeoutMs: 5000, retry: { attempts: 2, baseDelayMs: 10 },
        fetch: (request) => fetch(request), headers: { 'X-Request-Id': 'req-1' },
      });
      const seen: unknown[] = [];

      export async function everyOperation(): Promise<unknown[]> {
        ${calls.join('\n        ')}
        return seen;
      }

      export async function narrowing(): Promise<void> {
        const usage = await client.withSession('token').GET('/v1/usage');
        // @ts-expect-error NOT_RESUMABLE is not a code /v1/usage answers
        if (!usage.ok && usage.code === 'NOT_RESUMABLE') return;
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
        const kind: ResolveFailureKind | 'request-failed' | undefined = name.ok ? undefined : name.kind;
        const address = await resolveAddress(client, 'alice', 'SOL');
        const reverse = await reverseLookup(client, 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T');
        const handle: string | undefined = reverse.ok ? reverse.data?.handle : undefined;
        seen.push(kind, address, handle, classifyResolveFailure({ ok: false, status: 0, code: 'TIMEOUT', message: '' }));
        seen.push(checkChallenge, signChallenge, signMessage, buildSignInMessage, signSignIn, signMemoTransaction);
        seen.push(createConnectProxy, connectProxyNodeHandler, createX402Fetch, payAndFetch, signRedeemMessage);
        seen.push(verifyWebhook('{}', 't=1,v1=00', ['whsec_x']));
      }
    `;
    await writeFile(join(project(), 'every-operation.ts'), file);
    await writeFile(
      join(project(), 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2023', 'dom'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['every-operation.ts'],
      }),
    );
    expect(n).toBe(Object.keys(OPERATION_EXAMPLES).length);
    const checked = await run('node', [TSC, '-p', 'tsconfig.json'], { cwd: project() }).catch(
      (e: { stdout: string }) => e,
    );
    expect(checked.stdout).toBe('');
  });

  it('(c) the browser entry bundles with esbuild, core client within 15 kB min+gzip', async () => {
    await writeFile(
      join(project(), 'browser.js'),
      `import { createSigilClient, resolveName, resolveAddress, reverseLookup } from '@sigil/sdk';
       const client = createSigilClient({ baseUrl: location.origin });
       export const lookups = [resolveName, resolveAddress, reverseLookup].map((f) => (name) => f(client, name));`,
    );
    const result = await build({
      absWorkingDir: project(),
      entryPoints: ['browser.js'],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const bytes = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
    console.log(`@sigil/sdk core client (createSigilClient + resolve helpers): ${bytes} bytes min+gzip`);
    expect(bytes).toBeLessThanOrEqual(CORE_BUDGET_BYTES);
    expect(bytes).toBeGreaterThan(1000); // the client is really in it
  });
});
