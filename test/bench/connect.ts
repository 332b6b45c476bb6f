/**
 * Connect throughput on SQLite: complete sign-ins per second over real HTTP (challenge + verify + session read,
 * signed by a scenario wallet), and the cost of the wallet-signature check next to a bare ed25519 verify loop in
 * the same run. The local chain runs in its own process (like a remote RPC node, though here it shares the 2
 * cores); the service and the load generator share this one.
 *
 *   node --import tsx test/bench/connect.ts            (standalone)
 *   import { benchConnect } from './connect'            (the main bench runner)
 */
import { createPublicKey, randomBytes, verify as nodeVerify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import { getAddressEncoder, type KeyPairSigner } from '@solana/kit';
import { walletControlString } from '@sigil/contract/connect';
import { signChallenge, signMessage } from '../../client-sdk/src/connect';
import { buildApp } from '../../server/src/app';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig } from '../../server/src/platform/config';
import { createDatabase, migrateToLatest } from '../../server/src/platform/db/index';
import { verifyWalletMessage } from '../../server/src/platform/crypto/wallet-signature';
import { createKey } from '../../server/src/features/keys/service';
import { startChainProcess, stop, table } from './support';
import { demoWallet } from '../../server/src/localchain/scenario';

export interface SigninCost {
  /** Complete sign-ins per second under `concurrency` concurrent clients. */
  perSec: number;
  /** JSON-RPC calls per sign-in, by method (deterministic: counted over sequential sign-ins). */
  rpc: Record<string, number>;
  /** SQL statements per sign-in, `begin`/`commit` included (deterministic). */
  statements: number;
  /** CPU ms per sign-in under load: this process (service + load generator) and the chain process. */
  cpuMs: { service: number; chain: number };
}

export interface ConnectBench {
  signins: { addressControl: SigninCost; handleControl: SigninCost };
  concurrency: number;
  /** verifyWalletMessage (raw form: decode signer, small-order check, key import, verify) per second. */
  walletVerifyPerSec: number;
  /** Bare node:crypto ed25519 verify with a pre-imported key, per second (the floor). */
  bareVerifyPerSec: number;
  /** The same cheap refusal over HTTP, sequential: public route vs keyed route (key lookup + limiter). */
  keyedOverhead: { publicMicros: number; keyedMicros: number; keyedStatements: number };
  markdown: string;
}

function loopPerSec(durationMs: number, op: () => unknown): number {
  for (let i = 0; i < 500; i++) op();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < durationMs) {
    for (let i = 0; i < 50; i++) op();
    n += 50;
  }
  return n / ((performance.now() - start) / 1000);
}

/** user+system CPU ms of another process (Linux /proc; 0 elsewhere). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export async function benchConnect(options: { durationMs?: number; concurrency?: number } = {}): Promise<ConnectBench> {
  const durationMs = options.durationMs ?? 3000;
  const concurrency = options.concurrency ?? 16;
  // The chain in its own process, as a real RPC node would be: the service does not pay for the emulator's CPU
  // (though on this machine it shares the same 2 cores, so its CPU per sign-in is reported too).
  const chain = await startChainProcess();
  const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-connect-'));
  let statements = 0;
  const rpc: Record<string, number> = {};
  const handle = createDatabase({ sqliteFile: join(dir, 'bench.sqlite'), onQuery: () => void statements++ });
  try {
    await migrateToLatest(handle.db);
    const config = testConfig({ SIGIL_RPC_URL: chain.url, SIGIL_PROGRAM_ID: chain.programId, SIGIL_RESOLVE_CACHE_MS: '0' });
    const reader = createChainReader({
      rpcUrl: config.rpcUrl,
      programId: config.programId,
      timeoutMs: config.rpcTimeoutMs,
      onRpcCall: ({ method }) => void (rpc[method] = (rpc[method] ?? 0) + 1),
    });
    const app = buildApp({ config, chain: reader, db: handle.db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    // Partner keys on separate accounts, used round-robin, so the bench measures sign-ins rather than 429s.
    const keys = await Promise.all(Array.from({ length: 40 }, () => createKey(handle.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })));

    const post = async (path: string, key: string, body: unknown) => {
      const res = await fetch(base + path, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    let next = 0;
    const signInOnce = async (wallet: KeyPairSigner, body: Record<string, unknown>, expectHandle: string | null) => {
      const { key, secret } = keys[next++ % keys.length]!;
      const challenge = await post('/v1/auth/challenge', secret, body);
      const session = await post('/v1/auth/verify', secret, await signChallenge(challenge, wallet, key.id));
      const read = await fetch(`${base}/v1/auth/session`, { headers: { 'x-api-key': secret, authorization: `Bearer ${session.token}` } });
      if (read.status !== 200) throw new Error(`session: ${read.status} ${await read.text()}`);
      const view = (await read.json()) as { handle: string | null };
      if (view.handle !== expectHandle) throw new Error(`session: handle ${view.handle}, expected ${expectHandle}`);
    };
    const measure = async (wallet: KeyPairSigner, body: Record<string, unknown>, expectHandle: string | null): Promise<SigninCost> => {
      for (let i = 0; i < 30; i++) await signInOnce(wallet, body, expectHandle); // warm up
      // Counts: sequential, so nothing else runs in between (the key's last-use write is throttled to one per
      // 10 s per key and is warm by now).
      const counted = 20;
      statements = 0;
      for (const m of Object.keys(rpc)) delete rpc[m];
      for (let i = 0; i < counted; i++) await signInOnce(wallet, body, expectHandle);
      const perSignin = Object.fromEntries(Object.entries(rpc).map(([m, n]) => [m, n / counted]));
      const statementsPerSignin = statements / counted;

      let done = 0;
      const cpu0 = ownCpuMs();
      const chain0 = processCpuMs(chain.child.pid);
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < durationMs) {
            await signInOnce(wallet, body, expectHandle);
            done++;
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      return {
        perSec: Math.round(done / seconds),
        rpc: perSignin,
        statements: statementsPerSignin,
        cpuMs: { service: round1((ownCpuMs() - cpu0) / done), chain: round1((processCpuMs(chain.child.pid) - chain0) / done) },
      };
    };
    const heidi = await demoWallet('heidi'); // no primary: address control
    const alice = await demoWallet('alice'); // primary alice: handle control, live authority + attestations
    const addressControl = await measure(heidi, { wallet: heidi.address }, null);
    const handleControl = await measure(alice, { handle: 'alice' }, 'alice');

    // Key auth + limiter per request over HTTP: the same cheap refusal (an invalid name: 400 before any chain
    // read) on the public resolve route and on the keyed one, sequential; the difference is the keyed path.
    // Fresh keys, round-robin: 2,200 requests stay under each key's 1,000/minute.
    const overheadKeys = await Promise.all(Array.from({ length: 4 }, () => createKey(handle.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })));
    let nextKey = 0;
    const refusal = async (path: string, keyed: boolean) => {
      const headers: Record<string, string> = keyed ? { 'x-api-key': overheadKeys[nextKey++ % overheadKeys.length]!.secret } : {};
      const res = await fetch(base + path, { headers });
      if (res.status !== 400) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    const micros = async (path: string, keyed: boolean) => {
      for (let i = 0; i < 200; i++) await refusal(path, keyed);
      const n = 2000;
      const start = performance.now();
      for (let i = 0; i < n; i++) await refusal(path, keyed);
      return ((performance.now() - start) * 1000) / n;
    };
    const rpcBefore = Object.values(rpc).reduce((a, b) => a + b, 0);
    statements = 0;
    await refusal(INVALID_NAME_PATHS.keyed, true);
    const keyedStatements = statements;
    const publicMicros = await micros(INVALID_NAME_PATHS.public, false);
    const keyedMicros = await micros(INVALID_NAME_PATHS.keyed, true);
    if (Object.values(rpc).reduce((a, b) => a + b, 0) !== rpcBefore) throw new Error('the refusal read the chain: not a cheap route');
    await app.close();

    // The signature check alone, next to the bare primitive, same message and key.
    const message = walletControlString('key_bench', heidi.address, 'nonce123');
    const signature = base58.decode(await signMessage(heidi, message));
    const bytes = new TextEncoder().encode(message);
    const x = Buffer.from(getAddressEncoder().encode(heidi.address)).toString('base64url');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    const walletVerifyPerSec = loopPerSec(1000, () => {
      if (!verifyWalletMessage({ message, signature, signer: heidi.address }).ok) throw new Error('verify failed');
    });
    const bareVerifyPerSec = loopPerSec(1000, () => {
      if (!nodeVerify(null, bytes, key, signature)) throw new Error('verify failed');
    });
    const result = {
      signins: { addressControl, handleControl },
      concurrency,
      walletVerifyPerSec: Math.round(walletVerifyPerSec),
      bareVerifyPerSec: Math.round(bareVerifyPerSec),
      keyedOverhead: { publicMicros: Math.round(publicMicros), keyedMicros: Math.round(keyedMicros), keyedStatements },
    };
    return { ...result, markdown: connectMarkdown(result) };
  } finally {
    await handle.close();
    await stop(chain.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A name no route can resolve (400 INVALID_NAME before any chain read), on the public and the keyed route. */
const INVALID_NAME_PATHS = { public: '/resolve/a..b', keyed: '/v1/resolve/a..b' } as const;

const round1 = (n: number) => Math.round(n * 10) / 10;

function connectMarkdown(r: Omit<ConnectBench, 'markdown'>): string {
  const rpcText = (rpc: Record<string, number>) =>
    Object.entries(rpc)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([m, n]) => `${n} ${m}`)
      .join(' + ') || 'none';
  const row = (name: string, c: SigninCost) => [name, c.perSec, rpcText(c.rpc), c.statements, c.cpuMs.service, c.cpuMs.chain];
  const signins = table(
    [`complete sign-in (challenge + verify + session read; SQLite; ${r.concurrency} concurrent)`, 'sign-ins/s', 'RPC calls / sign-in', 'SQL statements / sign-in', 'CPU ms / sign-in (service + client)', 'CPU ms / sign-in (chain)'],
    [row('address control (`{wallet}`, no primary)', r.signins.addressControl), row('handle control (`{handle}`: live authority + attestations)', r.signins.handleControl)],
  );
  const verify = table(
    ['signature check', 'verifies/s', 'vs bare'],
    [
      ['bare node:crypto ed25519 verify, pre-imported key (baseline)', r.bareVerifyPerSec, '1.00'],
      ['verifyWalletMessage (decode signer, small-order check, key import, verify)', r.walletVerifyPerSec, (r.bareVerifyPerSec / r.walletVerifyPerSec).toFixed(2) + '× the cost'],
    ],
  );
  const { publicMicros, keyedMicros, keyedStatements } = r.keyedOverhead;
  const overhead = table(
    ['same cheap refusal over HTTP (400 INVALID_NAME), sequential', 'µs/request'],
    [
      [`public \`GET ${INVALID_NAME_PATHS.public}\` (baseline)`, publicMicros],
      [`keyed \`GET ${INVALID_NAME_PATHS.keyed}\` (${keyedStatements} statements: key lookup + limiter transaction)`, keyedMicros],
      ['key auth + rate-limit overhead per request', keyedMicros - publicMicros],
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
