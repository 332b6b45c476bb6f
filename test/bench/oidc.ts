/**
 * OpenID Connect sign-ins per second next to the plain Connect sign-in, in the same run, on SQLite and on Postgres.
 * The service (server/src/main.ts) runs in its own process with SIGIL_PUBLIC_URL = its own address (the issuer),
 * the local chain in another; this process is the load generator: N concurrent loops on a kept-alive undici Pool.
 *
 *   plain Connect   POST /v1/auth/challenge → POST /v1/auth/verify → GET /v1/auth/session        (3 requests)
 *   OIDC            GET /oidc/auth (→ the sign-in page) → POST …/challenge → POST …/verify →
 *                   GET the resume URL (→ 303 to the client with the code) → POST /oidc/token (client secret +
 *                   PKCE) → GET /oidc/me                                                         (6 requests)
 *
 * Both sign in the same way (the wallet signs the same kind of v2 string, audience = the key id), for an address
 * (a fresh wallet each time, no primary) and for the handle @alice (live authority + attestations). Every key is a
 * partner key registered as a confidential OIDC client, used round-robin by both paths.
 *
 *   node --import tsx test/bench/oidc.ts            (standalone: SQLite and Postgres)
 *   import { benchOidc } from './oidc'             (the main bench runner: `npm run bench -- oidc [--db both]`)
 */
import { createHash, randomBytes, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import { decodeJwt } from 'jose';
import { Pool } from 'undici';
import { checkChallenge } from '../../client-sdk/src/connect';
import { createKey } from '../../server/src/features/keys/service';
import { hashClientSecret } from '../../server/src/features/oidc/clients';
import { putClientRow } from '../../server/src/features/oidc/queries';
import { pageBaseOf } from '../support/oidc-page';
import type { Dialect } from '../../server/src/platform/db/index';
import pg from 'pg';
import { POSTGRES_ADMIN_URL } from '../support/postgres';
import { createDatabase, migrateToLatest } from '../../server/src/platform/db/index';
import { demoWallet } from '../../server/src/localchain/scenario';
import { freePort, processCpuMs, startChainProcess, startServiceProcess, stop, table } from './support';
import { randomWallet, walletFromSeed, type BenchWallet } from './wallets';

const REDIRECT_URI = 'http://127.0.0.1:1/callback';
const SCOPE = 'openid profile wallet attestations';
/**
 * Enough partner keys that no key's minute window binds at any speed this bench reaches: a plain sign-in is three
 * keyed requests, so 1,000 sign-ins/s are 180,000 key steps a minute, against 1,000 per key; a 429 stops the bench.
 */
const KEYS = 256;

interface Measured {
  perSec: number;
  /** The service's CPU ms per sign-in (user + system). */
  serviceCpuMs: number;
}

interface Row {
  dialect: Dialect;
  proof: 'address' | 'handle';
  plain: Measured;
  oidc: Measured;
}

export interface OidcBench {
  rows: Row[];
  concurrency: number;
  markdown: string;
}

type Call = (
  method: 'GET' | 'POST',
  path: string,
  headers?: Record<string, string>,
  body?: string,
) => Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;

/** A browser's cookies for one sign-in (all on one origin; path-agnostic is enough here). */
function cookieJar(call: Call): Call & { cookies: Map<string, string> } {
  const cookies = new Map<string, string>();
  const withJar = (async (method, path, headers = {}, body) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await call(method, path, cookie ? { ...headers, cookie } : headers, body);
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(pair.slice(0, eq).trim());
      else cookies.set(pair.slice(0, eq).trim(), value);
    }
    return res;
  }) as Call & { cookies: Map<string, string> };
  withJar.cookies = cookies;
  return withJar;
}

const expectStatus = (res: { status: number; text: string }, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
};
const location = (res: { headers: Record<string, string | string[] | undefined> }) => {
  const url = new URL(String(res.headers.location), 'http://placeholder');
  return { path: url.pathname + url.search, url };
};

/** A fresh, migrated database of that dialect (a temporary SQLite file, or a new Postgres database), with its URL. */
async function benchDatabase(dialect: Dialect) {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-oidc-'));
    const file = join(dir, 'bench.sqlite');
    const handle = createDatabase({ sqliteFile: file });
    await migrateToLatest(handle.db);
    const drop = async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    };
    return { db: handle.db, url: `sqlite:${file}`, drop };
  }
  const name = `sigil_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const handle = createDatabase({ url: url.href });
  await migrateToLatest(handle.db);
  const drop = async () => {
    await handle.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  return { db: handle.db, url: url.href, drop };
}

async function measureDialect(
  chain: Awaited<ReturnType<typeof startChainProcess>>,
  dialect: Dialect,
  options: { roundMs: number; concurrency: number },
): Promise<Row[]> {
  const database = await benchDatabase(dialect);
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    const clients: { id: string; apiSecret: string; basic: string }[] = [];
    for (let i = 0; i < KEYS; i++) {
      const { key, secret } = await createKey(database.db, {
        account: base58.encode(randomBytes(32)),
        tier: 'partner',
      });
      const clientSecret = `sigil_cs_${base58.encode(randomBytes(32))}`;
      await putClientRow(database.db, {
        key_id: key.id,
        client_type: 'confidential',
        secret_hash: hashClientSecret(clientSecret),
        redirect_uris: JSON.stringify([REDIRECT_URI]),
        post_logout_redirect_uris: '[]',
        scopes: 'openid offline_access profile wallet attestations',
        backchannel_logout_uri: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      });
      const basic = Buffer.from(`${encodeURIComponent(key.id)}:${encodeURIComponent(clientSecret)}`).toString('base64');
      clients.push({ id: key.id, apiSecret: secret, basic });
    }
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    service = await startServiceProcess(
      chain,
      {
        PORT: String(port),
        SIGIL_PUBLIC_URL: base,
        DATABASE_URL: database.url,
        SIGIL_RESOLVE_CACHE_MS: '0',
        SIGIL_HANDLE_INDEX_INTERVAL_MS: '0',
        // Every sign-in of the load comes from this one address: the page's per-address limit would stop it.
        SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE: '1000000',
      },
      PROFILE,
    );
    const pool = new Pool(base, { connections: options.concurrency });
    const call: Call = async (method, path, headers = {}, body) => {
      const res = await pool.request({ method, path, headers, body });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    };
    const json = (headers: Record<string, string>) => ({ ...headers, 'content-type': 'application/json' });
    const signed = (wallet: BenchWallet, message: string) =>
      base58.encode(nodeSign(null, Buffer.from(message, 'utf8'), wallet.privateKey));
    let next = 0;

    const plain = async (wallet: BenchWallet, body: object, expectHandle: string | null) => {
      const client = clients[next++ % clients.length]!;
      const headers = { 'x-api-key': client.apiSecret };
      const challengeRes = await call('POST', '/v1/auth/challenge', json(headers), JSON.stringify(body));
      expectStatus(challengeRes, 200, 'challenge');
      const challenge = JSON.parse(challengeRes.text);
      const message = checkChallenge(challenge, client.id);
      const verifyBody = { nonce: challenge.nonce, signature: signed(wallet, message), signer: wallet.address };
      const verifyRes = await call('POST', '/v1/auth/verify', json(headers), JSON.stringify(verifyBody));
      expectStatus(verifyRes, 200, 'verify');
      const read = await call('GET', '/v1/auth/session', {
        ...headers,
        authorization: `Bearer ${JSON.parse(verifyRes.text).token}`,
      });
      expectStatus(read, 200, 'session');
      const view = JSON.parse(read.text);
      if (view.handle !== expectHandle) throw new Error(`session: handle ${view.handle}, expected ${expectHandle}`);
    };

    const oidc = async (wallet: BenchWallet, body: object, expectHandle: string | null) => {
      const client = clients[next++ % clients.length]!;
      const browser = cookieJar(call);
      const verifier = base58.encode(randomBytes(32));
      const state = base58.encode(randomBytes(16));
      const authorize = new URLSearchParams({
        client_id: client.id,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: SCOPE,
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      const start = await browser('GET', `/oidc/auth?${authorize}`);
      expectStatus(start, 200, 'authorize (the sign-in page)');
      const pagePath = pageBaseOf(start.text)!;
      const challengeRes = await browser('POST', `${pagePath}/challenge`, json({}), JSON.stringify(body));
      expectStatus(challengeRes, 200, 'page challenge');
      const challenge = JSON.parse(challengeRes.text);
      const message = checkChallenge(challenge, client.id);
      const verifyBody = {
        path: 'verify',
        nonce: challenge.nonce,
        signature: signed(wallet, message),
        signer: wallet.address,
      };
      const verifyRes = await browser('POST', `${pagePath}/verify`, json({}), JSON.stringify(verifyBody));
      expectStatus(verifyRes, 200, 'page verify');
      const resume = await browser(
        'GET',
        location({ headers: { location: JSON.parse(verifyRes.text).redirect_to } }).path,
      );
      expectStatus(resume, 303, 'resume');
      const callback = location(resume).url;
      if (callback.searchParams.get('state') !== state) throw new Error(`callback: ${callback.href}`);
      const tokenRes = await call(
        'POST',
        '/oidc/token',
        { authorization: `Basic ${client.basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        }).toString(),
      );
      expectStatus(tokenRes, 200, 'token');
      const tokens = JSON.parse(tokenRes.text);
      const claims = decodeJwt(tokens.id_token);
      if (claims.sub !== wallet.address || claims.aud !== client.id) throw new Error(`id token: ${tokenRes.text}`);
      const me = await call('GET', '/oidc/me', { authorization: `Bearer ${tokens.access_token}` });
      expectStatus(me, 200, 'userinfo');
      const userinfo = JSON.parse(me.text);
      if ((userinfo.preferred_username ?? null) !== expectHandle) throw new Error(`userinfo: ${me.text}`);
    };

    /** Sign-ins done, wall ms and service CPU ms of `ms` of concurrent loops. */
    const loops = async (ms: number, signIn: () => Promise<void>) => {
      let done = 0;
      const cpu0 = processCpuMs(service!.child.pid);
      const started = performance.now();
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (performance.now() - started < ms) {
            await signIn();
            done++;
          }
        }),
      );
      return { done, wallMs: performance.now() - started, cpuMs: processCpuMs(service!.child.pid) - cpu0 };
    };
    const measured = (runs: Awaited<ReturnType<typeof loops>>[]): Measured => {
      const sum = (key: 'done' | 'wallMs' | 'cpuMs') => runs.reduce((total, run) => total + run[key], 0);
      return {
        perSec: Math.round(sum('done') / (sum('wallMs') / 1000)),
        serviceCpuMs: Math.round((sum('cpuMs') / sum('done')) * 100) / 100,
      };
    };

    const fresh = Array.from({ length: 256 }, randomWallet);
    let nextWallet = 0;
    const alice = walletFromSeed(createHash('sha256').update('sigil-demo:alice').digest());
    if (alice.address !== (await demoWallet('alice')).address) throw new Error('alice: seed mismatch');
    const address = (path: typeof plain) => () => {
      const wallet = fresh[nextWallet++ % fresh.length]!;
      return path(wallet, { wallet: wallet.address }, null);
    };
    const handle = (path: typeof plain) => () => path(alice, { handle: 'alice' }, 'alice');

    // Steady state: every path once before anything is measured (V8 tiers up the hot paths first).
    let turn = 0;
    const all = [address(plain), address(oidc), handle(plain), handle(oidc)];
    await loops(WARM_UP_MS, () => all[turn++ % all.length]!());
    const rows: Row[] = [];
    for (const [proof, make] of [
      ['address', address],
      ['handle', handle],
    ] as const) {
      // Plain and OIDC alternate in short rounds and each is the sum of its rounds: on a shared machine the load of
      // other work drifts over seconds, and many short alternations expose both paths to the same drift (two
      // long runs each, best kept, moved the ratio by ±0.3 between identical runs).
      const runs: Record<'plain' | 'oidc', Awaited<ReturnType<typeof loops>>[]> = { plain: [], oidc: [] };
      for (let round = 0; round < ROUNDS; round++) {
        runs.plain.push(await loops(options.roundMs, make(plain)));
        runs.oidc.push(await loops(options.roundMs, make(oidc)));
      }
      rows.push({ dialect, proof, plain: measured(runs.plain), oidc: measured(runs.oidc) });
    }
    await pool.close();
    return rows;
  } finally {
    if (service) await stop(service.child);
    await database.drop();
  }
}

const WARM_UP_MS = 4000;
const ROUNDS = 8;
/** BENCH_PROFILE_DIR=<dir>: the service writes a V8 CPU profile there on exit (rank by self time). */
const PROFILE = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];

export async function benchOidc(
  options: { dialects?: readonly Dialect[]; roundMs?: number; concurrency?: number } = {},
): Promise<OidcBench> {
  const roundMs = options.roundMs ?? 1500;
  const concurrency = options.concurrency ?? 32;
  const chain = await startChainProcess();
  try {
    const rows: Row[] = [];
    for (const dialect of options.dialects ?? ['sqlite', 'postgres']) {
      rows.push(...(await measureDialect(chain, dialect, { roundMs, concurrency })));
    }
    return { rows, concurrency, markdown: oidcMarkdown(rows, concurrency) };
  } finally {
    await stop(chain.child);
  }
}

function oidcMarkdown(rows: Row[], concurrency: number): string {
  return table(
    [
      `complete sign-in (${concurrency} concurrent loops)`,
      'plain Connect sign-ins/s',
      'OIDC sign-ins/s',
      'OIDC cost vs plain (throughput)',
      'service CPU ms / sign-in: plain',
      'service CPU ms / sign-in: OIDC',
      'OIDC cost vs plain (service CPU)',
    ],
    rows.map((r) => [
      `${r.dialect === 'sqlite' ? 'SQLite' : 'Postgres'}, ${r.proof === 'address' ? 'address control (`{wallet}`, no primary)' : 'handle control (`{handle}`: @alice)'}`,
      r.plain.perSec,
      r.oidc.perSec,
      `${(r.plain.perSec / r.oidc.perSec).toFixed(2)}×`,
      r.plain.serviceCpuMs,
      r.oidc.serviceCpuMs,
      `${(r.oidc.serviceCpuMs / r.plain.serviceCpuMs).toFixed(2)}×`,
    ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { markdown, ...numbers } = await benchOidc();
  console.log(JSON.stringify(numbers, null, 2));
  console.log(markdown);
  process.exit(0);
}
