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
import { mkdtempSync, rmSync } from 'node:fs';
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
import { startChainProcess, stop } from './support';
import { demoWallet } from '../../server/src/localchain/scenario';

export interface ConnectBench {
  /** Complete sign-ins (3 HTTP requests each) per second, by challenge kind. */
  signinsPerSec: { addressControl: number; handleControl: number };
  concurrency: number;
  /** verifyWalletMessage (raw form: decode signer, small-order check, key import, verify) per second. */
  walletVerifyPerSec: number;
  /** Bare node:crypto ed25519 verify with a pre-imported key, per second (the floor). */
  bareVerifyPerSec: number;
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

export async function benchConnect(options: { durationMs?: number; concurrency?: number } = {}): Promise<ConnectBench> {
  const durationMs = options.durationMs ?? 3000;
  const concurrency = options.concurrency ?? 16;
  // The chain in its own process, as a real RPC node would be: the service does not pay for the emulator's CPU.
  const chain = await startChainProcess();
  const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-connect-'));
  const handle = createDatabase({ sqliteFile: join(dir, 'bench.sqlite') });
  try {
    await migrateToLatest(handle.db);
    const config = testConfig({ SIGIL_RPC_URL: chain.url, SIGIL_PROGRAM_ID: chain.programId, SIGIL_RESOLVE_CACHE_MS: '0' });
    const reader = createChainReader({ rpcUrl: config.rpcUrl, programId: config.programId, timeoutMs: config.rpcTimeoutMs });
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
    const signInOnce = async (wallet: KeyPairSigner, body: Record<string, unknown>) => {
      const { key, secret } = keys[next++ % keys.length]!;
      const challenge = await post('/v1/auth/challenge', secret, body);
      const session = await post('/v1/auth/verify', secret, await signChallenge(challenge, wallet, key.id));
      const read = await fetch(`${base}/v1/auth/session`, { headers: { 'x-api-key': secret, authorization: `Bearer ${session.token}` } });
      if (read.status !== 200) throw new Error(`session: ${read.status} ${await read.text()}`);
      await read.arrayBuffer();
    };
    const measure = async (wallet: KeyPairSigner, body: Record<string, unknown>) => {
      for (let i = 0; i < 50; i++) await signInOnce(wallet, body); // warm up
      let done = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < durationMs) {
            await signInOnce(wallet, body);
            done++;
          }
        }),
      );
      return done / ((performance.now() - start) / 1000);
    };
    const heidi = await demoWallet('heidi'); // no primary: address control
    const alice = await demoWallet('alice'); // primary alice: handle control, live authority + attestations
    const addressControl = await measure(heidi, { wallet: heidi.address });
    const handleControl = await measure(alice, { handle: 'alice' });
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
    return {
      signinsPerSec: { addressControl: Math.round(addressControl), handleControl: Math.round(handleControl) },
      concurrency,
      walletVerifyPerSec: Math.round(walletVerifyPerSec),
      bareVerifyPerSec: Math.round(bareVerifyPerSec),
    };
  } finally {
    await handle.close();
    await stop(chain.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await benchConnect());
  process.exit(0);
}
