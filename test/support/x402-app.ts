// Test fixtures for x402 over real HTTP on the local chain: a chain with funded, wrapped payers and a payee, and an
// app (fresh database of either dialect) whose metered probe procedures sit at real METERED_ROUTES paths.
// Used by tests only.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import {
  createKeyPairSignerFromBytes,
  generateKeyPairSigner,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError } from '@sigil/contract/errors';
import {
  X402_HEADERS,
  decodeSettlementReceipt,
  encodeBase64Json,
  type X402AcceptEntry,
  type X402Challenge,
} from '@sigil/contract/x402';
import {
  paymentInstructions,
  requestChallenge,
  sendInstructions,
  signRedeemMessage,
  wrapNativeInstructions,
  wrappedNativeAccount,
  WRAPPED_NATIVE_MINT,
  type PaymentShapeOptions,
} from '@sigil/client-sdk/x402';
import { composeTestApp, type TestAppDeps } from './compose-app';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig, type Config } from '../../server/src/platform/config';
import type { Database, Dialect } from '../../server/src/platform/db/index';
import type { Kysely } from 'kysely';
import type { VerifiedPayment } from '../../server/src/features/x402/service';
import { healthRouter } from '../../server/src/features/health/router';
import { createKey } from '../../server/src/features/keys/service';
import { rest } from '../../server/src/trpc/meta';
import { meteredProcedure } from '../../server/src/trpc/procedures';
import { router } from '../../server/src/trpc/init';
import { freshDatabase, type FreshDatabase } from './db';

export const DOMAIN_TAG = 'api.sigil.test';
export const PRICE_RESOLVE = 7_000n;

export interface X402Chain {
  chain: LocalChain;
  payTo: KeyPairSigner;
  payer1: KeyPairSigner;
  payer2: KeyPairSigner;
  /** The scenario's SPL token (6 decimals): payer1 holds some; payTo has an account for it. */
  usdx: Address;
  close(): Promise<void>;
}

async function walletOf(chain: LocalChain, name: string): Promise<KeyPairSigner> {
  const wallet = chain.scenario!.wallets[name]!;
  return createKeyPairSignerFromBytes(base58.decode(wallet.secretKey));
}

/**
 * The local chain (manual slots, 10 ms per slot so block time barely drifts), payers holding wrapped native tokens.
 * `autoAdvance` for clients that wait for confirmation themselves (a facilitator; then a longer `slotMs` keeps
 * blockhashes valid for as long as a test needs); `genesisHash` to present another network id
 * (SOLANA_DEVNET_GENESIS_HASH for stock x402 clients).
 */
export async function startX402Chain(
  options: { autoAdvance?: boolean; genesisHash?: string; slotMs?: number } = {},
): Promise<X402Chain> {
  const chain = await startLocalChain({
    autoAdvance: options.autoAdvance ?? false,
    slotMs: options.slotMs ?? 10,
    scenario: true,
    genesisHash: options.genesisHash,
  });
  const payer1 = await walletOf(chain, 'payer1');
  const payer2 = await walletOf(chain, 'payer2');
  const payTo = await generateKeyPairSigner();
  await chain.airdrop(payTo.address, 1_000_000_000n);
  const usdx = chain.scenario!.mints.usdx!.address;
  // Wrapping happens in an earlier transaction, as the spec says: 1 native token each.
  for (const payer of [payer1, payer2]) {
    await sendInstructions(
      chain.rpc,
      payer,
      wrapNativeInstructions(payer, await wrappedNativeAccount(payer.address), 1_000_000_000n),
    );
  }
  // The payee's token accounts must exist (the fixed shape has no room to create them).
  const payToWrapped = await wrappedNativeAccount(payTo.address);
  const [payToUsdx] = await findAssociatedTokenPda({
    owner: payTo.address,
    mint: usdx,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  await sendInstructions(chain.rpc, payTo, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: payTo,
      ata: payToWrapped,
      owner: payTo.address,
      mint: WRAPPED_NATIVE_MINT,
    }),
    getCreateAssociatedTokenIdempotentInstruction({ payer: payTo, ata: payToUsdx, owner: payTo.address, mint: usdx }),
  ]);
  await chain.finalizeAll();
  return { chain, payTo, payer1, payer2, usdx, close: () => chain.close() };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/** Calls of the probe handlers, by name (tests assert a failed redemption never ran or reran the handler). */
export const handlerCalls = new Map<string, number>();

/**
 * Metered probes at real METERED_ROUTES paths. Name behaviours: `missing` → 404; `flaky-*` → 404 on the first
 * call, then 200; `slow-*` → 300 ms before answering (lets concurrent redeemers all pass verification);
 * `withhold-*` → on the first call, takes the payment store's table away (the consume that follows fails).
 */
/** One per app: the `withhold-` probe breaks that app's payments table so that settlement fails. */
const x402ProbeRouter = (probeDb: Kysely<Database>) =>
  router({
    health: healthRouter,
    x402probe: router({
      resolve: meteredProcedure
        .meta(rest('GET', '/v1/resolve/{name}', { summary: 'metered probe' }))
        .input(z.object({ name: z.string() }))
        .output(z.object({ name: z.string(), paidBy: z.string().nullable(), keyId: z.string().nullable() }))
        .query(async ({ input, ctx }) => {
          const calls = (handlerCalls.get(input.name) ?? 0) + 1;
          handlerCalls.set(input.name, calls);
          if (input.name === 'missing' || (input.name.startsWith('flaky-') && calls === 1))
            throw new ApiError('NOT_FOUND', 'no such name');
          if (input.name.startsWith('slow-')) await new Promise((r) => setTimeout(r, 300));
          if (input.name.startsWith('withhold-') && calls === 1)
            await probeDb.schema.alterTable('x402_payments').renameTo('x402_payments_off').execute();
          return {
            name: input.name,
            paidBy: (ctx.payment as VerifiedPayment | undefined)?.payer ?? null,
            keyId: ctx.apiKey?.id ?? null,
          };
        }),
      unlisted: meteredProcedure
        .meta(rest('GET', '/v1/test/unlisted', { summary: 'metered but not in METERED_ROUTES' }))
        .output(z.object({ ok: z.boolean() }))
        .query(() => ({ ok: true })),
    }),
  });

export interface RedeemInput {
  network?: string;
  payer?: string;
  payerSig?: string;
  signature?: string;
  reference?: string;
  /** Extra or replacing headers (e.g. the legacy X-PAYMENT name). */
  headers?: Record<string, string>;
  /** Replaces the whole PAYMENT-SIGNATURE value. */
  rawHeader?: string;
}

export interface X402App {
  base: string;
  app: FastifyInstance;
  database: FreshDatabase;
  config: Config;
  network: string;
  /** A valid integrator key. */
  keySecret: string;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  /** The 402 challenge for `path` with X-Payer = payer. */
  challenge(path: string, payer: Address): Promise<{ reply: Reply; challenge: X402Challenge; entry: X402AcceptEntry }>;
  /** Sends the fixed-shape payment for `entry` (optionally reshaped); does not wait. */
  pay(
    entry: X402AcceptEntry,
    payer: KeyPairSigner,
    opts?: PaymentShapeOptions & {
      reshape?: (ixs: Instruction[]) => Instruction[] | Promise<Instruction[]>;
      skipPreflight?: boolean;
    },
  ): Promise<Signature>;
  /** Advances the chain until everything sent so far is finalized. */
  finalize(): Promise<void>;
  /** The identical request with X-Payer and a payment header. */
  redeem(path: string, input: RedeemInput): Promise<Reply>;
  /** challenge → pay → finalize → sign; returns what a redemption needs. */
  paid(path: string, payer: KeyPairSigner): Promise<{ entry: X402AcceptEntry; signature: Signature; payerSig: string }>;
  close(): Promise<void>;
}

/** The receipt in PAYMENT-RESPONSE (checked equal to X-PAYMENT-RESPONSE). */
export function receiptOf(r: Reply) {
  const value = r.headers.get(X402_HEADERS.response);
  if (value === null || value !== r.headers.get(X402_HEADERS.legacyResponse)) return null;
  return decodeSettlementReceipt(value);
}

export async function startX402App(
  env: X402Chain,
  options: {
    dialect: Dialect;
    vars?: Record<string, string>;
    database?: FreshDatabase;
    router?: AnyTRPCRouter;
    /** E.g. the CA of a loopback HTTPS receiver serving agent manifests (with SIGIL_OUTBOUND_ALLOW_LOOPBACK). */
    outboundOptions?: TestAppDeps['outboundOptions'];
  } = { dialect: 'sqlite' },
): Promise<X402App> {
  const { chain } = env;
  const database = options.database ?? (await freshDatabase(options.dialect));
  const config = testConfig({
    SIGIL_RPC_URL: chain.url,
    SIGIL_PROGRAM_ID: chain.programId,
    SIGIL_RESOLVE_CACHE_MS: '0',
    SIGIL_X402_PAY_TO: env.payTo.address,
    SIGIL_X402_DOMAIN_TAG: DOMAIN_TAG,
    SIGIL_X402_PRICE_RESOLVE: String(PRICE_RESOLVE),
    ...options.vars,
  });
  const reader = createChainReader({ rpcUrl: config.rpcUrl, programId: config.programId, timeoutMs: 2_000 });
  const app = await composeTestApp({
    config,
    chain: reader,
    db: database.db,
    router: options.router ?? x402ProbeRouter(database.db),
    outboundOptions: options.outboundOptions,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const key = await createKey(database.db, { account: base58.encode(randomBytes(32)), name: 'x402-test' });
  const network = `solana:${chain.genesisHash.slice(0, 32)}`;

  const get = async (path: string, headers: Record<string, string> = {}) =>
    reply(await fetch(base + path, { headers }));

  const self: X402App = {
    base,
    app,
    database,
    config,
    network,
    keySecret: key.secret,
    get,
    async challenge(path, payer) {
      const { response, challenge, entry } = await requestChallenge({ url: base + path }, payer);
      const r = await reply(response);
      if (!challenge || !entry) throw new Error(`expected a 402 challenge, got ${r.status} ${JSON.stringify(r.body)}`);
      return { reply: r, challenge, entry };
    },
    async pay(entry, payer, opts = {}) {
      let ixs = await paymentInstructions(chain.rpc, entry, payer, opts);
      if (opts.reshape) ixs = await opts.reshape(ixs);
      return sendInstructions(chain.rpc, payer, ixs, { skipPreflight: opts.skipPreflight });
    },
    async finalize() {
      await chain.finalizeAll();
    },
    async redeem(path, input) {
      const payload: Record<string, string> = {};
      if (input.signature) payload.signature = input.signature;
      if (input.reference) payload.reference = input.reference;
      if (input.payerSig) payload.payerSig = input.payerSig;
      const header =
        input.rawHeader ??
        encodeBase64Json({ x402Version: 2, accepted: { scheme: 'exact', network: input.network ?? network }, payload });
      const headers: Record<string, string> = { [X402_HEADERS.payment]: header, ...input.headers };
      if (input.payer) headers[X402_HEADERS.payer] = input.payer;
      return get(path, headers);
    },
    async paid(path, payer) {
      const { entry } = await self.challenge(path, payer.address);
      const signature = await self.pay(entry, payer);
      await self.finalize();
      return { entry, signature, payerSig: await signRedeemMessage(payer, entry.extra.redeemMessage!) };
    },
    async close() {
      await app.close();
      if (!options.database) await database.drop();
    },
  };
  return self;
}
