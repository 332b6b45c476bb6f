// The local x402 facilitator: the facilitator HTTP API (POST /verify, POST /settle, GET /supported) over the local
// chain, for development (`npm start` with SIGIL_LOCAL_FACILITATOR) and tests. The x402 packages' own facilitator
// (@x402/core's x402Facilitator with @x402/svm's exact scheme, v2 and v1) does the work on our @solana/kit: it checks
// the partially signed transaction, co-signs it as fee payer, broadcasts it and waits until it is confirmed. This
// file only gives it a funded fee payer, the local RPC and an HTTP face. Loopback only. See docs/x402.md.
import { createHash } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { createKeyPairSignerFromPrivateKeyBytes, createSolanaRpc, lamports, type Address } from '@solana/kit';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorSvmSigner } from '@x402/svm';
import { registerExactSvmScheme } from '@x402/svm/exact/facilitator';
import { z } from 'zod';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintEncoder,
  getMintToInstruction,
} from '@solana-program/token';
import { caip2FromGenesisHash } from '@sigil/contract/x402';
import { sendInstructions, WRAPPED_NATIVE_MINT } from '@sigil/client-sdk/x402';
import type { LocalChain } from './index';
import { restoreAccount } from './ledger';
import { LOOPBACK_HOSTS, type LoopbackHost } from './rpc-server';

/** Solana devnet's CAIP-2 id (the local chain presents it with SOLANA_DEVNET_GENESIS_HASH). */
const DEVNET_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** `npm start`'s port for the local facilitator (0 in tests: any free port). */
export const DEFAULT_LOCAL_FACILITATOR_PORT = 8698;

/** What the fee payer is funded with at start (it pays every settled transaction's fee). */
const FEE_PAYER_LAMPORTS = 100_000_000_000n;
/** Each request is answered within this (settle waits for confirmation, a few slots). */
const REQUEST_DEADLINE_MS = 60_000;

export interface LocalFacilitator {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The fee payer it co-signs with (the `extra.feePayer` of its `/supported` kinds). */
  readonly feePayer: Address;
  close(): Promise<void>;
}

// The body of /verify and /settle (x402 facilitator API): the payload and the requirements it is judged against.
// The x402 packages judge their fields; here only the envelope is checked, so a bad one is a 400, not a 500.
const bodySchema = z.object({
  x402Version: z.number().int().optional(),
  paymentPayload: z.looseObject({ x402Version: z.number().int() }),
  paymentRequirements: z.looseObject({ scheme: z.string(), network: z.string() }),
});

export async function startLocalFacilitator(options: {
  /** The local chain's JSON-RPC URL. */
  rpcUrl: string;
  /** CAIP-2 networks served by the v2 scheme (the v1 scheme serves x402's v1 Solana names). */
  networks: string[];
  port?: number;
  host?: LoopbackHost;
}): Promise<LocalFacilitator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.includes(host)) throw new Error(`the local facilitator listens on loopback only, not ${host}`);
  // Deterministic, so that restarts keep one fee payer.
  const signer = await createKeyPairSignerFromPrivateKeyBytes(
    createHash('sha256').update('sigil-localchain:facilitator-fee-payer').digest(),
  );
  const rpc = createSolanaRpc(options.rpcUrl);
  // Funded once per chain: a second facilitator (or a restart) on the same chain finds the fee payer funded. Its
  // airdrop would be the very same transaction while the blockhash has not moved, which the chain refuses as a
  // duplicate.
  const { value: balance } = await rpc.getBalance(signer.address, { commitment: 'processed' }).send();
  if (balance < FEE_PAYER_LAMPORTS / 2n) await rpc.requestAirdrop(signer.address, lamports(FEE_PAYER_LAMPORTS)).send();

  const facilitator = registerExactSvmScheme(new x402Facilitator(), {
    signer: toFacilitatorSvmSigner(signer, { defaultRpcUrl: options.rpcUrl }),
    networks: options.networks as `${string}:${string}`[],
  });

  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 64 * 1024, requestTimeout: REQUEST_DEADLINE_MS });
  const parse = (body: unknown) => {
    const parsed = bodySchema.safeParse(body);
    if (!parsed.success)
      throw Object.assign(new Error(`invalid body: ${parsed.error.issues[0]?.message}`), { statusCode: 400 });
    return parsed.data;
  };
  app.get('/supported', async () => facilitator.getSupported());
  app.post('/verify', async (req) => {
    const { paymentPayload, paymentRequirements } = parse(req.body);
    return facilitator.verify(paymentPayload as never, paymentRequirements as never);
  });
  app.post('/settle', async (req) => {
    const { paymentPayload, paymentRequirements } = parse(req.body);
    return facilitator.settle(paymentPayload as never, paymentRequirements as never);
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    void reply.status(status).send({ error: err.message });
  });
  await app.listen({ port: options.port ?? 0, host });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://${host === '::1' ? '[::1]' : host}:${port}`,
    port,
    feePayer: signer.address,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

/**
 * Solana devnet's USDC mint: the default asset of stock x402 clients on devnet (they refuse any other asset unless
 * their owner allows it), so the local facilitator rail sells in it.
 */
export const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' as Address;
const USDC_DECIMALS = 6;
/** What each scenario payer is given at start: 1,000 USDC. */
const PAYER_USDC = 1_000n * 10n ** BigInt(USDC_DECIMALS);
/** Rent-exempt minimum of an 82-byte mint account. */
const MINT_RENT_LAMPORTS = 1_461_600n;

/** The facilitator rail on the local chain: the local facilitator, the asset it sells in and a ready payee. */
export interface LocalFacilitatorRail {
  facilitator: LocalFacilitator;
  /** SIGIL_X402_PAY_TO for the service (the given one, or the local payee). */
  payTo: Address;
  /** SIGIL_X402_ASSET for the service: devnet's USDC when the chain presents devnet, else the wrapped-native mint. */
  asset: Address;
  close(): Promise<void>;
}

/**
 * What `npm start` runs when the facilitator rail is on (and tests that pay like it): the local facilitator serving
 * the chain's network; on a chain presenting devnet, devnet's USDC mint (placed at its address: nobody holds its
 * key) with 1,000 USDC for each scenario payer; and the payee's token account for the asset (an x402 payment only
 * transfers, so the destination must exist). The payee is `payTo`, else a deterministic local one.
 */
export async function startLocalFacilitatorRail(
  chain: Pick<LocalChain, 'url' | 'rpc' | 'svm' | 'genesisHash' | 'airdrop' | 'scenario'>,
  options: { port?: number; payTo?: Address } = {},
): Promise<LocalFacilitatorRail> {
  const network = caip2FromGenesisHash(chain.genesisHash);
  // One deterministic key funds the setup and is the local USDC's mint authority.
  const funder = await createKeyPairSignerFromPrivateKeyBytes(
    createHash('sha256').update('sigil-localchain:x402-payee').digest(),
  );
  await chain.airdrop(funder.address, 1_000_000_000n);
  const payTo = options.payTo ?? funder.address;
  const usdc = network === DEVNET_NETWORK;
  const asset = usdc ? DEVNET_USDC_MINT : WRAPPED_NATIVE_MINT;
  if (usdc && !chain.svm.getAccount(DEVNET_USDC_MINT).exists) {
    restoreAccount(chain.svm, DEVNET_USDC_MINT, {
      lamports: MINT_RENT_LAMPORTS,
      owner: TOKEN_PROGRAM_ADDRESS,
      data: new Uint8Array(
        getMintEncoder().encode({
          mintAuthority: funder.address,
          supply: 0n,
          decimals: USDC_DECIMALS,
          isInitialized: true,
          freezeAuthority: null,
        }),
      ),
      executable: false,
    });
  }
  const ata = async (owner: Address) =>
    (await findAssociatedTokenPda({ owner, mint: asset, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  const create = async (owner: Address) =>
    getCreateAssociatedTokenIdempotentInstruction({ payer: funder, ata: await ata(owner), owner, mint: asset });
  await sendInstructions(chain.rpc, funder, [await create(payTo)]);
  if (usdc) {
    for (const wallet of Object.values(chain.scenario?.wallets ?? {})) {
      const owner = wallet.address as Address;
      await sendInstructions(chain.rpc, funder, [
        await create(owner),
        getMintToInstruction({ mint: asset, token: await ata(owner), mintAuthority: funder, amount: PAYER_USDC }),
      ]);
    }
  }
  const facilitator = await startLocalFacilitator({ rpcUrl: chain.url, networks: [network], port: options.port });
  return { facilitator, payTo, asset, close: () => facilitator.close() };
}
