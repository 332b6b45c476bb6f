// Market events on the local chain, both dialects: an offer made, cancelled, made again and accepted (the change of
// owner also appears as handle.transferred, and the seller's primary is cleared); and the demo scenario's market
// (an open offer, a listing, an auction, a gift voucher, a lease) indexed from genesis: every payload valid, the
// sequence gapless.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { IdentityEventSchema, type IdentityEvent } from '@sigil/contract/identity-events';
import { describeEachDialect, freshDatabase } from '@sigil/test/support/db';
import { exec, fundedWallet } from '@sigil/test/support/webhooks-world';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import {
  findHandlePda,
  findPrimaryPointerPda,
  getMarketInstruction,
  getRegisterInstruction,
  getSetPrimaryInstruction,
  MARKET_PDAS,
} from '../../platform/chain/registry';
import type { Database } from '../../platform/db/index';
import { runIdentityPass } from './indexer';

let chain: LocalChain;
let scenario: LocalChain;
const wallets: Record<string, string> = {};

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  const programId = chain.programId;
  const seller = await fundedWallet(chain);
  const buyer = await fundedWallet(chain);
  wallets.seller = seller.address;
  wallets.buyer = buyer.address;
  const [handle] = await findHandlePda(programId, 'mkt');
  await exec(chain, seller, [
    getRegisterInstruction({
      programId,
      payer: seller.address,
      owner: seller.address,
      handle,
      name: 'mkt',
      handleType: 0,
    }),
  ]);
  const [primary] = await findPrimaryPointerPda(programId, seller.address);
  await exec(chain, seller, [getSetPrimaryInstruction({ programId, wallet: seller.address, handle, primary })]);
  const [offer] = await MARKET_PDAS.offer(programId, handle, buyer.address);
  const make = (amount: bigint) =>
    exec(chain, buyer, [
      getMarketInstruction(programId, 'make_offer', { amount }, { buyer: buyer.address, handle, offer }),
    ]);
  await make(1_000n);
  await exec(chain, buyer, [getMarketInstruction(programId, 'cancel_offer', {}, { buyer: buyer.address, offer })]);
  await make(2_000n);
  await exec(chain, seller, [
    getMarketInstruction(
      programId,
      'accept_offer',
      { expectedAmount: 2_000n },
      { owner: seller.address, handle, offer, buyer: buyer.address },
    ),
  ]);
  await chain.finalizeAll();
  scenario = await startLocalChain({ scenario: true });
  await scenario.finalizeAll();
}, 180_000);
afterAll(async () => {
  await chain?.close();
  await scenario?.close();
});

async function log(db: Kysely<Database>): Promise<IdentityEvent[]> {
  const rows = await db.selectFrom('identity_events').select('payload').orderBy('sequence').execute();
  return rows.map((r) => IdentityEventSchema.parse(JSON.parse(r.payload)));
}

describeEachDialect('identity events of the market', (ctx) => {
  it('offer made, cancelled, made again, accepted: the owner changes, the seller primary is cleared', async () => {
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    await runIdentityPass(ctx.db, { chain: reader });
    const events = await log(ctx.db);
    expect(events.map((e) => e.type)).toEqual([
      'handle.registered',
      'primary.set',
      'offer.made',
      'offer.cancelled',
      'offer.made',
      'offer.accepted',
      'handle.transferred',
      'primary.cleared',
    ]);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const [made, cancelled, , accepted, transferred, cleared] = events.slice(2);
    expect(made).toMatchObject({
      handle: { name: 'mkt' },
      actors: { buyer: wallets.buyer },
      change: { amount: '1000' },
    });
    expect(cancelled).toMatchObject({ handle: { name: 'mkt' }, change: { amount: '1000' } });
    expect(accepted).toMatchObject({
      change: { amount: '2000', owner: { before: wallets.seller, after: wallets.buyer } },
    });
    expect(transferred).toMatchObject({
      handle: { name: 'mkt' },
      change: { owner: { before: wallets.seller, after: wallets.buyer }, via: 'offer.accepted' },
    });
    expect(cleared).toMatchObject({
      change: { wallet: wallets.seller, primary: { before: 'mkt', after: null }, reason: 'handle_transferred' },
    });
  });

  it("the demo scenario's market, indexed from genesis: valid payloads, gapless sequence", async () => {
    const d = await freshDatabase(ctx.dialect);
    try {
      const reader = createChainReader({ rpcUrl: scenario.url, programId: scenario.programId, timeoutMs: 5000 });
      await runIdentityPass(d.db, { chain: reader });
      const events = await log(d.db);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      const types = new Set(events.map((e) => e.type));
      for (const type of ['offer.made', 'listing.created', 'auction.created', 'gift.created', 'lease.started'])
        expect(types.has(type as IdentityEvent['type']), type).toBe(true);
      const lease = events.find((e) => e.type === 'handle.registered' && e.change.via === 'lease.started');
      expect(lease).toMatchObject({ change: { handleType: null } });
    } finally {
      await d.drop();
    }
  });
});
