// Test fixtures: write registry records and handles on a local chain with real transactions, and serve manifests
// from loopback HTTPS receivers. Never imported by production code.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import {
  findHandlePda,
  findRecordPda,
  getRegisterInstruction,
  getSetRecordInstruction,
  getVerifyRecordInstruction,
} from '../../server/src/platform/chain/registry';
import type { LocalChain } from '../../server/src/localchain';
import { demoWallet } from '../../server/src/localchain/scenario';
import { signedTransaction } from './localchain-wallets';

type Chain = Pick<LocalChain, 'programId' | 'latestBlockhash' | 'sendAndConfirm'>;

export async function setRecord(
  chain: Chain,
  authority: KeyPairSigner,
  name: string,
  kind: 'address' | 'text',
  key: string,
  value: string,
): Promise<void> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const [record] = await findRecordPda(programId, handle, kind, key);
  const ix = getSetRecordInstruction({ programId, authority: authority.address, handle, record, kind, key, value });
  await chain.sendAndConfirm(await signedTransaction(chain, authority, [ix]));
}

/** Sets an X1/SOL address record to `verifier`'s address and has `verifier` sign the on-chain verification. */
export async function setVerifiedEd25519Record(
  chain: Chain,
  authority: KeyPairSigner,
  name: string,
  key: 'X1' | 'SOL',
  verifier: KeyPairSigner,
) {
  await setRecord(chain, authority, name, 'address', key, verifier.address);
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const [record] = await findRecordPda(programId, handle, 'address', key);
  const ix = getVerifyRecordInstruction({
    programId,
    authority: authority.address,
    handle,
    record,
    verifier: verifier.address,
  });
  await chain.sendAndConfirm(await signedTransaction(chain, authority, [ix], { others: [verifier] }));
}

export async function registerHandle(chain: Chain, owner: KeyPairSigner, name: string, handleType = 0): Promise<void> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  const ix = getRegisterInstruction({
    programId,
    payer: owner.address,
    owner: owner.address,
    handle,
    name,
    handleType,
  });
  await chain.sendAndConfirm(await signedTransaction(chain, owner, [ix]));
}

export { demoWallet };

export interface ScoutAgent {
  /** The scenario's owner of `scout` (wallet `ivan`). */
  owner: KeyPairSigner;
  /** The wallet of scout's signature-verified SOL address record: the chain's pay-to authority. */
  payTo: KeyPairSigner;
  /** Points scout's `agent.manifest` record at `url` for one run, then back at the default manifest URL. */
  withManifestUrl<T>(url: string, run: () => Promise<T>): Promise<T>;
}

/** The scenario's Agent handle `scout` with its manifest record at `manifestUrl()` and a verified SOL pay-to record. */
export async function seedScoutAgent(chain: Chain, manifestUrl: () => string): Promise<ScoutAgent> {
  const owner = await demoWallet('ivan');
  const payTo = await generateKeyPairSigner();
  const pointAt = (url: string) => setRecord(chain, owner, 'scout', 'text', 'agent.manifest', url);
  await pointAt(manifestUrl());
  await setVerifiedEd25519Record(chain, owner, 'scout', 'SOL', payTo);
  return {
    owner,
    payTo,
    async withManifestUrl(url, run) {
      await pointAt(url);
      try {
        return await run();
      } finally {
        await pointAt(manifestUrl());
      }
    },
  };
}

type Responder = (req: IncomingMessage, res: ServerResponse) => void;

/** A receiver handler answering 200 with `body` as JSON. */
export const respondJson =
  (body: unknown): Responder =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** A receiver handler streaming 10 MB of JSON-typed spaces (past the 64 KiB manifest limit), minding backpressure. */
export const respondTenMegabytes: Responder = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  let sent = 0;
  const pump = () => {
    while (sent < 10 && res.write(chunk)) sent++;
    if (sent < 10) res.once('drain', () => (sent++, pump()));
    else res.end();
  };
  res.on('error', () => {}); // the client hangs up once over the limit
  pump();
};

export interface ManifestOverrides {
  name?: string;
  network?: string;
  handle?: string;
  addresses?: unknown[];
}

/** The scenario's `scout` agent manifest (testnet, one MCP endpoint, `payTo` as the verified SOL address). */
export function scoutManifest(scoutAccount: string, payTo: string, overrides: ManifestOverrides = {}) {
  return {
    sigil: {
      version: 1,
      name: overrides.name ?? 'scout',
      network: overrides.network ?? 'testnet',
      handle: overrides.handle ?? scoutAccount,
    },
    endpoints: [{ type: 'mcp', url: 'https://agents.example/scout/mcp-from-manifest' }],
    payment: { addresses: overrides.addresses ?? [{ coinType: 501, address: payTo, verified: true }] },
  };
}

/** A loopback port nothing listens on (bound, then released): connecting to it is refused. */
export function closedLoopbackPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
