/**
 * Connect throughput on SQLite: complete sign-ins per second over real HTTP (challenge + verify + session read),
 * and the cost of the wallet-signature check next to a bare ed25519 verify loop in the same run. Three processes:
 * the local chain (like a remote RPC node), the service (server/src/main.ts on its own SQLite file), and this one,
 * the load generator: N concurrent sign-in loops on a kept-alive undici Pool, signing with node:crypto ed25519
 * (the wallet's cost, not ours: the signature covers the nonce, so it cannot be made in advance). All three share
 * the machine's 2 cores, so the CPU of each is reported per sign-in.
 *
 * The deterministic counts (RPC calls, SQL statements per sign-in) come from a second, in-process app with the
 * counting hooks, over sequential sign-ins.
 *
 *   node --import tsx test/bench/connect.ts            (standalone)
 *   import { benchConnect } from './connect'            (the main bench runner)
 */
import { createPublicKey, randomBytes, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import { getAddressEncoder, type KeyPairSigner } from '@solana/kit';
import { walletControlString } from '@sigil/contract/connect';
import { checkChallenge, signChallenge, signMessage } from '../../client-sdk/src/connect';
import { composeTestApp } from '../support/compose-app';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig } from '../../server/src/platform/config';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { verifyWalletMessage } from '../../server/src/platform/crypto/wallet-signature';
import { createKey } from '../../server/src/features/keys/service';
import { Pool } from 'undici';
import { sha256 } from '@noble/hashes/sha2.js';
import { benchDb, processCpuMs, startChainProcess, startServiceProcess, stop, table } from './support';
import { demoWallet } from '../../server/src/localchain/scenario';
import { randomWallet, walletFromSeed, type BenchWallet } from './wallets';

export interface SigninCost {
  /** Complete sign-ins per second under `concurrency` concurrent clients. */
  perSec: number;
  /** JSON-RPC calls per sign-in, by method (deterministic: counted over sequential sign-ins). */
  rpc: Record<string, number>;
  /** SQL statements per sign-in, `begin`/`commit` included (deterministic). */
  statements: number;
  /** CPU ms per sign-in under load, per process: the service, the load generator (client), the chain. */
  cpuMs: { service: number; client: number; chain: number };
}

export interface ConnectBench {
  dialect: Dialect;
  signins: { addressControl: SigninCost; handleControl: SigninCost };
  concurrency: number;
  /** verifyWalletMessage (raw form) per second, one signer again and again (its key imported once). */
  walletVerifyPerSec: number;
  /** The same with a new signer every call: decode signer, small-order check, key import, verify. */
  freshSignerVerifyPerSec: number;
  /** Median per-round cost of each, in bare verifies (alternated rounds). */
  walletVerifyCost: number;
  freshSignerVerifyCost: number;
  /** Bare node:crypto ed25519 verify with a pre-imported key, per second (the floor). */
  bareVerifyPerSec: number;
  /** The same cheap refusal over HTTP, sequential: public route vs keyed route (key lookup + limiter). */
  keyedOverhead: {
    publicMicros: number;
    keyedMicros: number;
    overheadMicros: number;
    publicCpuMicros: number;
    keyedCpuMicros: number;
    overheadCpuMicros: number;
    keyedStatements: number;
  };
  markdown: string;
}

/**
 * Operations per CPU-second of each of `ops` (this process's CPU time, which does not count the time other
 * processes of a busy machine hold the core), measured in alternated rounds (ROUNDS of ROUND_MS each, after a
 * warm-up), so a change in the machine's speed during the run hits every variant alike; `cost` is each variant's
 * median over the rounds of its CPU time per operation divided by the first variant's in the same round.
 */
function alternatedPerSec<K extends string>(
  ops: Record<K, () => unknown>,
): { perSec: Record<K, number>; cost: Record<K, number> } {
  const names = Object.keys(ops) as K[];
  const micros = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (const name of names) for (let i = 0; i < 500; i++) ops[name]();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      let n = 0;
      const start = performance.now();
      const cpu = ownCpuMs();
      while (performance.now() - start < ROUND_MS) {
        for (let i = 0; i < 20; i++) ops[name]();
        n += 20;
      }
      micros[name].push(((ownCpuMs() - cpu) * 1000) / n);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const first = micros[names[0]!];
  const perSec = {} as Record<K, number>;
  const cost = {} as Record<K, number>;
  for (const name of names) {
    perSec[name] = 1e6 / median(micros[name]);
    cost[name] = median(micros[name].map((us, i) => us / first[i]!));
  }
  return { perSec, cost };
}

const ROUNDS = 9;
const ROUND_MS = 250;
/** More signers than wallet-signature.ts keeps imported: each call of the fresh-signer row imports its key. */
const FRESH_SIGNERS = 5000;

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export async function benchConnect(
  options: { durationMs?: number; concurrency?: number; dialect?: Dialect } = {},
): Promise<ConnectBench> {
  const durationMs = options.durationMs ?? 3000;
  const dialect = options.dialect ?? 'sqlite';
  const concurrency = options.concurrency ?? 32;
  // The chain in its own process, as a real RPC node would be: the service does not pay for the emulator's CPU
  // (though on this machine it shares the same 2 cores, so its CPU per sign-in is reported too).
  // BENCH_PROFILE_DIR=<dir>: the chain and the service write V8 CPU profiles there on exit (rank by self time).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const chain = await startChainProcess(profile);
  let statements = 0;
  const rpc: Record<string, number> = {};
  const handle = await benchDb(dialect, { onQuery: () => void statements++ });
  let serviceDb: Awaited<ReturnType<typeof benchDb>> | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    await migrateToLatest(handle.db);
    const config = testConfig({
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      SIGIL_RESOLVE_CACHE_MS: '0',
    });
    const reader = createChainReader({
      rpcUrl: config.rpcUrl,
      programId: config.programId,
      timeoutMs: config.rpcTimeoutMs,
      onRpcCall: ({ method }) => void (rpc[method] = (rpc[method] ?? 0) + 1),
    });
    const app = await composeTestApp({ config, chain: reader, db: handle.db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    // Partner keys on separate accounts, used round-robin, so the bench measures sign-ins rather than 429s.
    const keys = await Promise.all(
      Array.from({ length: 40 }, () =>
        createKey(handle.db, { account: base58.encode(randomBytes(32)), tier: 'partner' }),
      ),
    );

    const post = async (path: string, key: string, body: unknown) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    let next = 0;
    const signInOnce = async (wallet: KeyPairSigner, body: Record<string, unknown>, expectHandle: string | null) => {
      const { key, secret } = keys[next++ % keys.length]!;
      const challenge = await post('/v1/auth/challenge', secret, body);
      const session = await post('/v1/auth/verify', secret, await signChallenge(challenge, wallet, key.id));
      const read = await fetch(`${base}/v1/auth/session`, {
        headers: { 'x-api-key': secret, authorization: `Bearer ${session.token}` },
      });
      if (read.status !== 200) throw new Error(`session: ${read.status} ${await read.text()}`);
      const view = (await read.json()) as { handle: string | null };
      if (view.handle !== expectHandle) throw new Error(`session: handle ${view.handle}, expected ${expectHandle}`);
    };
    // Counts: in-process, sequential, so nothing else runs in between (the key's last-use write is throttled to
    // one per 10 s per key and is warm after the first sign-ins).
    const count = async (wallet: KeyPairSigner, body: Record<string, unknown>, expectHandle: string | null) => {
      for (let i = 0; i < 30; i++) await signInOnce(wallet, body, expectHandle); // warm up
      const counted = 20;
      statements = 0;
      for (const m of Object.keys(rpc)) delete rpc[m];
      for (let i = 0; i < counted; i++) await signInOnce(wallet, body, expectHandle);
      return {
        rpc: Object.fromEntries(Object.entries(rpc).map(([m, n]) => [m, n / counted])),
        statements: statements / counted,
      };
    };

    // Throughput: the service in its own process, on its own database with partner keys made beforehand.
    const keysDb = (serviceDb = await benchDb(dialect));
    await migrateToLatest(keysDb.db);
    const serviceKeys = await Promise.all(
      Array.from({ length: 64 }, () =>
        createKey(keysDb.db, { account: base58.encode(randomBytes(32)), tier: 'partner' }),
      ),
    );
    await keysDb.close();
    service = await startServiceProcess(chain, { DATABASE_URL: keysDb.url, SIGIL_RESOLVE_CACHE_MS: '0' }, profile);
    const pool = new Pool(service.base, { connections: concurrency });
    const call = async (method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown) => {
      const res = await pool.request({
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.body.json()) as any;
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(json)}`);
      return json;
    };
    let nextServiceKey = 0;
    const clientSignIn = async (wallet: BenchWallet, body: Record<string, unknown>, expectHandle: string | null) => {
      const { key, secret } = serviceKeys[nextServiceKey++ % serviceKeys.length]!;
      const challenge = await call('POST', '/v1/auth/challenge', { 'x-api-key': secret }, body);
      const message = checkChallenge(challenge, key.id); // what a careful client does before signing
      const signature = base58.encode(nodeSign(null, Buffer.from(message, 'utf8'), wallet.privateKey));
      const session = await call(
        'POST',
        '/v1/auth/verify',
        { 'x-api-key': secret },
        { nonce: challenge.nonce, signature, signer: wallet.address },
      );
      const view = await call('GET', '/v1/auth/session', {
        'x-api-key': secret,
        authorization: `Bearer ${session.token}`,
      });
      if (view.handle !== expectHandle) throw new Error(`session: handle ${view.handle}, expected ${expectHandle}`);
    };
    const loops = async (ms: number, signIn: () => Promise<void>) => {
      let done = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < ms) {
            await signIn();
            done++;
          }
        }),
      );
      return { done, seconds: (performance.now() - start) / 1000 };
    };
    const throughput = async (signIn: () => Promise<void>) => {
      await loops(1000, signIn); // this scenario's own warm-up (connections, caches)
      const cpu0 = {
        client: ownCpuMs(),
        service: processCpuMs(service!.child.pid),
        chain: processCpuMs(chain.child.pid),
      };
      const { done, seconds } = await loops(durationMs, signIn);
      return {
        perSec: Math.round(done / seconds),
        cpuMs: {
          service: round1((processCpuMs(service!.child.pid) - cpu0.service) / done),
          client: round1((ownCpuMs() - cpu0.client) / done),
          chain: round1((processCpuMs(chain.child.pid) - cpu0.chain) / done),
        },
      };
    };

    const heidi = await demoWallet('heidi'); // no primary: address control
    const alice = await demoWallet('alice'); // primary alice: handle control, live authority + attestations
    // Address control under load: a different fresh wallet (no primary) for each sign-in, round-robin.
    const freshWallets = Array.from({ length: 256 }, randomWallet);
    let nextWallet = 0;
    const aliceWallet = walletFromSeed(sha256(new TextEncoder().encode('sigil-demo:alice')));
    if (aliceWallet.address !== alice.address) throw new Error('alice: seed does not give the scenario address');
    const addressSignIn = () => {
      const wallet = freshWallets[nextWallet++ % freshWallets.length]!;
      return clientSignIn(wallet, { wallet: wallet.address }, null);
    };
    const handleSignIn = () => clientSignIn(aliceWallet, { handle: 'alice' }, 'alice');
    const counts = {
      address: await count(heidi, { wallet: heidi.address }, null),
      handle: await count(alice, { handle: 'alice' }, 'alice'),
    };
    // Steady state, not start-up: a freshly started service spends its first seconds compiling (V8 tiers up the
    // hot paths), which measured up to 2× slower in whichever scenario ran first. Both mixes run before measuring.
    let turn = 0;
    await loops(WARM_UP_MS, () => (turn++ % 2 === 0 ? addressSignIn() : handleSignIn()));
    const addressControl: SigninCost = { ...counts.address, ...(await throughput(addressSignIn)) };
    const handleControl: SigninCost = { ...counts.handle, ...(await throughput(handleSignIn)) };
    await pool.close();

    // Key auth + limiter per request over HTTP: the same cheap refusal (an invalid name: 400 before any chain
    // read) on the public resolve route and on the keyed one, sequential; the difference is the keyed path.
    // Fresh keys, round-robin: 2,200 requests stay under each key's 1,000/minute.
    const overheadKeys = await Promise.all(
      Array.from({ length: 4 }, () =>
        createKey(handle.db, { account: base58.encode(randomBytes(32)), tier: 'partner' }),
      ),
    );
    let nextKey = 0;
    const refusal = async (path: string, keyed: boolean) => {
      const headers: Record<string, string> = keyed
        ? { 'x-api-key': overheadKeys[nextKey++ % overheadKeys.length]!.secret }
        : {};
      const res = await fetch(base + path, { headers });
      if (res.status !== 400) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    /** Wall µs per request, and this process's CPU µs per request (client and app: both routes pay the client). */
    const micros = async (path: string, keyed: boolean, n: number) => {
      const start = performance.now();
      const cpu = ownCpuMs();
      for (let i = 0; i < n; i++) await refusal(path, keyed);
      return { wall: ((performance.now() - start) * 1000) / n, cpu: ((ownCpuMs() - cpu) * 1000) / n };
    };
    const rpcBefore = Object.values(rpc).reduce((a, b) => a + b, 0);
    // Each key used once first: its throttled last-use write is not part of the request's own statements.
    for (let i = 0; i < overheadKeys.length; i++) await refusal(INVALID_NAME_PATHS.keyed, true);
    statements = 0;
    await refusal(INVALID_NAME_PATHS.keyed, true);
    const keyedStatements = statements;
    await micros(INVALID_NAME_PATHS.public, false, 200);
    await micros(INVALID_NAME_PATHS.keyed, true, 200);
    // Alternated rounds, so a change in the machine's speed hits both routes alike; medians.
    const rounds: { public: { wall: number; cpu: number }; keyed: { wall: number; cpu: number } }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const publicRound = await micros(INVALID_NAME_PATHS.public, false, 200);
      rounds.push({ public: publicRound, keyed: await micros(INVALID_NAME_PATHS.keyed, true, 200) });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    const publicMicros = median(rounds.map((r) => r.public.wall));
    const keyedMicros = median(rounds.map((r) => r.keyed.wall));
    const overheadMicros = median(rounds.map((r) => r.keyed.wall - r.public.wall));
    const publicCpuMicros = median(rounds.map((r) => r.public.cpu));
    const keyedCpuMicros = median(rounds.map((r) => r.keyed.cpu));
    const overheadCpuMicros = median(rounds.map((r) => r.keyed.cpu - r.public.cpu));
    if (Object.values(rpc).reduce((a, b) => a + b, 0) !== rpcBefore)
      throw new Error('the refusal read the chain: not a cheap route');
    await app.close();

    // The signature check alone, next to the bare primitive, same message and key; then a new signer every call
    // (more signers than the verifier keeps imported), each with its own signature over its own message.
    const message = walletControlString('key_bench', heidi.address, 'nonce123');
    const signature = base58.decode(await signMessage(heidi, message));
    const bytes = new TextEncoder().encode(message);
    const x = Buffer.from(getAddressEncoder().encode(heidi.address)).toString('base64url');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    const strangers = Array.from({ length: FRESH_SIGNERS }, () => {
      const wallet = randomWallet();
      const text = walletControlString('key_bench', wallet.address, 'nonce123');
      return {
        message: text,
        signature: nodeSign(null, Buffer.from(text, 'utf8'), wallet.privateKey),
        signer: wallet.address,
      };
    });
    let nextStranger = 0;
    const verifies = alternatedPerSec({
      bare: () => {
        if (!nodeVerify(null, bytes, key, signature)) throw new Error('verify failed');
      },
      wallet: () => {
        if (!verifyWalletMessage({ message, signature, signer: heidi.address }).ok) throw new Error('verify failed');
      },
      fresh: () => {
        if (!verifyWalletMessage(strangers[nextStranger++ % strangers.length]!).ok) throw new Error('verify failed');
      },
    });
    const result = {
      dialect,
      signins: { addressControl, handleControl },
      concurrency,
      walletVerifyPerSec: Math.round(verifies.perSec.wallet),
      freshSignerVerifyPerSec: Math.round(verifies.perSec.fresh),
      bareVerifyPerSec: Math.round(verifies.perSec.bare),
      walletVerifyCost: verifies.cost.wallet,
      freshSignerVerifyCost: verifies.cost.fresh,
      keyedOverhead: {
        publicMicros: Math.round(publicMicros),
        keyedMicros: Math.round(keyedMicros),
        overheadMicros: Math.round(overheadMicros),
        publicCpuMicros: Math.round(publicCpuMicros),
        keyedCpuMicros: Math.round(keyedCpuMicros),
        overheadCpuMicros: Math.round(overheadCpuMicros),
        keyedStatements,
      },
    };
    return { ...result, markdown: connectMarkdown(result) };
  } finally {
    await handle.drop();
    if (service) await stop(service.child);
    await serviceDb?.drop();
    await stop(chain.child);
  }
}

/** A name no route can resolve (400 INVALID_HANDLE before any chain read), on the public and the keyed route. */
const INVALID_NAME_PATHS = { public: '/resolve/a..b', keyed: '/v1/resolve/a..b' } as const;

const round1 = (n: number) => Math.round(n * 10) / 10;
/** Mixed sign-ins before any measurement (see the comment where it is used). */
const WARM_UP_MS = 4000;

function connectMarkdown(r: Omit<ConnectBench, 'markdown'>): string {
  const rpcText = (rpc: Record<string, number>) =>
    Object.entries(rpc)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([m, n]) => `${n} ${m}`)
      .join(' + ') || 'none';
  const row = (name: string, c: SigninCost) => [
    name,
    c.perSec,
    rpcText(c.rpc),
    c.statements,
    c.cpuMs.service,
    c.cpuMs.client,
    c.cpuMs.chain,
  ];
  const signins = table(
    [
      `complete sign-in (challenge + verify + session read; ${r.dialect}; ${r.concurrency} concurrent loops)`,
      'sign-ins/s',
      'RPC calls / sign-in',
      'SQL statements / sign-in',
      'CPU ms / sign-in (service)',
      'CPU ms / sign-in (client)',
      'CPU ms / sign-in (chain)',
    ],
    [
      row('address control (`{wallet}`, no primary)', r.signins.addressControl),
      row('handle control (`{handle}`: live authority + attestations)', r.signins.handleControl),
    ],
  );
  const verify = table(
    ['signature check (alternated rounds, median; CPU time)', 'verifies per CPU-second', 'vs bare'],
    [
      ['bare node:crypto ed25519 verify, pre-imported key (baseline)', r.bareVerifyPerSec, '1.00'],
      [
        'verifyWalletMessage, a signer seen before (its key already imported)',
        r.walletVerifyPerSec,
        r.walletVerifyCost.toFixed(2) + '× the cost',
      ],
      [
        'verifyWalletMessage, a new signer every call (decode signer, small-order check, key import, verify)',
        r.freshSignerVerifyPerSec,
        r.freshSignerVerifyCost.toFixed(2) + '× the cost',
      ],
    ],
  );
  const o = r.keyedOverhead;
  const overhead = table(
    [
      `same cheap refusal over HTTP (400 INVALID_HANDLE), sequential, alternated rounds (medians), ${r.dialect}`,
      'wall µs/request',
      'CPU µs/request (this process: client + app)',
    ],
    [
      [`public \`GET ${INVALID_NAME_PATHS.public}\` (baseline)`, o.publicMicros, o.publicCpuMicros],
      [
        `keyed \`GET ${INVALID_NAME_PATHS.keyed}\` (${o.keyedStatements} statements: key lookup + limiter upsert)`,
        o.keyedMicros,
        o.keyedCpuMicros,
      ],
      [
        "key auth + rate-limit overhead per request (median of the rounds' differences)",
        o.overheadMicros,
        o.overheadCpuMicros,
      ],
    ],
  );
  return [signins, verify, overhead].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { markdown, ...numbers } = await benchConnect();
  console.log(JSON.stringify(numbers, null, 2));
  console.log(markdown);
  process.exit(0);
}
