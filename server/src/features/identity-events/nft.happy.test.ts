// A tokenized handle changes hands when its NFT moves: an SPL Token transfer of the handle's mint, outside the
// registry program, as the ingestion sees it (the transaction's token balances) → `handle.transferred` with
// `via: "nft.transfer"`, the previous holder's primary cleared, the kept owner moved; a transfer of any other token
// makes no event, and a replayed pass adds nothing. Both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { Kysely } from 'kysely';
import { IdentityEventSchema, type IdentityEvent } from '@sigil/contract/identity-events';
import { describeEachDialect } from '@sigil/test/support/db';
import { ataOf, createMint, exec, fundedWallet, fundTokens } from '@sigil/test/support/webhooks-world';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import {
  findHandlePda,
  findPrimaryPointerPda,
  getRegisterInstruction,
  getSetPrimaryInstruction,
  getTokenizeInstruction,
} from '../../platform/chain/registry';
import type { Database } from '../../platform/db/index';
import { runIdentityPass } from './indexer';

let chain: LocalChain;
let bob: KeyPairSigner;
let till: KeyPairSigner;
let handle: Address;
let moveSignature: string;

/** An SPL transfer of `amount` of `mint` from `from` to `to`'s associated account (created if needed). */
async function send(from: KeyPairSigner, to: Address, mint: Address, amount: bigint, decimals: number) {
  const destination = await ataOf(to, mint, TOKEN_PROGRAM_ADDRESS);
  return exec(chain, from, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner: to, mint }),
    getTransferCheckedInstruction({
      source: await ataOf(from.address, mint, TOKEN_PROGRAM_ADDRESS),
      mint,
      destination,
      authority: from,
      amount,
      decimals,
    }),
  ]);
}

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false });
  const { programId } = chain;
  bob = await fundedWallet(chain);
  till = await fundedWallet(chain);
  [handle] = await findHandlePda(programId, 'nftmove');
  await exec(chain, bob, [
    getRegisterInstruction({
      programId,
      payer: bob.address,
      owner: bob.address,
      handle,
      name: 'nftmove',
      handleType: 0,
    }),
  ]);
  const mint = await generateKeyPairSigner();
  await exec(
    chain,
    bob,
    [
      getTokenizeInstruction({
        programId,
        owner: bob.address,
        handle,
        mint: mint.address,
        ownerTokenAccount: await ataOf(bob.address, mint.address, TOKEN_PROGRAM_ADDRESS),
      }),
    ],
    [mint],
  );
  const [primary] = await findPrimaryPointerPda(programId, bob.address);
  await exec(chain, bob, [getSetPrimaryInstruction({ programId, wallet: bob.address, handle, primary })]);
  // Another token moves first: a one-unit transfer of a mint that is no handle's makes no event.
  const other = await createMint(chain, bob, TOKEN_PROGRAM_ADDRESS, 0);
  await fundTokens(chain, bob, other, bob.address, TOKEN_PROGRAM_ADDRESS, 5n);
  await send(bob, till.address, other, 1n, 0);
  moveSignature = await send(bob, till.address, mint.address, 1n, 0);
  await chain.finalizeAll();
}, 120_000);
afterAll(() => chain?.close());

async function log(db: Kysely<Database>): Promise<IdentityEvent[]> {
  const rows = await db.selectFrom('identity_events').select('payload').orderBy('sequence').execute();
  return rows.map((r) => IdentityEventSchema.parse(JSON.parse(r.payload)));
}

describeEachDialect('identity events of a tokenized handle', (ctx) => {
  it("moving the handle's NFT is a transfer of the handle: one event, the old holder's primary cleared", async () => {
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    await runIdentityPass(ctx.db, { chain: reader });
    const events = await log(ctx.db);
    expect(events.map((e) => e.type)).toEqual([
      'handle.registered',
      'handle.tokenized',
      'primary.set',
      'handle.transferred',
      'primary.cleared',
    ]);
    const [moved, cleared] = events.slice(3);
    expect(moved).toMatchObject({
      handle: { name: 'nftmove', account: handle },
      actors: { signer: bob.address, newOwner: till.address },
      change: { owner: { before: bob.address, after: till.address }, via: 'nft.transfer' },
      chain: { signature: moveSignature, ixIndex: 1, innerIndex: -1 },
    });
    expect(cleared).toMatchObject({
      chain: { signature: moveSignature },
      change: { wallet: bob.address, primary: { before: 'nftmove', after: null }, reason: 'handle_transferred' },
    });
    const kept = await ctx.db.selectFrom('identity_handles').select('owner').where('account', '=', handle).execute();
    expect(kept).toEqual([{ owner: till.address }]);

    // A second pass (the same blocks again) adds nothing.
    await runIdentityPass(ctx.db, { chain: reader });
    expect((await log(ctx.db)).length).toBe(events.length);
  });
});
