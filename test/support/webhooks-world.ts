// Test fixtures for pay webhooks: names with a distinct payment address on the local chain, wallet message
// signing (raw and off-chain envelope), token mints (SPL, Token-2022 with a transfer fee). Never imported by
// production code.
import {
  generateKeyPairSigner,
  getAddressEncoder,
  signBytes,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import {
  getOffchainMessageV0Encoder,
  offchainMessageContentUtf8Of1232BytesMax,
  type OffchainMessageApplicationDomain,
} from '@solana/offchain-messages';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { Kysely } from 'kysely';
import { PAY_EVENT_NOTICE, PAY_EVENTS_SCHEMA, payEventId, type PayEvent } from '@sigil/contract/pay-events';
import type { Database } from '../../server/src/platform/db/index';
import { prefixedId } from '../../server/src/platform/ids';
import {
  createPayWebhooksService,
  issueWebhookChallenge,
  type PayWebhooksService,
  type WebhookCaller,
  type WebhookServiceDeps,
} from '../../server/src/features/pay-webhooks/service';
import {
  createQueueSignal,
  insertSubscriptions,
  newSubscriptionRow,
  newWebhookSecret,
} from '../../server/src/features/webhooks/index';
import { parseWebhookChallengeRequest, type WebhookChallengeResponse } from '@sigil/contract/webhooks';
import {
  findHandlePda,
  findRecordPda,
  getRegisterInstruction,
  getSetRecordInstruction,
  getTransferInstruction,
  getVerifyRecordInstruction,
} from '../../server/src/platform/chain/registry';
import { afterAll, beforeAll } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { fundedWallet, signedTransaction } from './localchain-wallets';
import { TOKEN_2022_PROGRAM_ADDRESS } from '../../server/src/platform/chain/programs';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainReader } from '../../server/src/platform/chain/types';

export { fundedWallet, signedTransaction };

/** A registration test file's world: `@name` owned by `merchant` with `till` as its payment address, finalized. */
export interface RegistrationWorld {
  chain: LocalChain;
  reader: ChainReader;
  merchant: KeyPairSigner;
  till: KeyPairSigner;
  /** Service deps on `reader`; the resolver answers one public address, so URL vetting passes without DNS. */
  deps: WebhookServiceDeps;
}

/** A chain that must not be read: a test of management verbs alone proves nothing on chain. */
const noChain = new Proxy({} as ChainReader, {
  get: (_target, method) => () => Promise.reject(new Error(`this test reads no chain (${String(method)})`)),
});

/**
 * The pay stream's service on `db` as the composition root builds it, switched on, loopback refused, its queue
 * signal heard by nobody: `deps` as the registration world's (no chain when the test only manages webhooks), `now`
 * a clock the test controls.
 */
export function payWebhooksService(db: Kysely<Database>, deps: Partial<WebhookServiceDeps> = {}): PayWebhooksService {
  return createPayWebhooksService({
    chain: noChain,
    ...deps,
    db,
    allowLoopback: false,
    enabled: true,
    queued: createQueueSignal(),
  });
}

/**
 * Starts the world (a local chain, manual slots, no scenario) in the calling file's beforeAll and closes it in
 * its afterAll. Its fields exist from the beforeAll on: read them inside tests and hooks.
 */
export function useRegistrationWorld(name: string): RegistrationWorld {
  const world = {} as RegistrationWorld;
  beforeAll(async () => {
    world.chain = await startLocalChain({ autoAdvance: false, scenario: false });
    world.reader = createChainReader({ rpcUrl: world.chain.url, programId: world.chain.programId, timeoutMs: 5000 });
    world.merchant = await fundedWallet(world.chain);
    world.till = await fundedWallet(world.chain);
    await registerName(world.chain, name, world.merchant, world.till);
    await world.chain.finalizeAll();
    world.deps = { chain: world.reader, resolver: async () => [{ address: '93.184.216.34', family: 4 }] };
  });
  afterAll(() => world.chain?.close());
  return world;
}

export async function exec(
  chain: LocalChain,
  payer: KeyPairSigner,
  instructions: Instruction[],
  others: KeyPairSigner[] = [],
) {
  return chain.sendAndConfirm(await signedTransaction(chain, payer, instructions, { others }), {
    commitment: 'finalized',
  });
}

/** Registers `@name` for `owner`; with `paymentWallet`, sets and verifies its X1 address record. */
export async function registerName(
  chain: LocalChain,
  name: string,
  owner: KeyPairSigner,
  paymentWallet?: KeyPairSigner,
): Promise<Address> {
  const programId = chain.programId;
  const [handle] = await findHandlePda(programId, name);
  await exec(chain, owner, [
    getRegisterInstruction({ programId, payer: owner.address, owner: owner.address, handle, name, handleType: 0 }),
  ]);
  if (paymentWallet) await setPaymentAddress(chain, handle, owner, paymentWallet);
  return handle;
}

export async function setPaymentAddress(
  chain: LocalChain,
  handle: Address,
  authority: KeyPairSigner,
  paymentWallet: KeyPairSigner,
) {
  const programId = chain.programId;
  const [record] = await findRecordPda(programId, handle, 'address', 'X1');
  await exec(
    chain,
    authority,
    [
      getSetRecordInstruction({
        programId,
        authority: authority.address,
        handle,
        record,
        kind: 'address',
        key: 'X1',
        value: paymentWallet.address,
      }),
      getVerifyRecordInstruction({
        programId,
        authority: authority.address,
        handle,
        record,
        verifier: paymentWallet.address,
      }),
    ],
    [paymentWallet],
  );
}

export async function transferName(chain: LocalChain, handle: Address, owner: KeyPairSigner, newOwner: Address) {
  await exec(chain, owner, [
    getTransferInstruction({ programId: chain.programId, owner: owner.address, handle, newOwner }),
  ]);
}

/** base58 signature of the message's raw UTF-8 bytes. */
export async function signRaw(signer: KeyPairSigner, message: string): Promise<string> {
  return base58.encode(await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message)));
}

/** base58 signature over the SIMD-0048 v0 off-chain envelope of the message (how many wallets sign). */
export async function signEnvelope(signer: KeyPairSigner, message: string): Promise<string> {
  const envelope = getOffchainMessageV0Encoder().encode({
    version: 0,
    applicationDomain: '11111111111111111111111111111111' as OffchainMessageApplicationDomain,
    requiredSignatories: [{ address: signer.address }],
    content: offchainMessageContentUtf8Of1232BytesMax(message),
  });
  return base58.encode(await signBytes(signer.keyPair.privateKey, new Uint8Array(envelope)));
}

export async function ataOf(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];
}

/** A plain mint (SPL Token or Token-2022 without extensions); `authority` can mint. */
export async function createMint(
  chain: LocalChain,
  authority: KeyPairSigner,
  tokenProgram: Address,
  decimals = 6,
): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const rent = await chain.rpc.getMinimumBalanceForRentExemption(82n).send();
  await exec(
    chain,
    authority,
    [
      getCreateAccountInstruction({
        payer: authority,
        newAccount: mint,
        lamports: rent,
        space: 82n,
        programAddress: tokenProgram,
      }),
      getInitializeMint2Instruction(
        { mint: mint.address, decimals, mintAuthority: authority.address, freezeAuthority: null },
        { programAddress: tokenProgram },
      ),
    ],
    [mint],
  );
  return mint.address;
}

/**
 * A Token-2022 mint with the TransferFeeConfig extension (`basisPoints`, `maximumFee`). The extension
 * instruction is built by hand: @solana-program/token-2022 does not install beside kit 8.
 * Layout: mint base (82) + padding to 165 + account type (1) + TLV(type u16 = 1, len u16 = 108, config) = 278.
 */
export async function createFeeMint(
  chain: LocalChain,
  authority: KeyPairSigner,
  basisPoints: number,
  maximumFee: bigint,
  decimals = 6,
): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = 278n;
  const rent = await chain.rpc.getMinimumBalanceForRentExemption(space).send();
  // TransferFeeExtension (26) / InitializeTransferFeeConfig (0): COption<Pubkey> authority ×2 (1 byte tag + 32
  // when Some), u16 basis points, u64 maximum fee.
  const data = new Uint8Array(2 + 33 + 33 + 2 + 8);
  const view = new DataView(data.buffer);
  data[0] = 26;
  data[1] = 0;
  data[2] = 1;
  data.set(getAddressEncoder().encode(authority.address), 3);
  data[35] = 1;
  data.set(getAddressEncoder().encode(authority.address), 36);
  view.setUint16(68, basisPoints, true);
  view.setBigUint64(70, maximumFee, true);
  const initFee: Instruction = {
    programAddress: TOKEN_2022_PROGRAM_ADDRESS,
    accounts: [{ address: mint.address, role: 1 }],
    data,
  };
  await exec(
    chain,
    authority,
    [
      getCreateAccountInstruction({
        payer: authority,
        newAccount: mint,
        lamports: rent,
        space,
        programAddress: TOKEN_2022_PROGRAM_ADDRESS,
      }),
      initFee,
      getInitializeMint2Instruction(
        { mint: mint.address, decimals, mintAuthority: authority.address, freezeAuthority: null },
        { programAddress: TOKEN_2022_PROGRAM_ADDRESS },
      ),
    ],
    [mint],
  );
  return mint.address;
}

/** Creates `owner`'s ATA (paid by `payer`) and mints `amount` to it when given. */
export async function fundTokens(
  chain: LocalChain,
  mintAuthority: KeyPairSigner,
  mint: Address,
  owner: Address,
  tokenProgram: Address,
  amount = 0n,
): Promise<Address> {
  const ata = await ataOf(owner, mint, tokenProgram);
  const ixs: Instruction[] = [
    getCreateAssociatedTokenIdempotentInstruction({ payer: mintAuthority, ata, owner, mint, tokenProgram }),
  ];
  if (amount > 0n)
    ixs.push(getMintToInstruction({ mint, token: ata, mintAuthority, amount }, { programAddress: tokenProgram }));
  await exec(chain, mintAuthority, ixs);
  return ata;
}

export { TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS };

// ---------------------------------------------------------------------------------------------------------
// Delivery fixtures: a webhook row and queued events, without a chain.

export async function seedWebhook(
  db: Kysely<Database>,
  url: string,
  overrides: { account?: string } = {},
): Promise<{ id: string; secret: string }> {
  const secret = newWebhookSecret();
  const wallet = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
  const row = newSubscriptionRow(Date.now(), {
    account: overrides.account ?? 'acct_seed',
    key_id: 'key_seed',
    scope_type: 'wallet',
    scope_value: wallet,
    wallets: JSON.stringify([wallet]),
    url,
    event_types: JSON.stringify(['payment.received']),
    description: null,
    secret,
    stream: 'pay',
  });
  await insertSubscriptions(db, [row]);
  return { id: row.id, secret };
}

/** A payment.received payload (valid per PayEventSchema) with a unique signature. */
export function samplePayEvent(memo = 'order'): PayEvent {
  const signature = base58.encode(randomBytes(64));
  return {
    schema: PAY_EVENTS_SCHEMA,
    id: payEventId(signature, 0, -1, 'payment.received'),
    type: 'payment.received',
    notice: PAY_EVENT_NOTICE,
    chain: {
      signature,
      ixIndex: 0,
      innerIndex: -1,
      slot: 10,
      blockTime: '2026-01-01T00:00:00Z',
      commitment: 'finalized',
      finalized: true,
    },
    payment: {
      kind: 'transfer',
      payer: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
      recipient: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
      recipientTokenAccount: null,
      asset: 'native',
      mint: null,
      amount: '5',
      fee: '0',
      net: '5',
      invoice: null,
      reference: null,
      references: [],
      memo,
      binding: { status: 'none', handles: [] },
    },
  };
}

/**
 * Queues `count` events for the webhook, due at `dueAt`. Returns the delivery ids in order. Rows go in by 100 per
 * statement (the bench queues thousands; one commit each made the seeding the longest part of its run).
 */
export async function queueEvents(
  db: Kysely<Database>,
  webhookId: string,
  count: number,
  dueAt = Date.now(),
  memo?: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const events = Array.from({ length: Math.min(100, count - start) }, () => samplePayEvent(memo));
    const deliveries = events.map((event, n) => {
      const i = start + n;
      const id = prefixedId('whdel_', dueAt + i);
      ids.push(id);
      return {
        id,
        webhook_id: webhookId,
        event_id: event.id,
        event_type: event.type,
        status: 'pending' as const,
        attempts: 0,
        last_status: null,
        last_error: null,
        response_ms: null,
        next_attempt_at: dueAt,
        lease_holder: null,
        lease_expires_at: null,
        test: 0,
        created_at: dueAt + i,
        delivered_at: null,
      };
    });
    await db
      .insertInto('pay_events')
      .values(
        events.map((event) => ({
          id: event.id,
          type: event.type,
          signature: event.chain.signature,
          slot: 10,
          ix_index: 0,
          inner_index: -1,
          wallet: 'w',
          binding_status: 'none',
          binding_checks: 0,
          payload: JSON.stringify(event),
          test: 0,
          created_at: dueAt,
        })),
      )
      .execute();
    await db.insertInto('webhook_deliveries').values(deliveries).execute();
  }
  return ids;
}

/**
 * A challenge request body as a client sends it: parsed by the contract's schema (answering its field codes, as the
 * procedure's input does), then issued by the service. Async, so a refused body rejects like a refused request.
 */
export async function issueChallengeFromBody(
  db: Kysely<Database>,
  deps: WebhookServiceDeps,
  caller: WebhookCaller,
  body: unknown,
): Promise<WebhookChallengeResponse> {
  return issueWebhookChallenge(db, deps, caller, parseWebhookChallengeRequest(body));
}
