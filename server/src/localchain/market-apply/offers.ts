// Offers on an untokenized handle: the amount is held in the offer account until it is cancelled or accepted.
import { encodeHandle, encodeMarketAccount, MARKET_PDAS } from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import {
  closeAccount,
  createThroughSystem,
  refuseWhileBidStands,
  requireMarket,
  write,
  type MarketRows,
} from './accounts';

export const offerRows = {
  make_offer: async (emu, run, ix) => {
    const { programId } = emu;
    const { buyer, handle, offer } = ix.accounts;
    const h = run.loadHandle(handle);
    if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized: buy its listing instead`);
    if (ix.args.amount <= 0n) throw fail('InvalidAmount', 'an offer is a positive amount');
    const bump = await expectPda(offer, MARKET_PDAS.offer(programId, handle, buyer), 'offer');
    const data = encodeMarketAccount('Offer', { handle, buyer, amount: ix.args.amount, createdAt: run.now, bump });
    createThroughSystem(run, emu, { payer: buyer, account: offer, data, extra: ix.args.amount });
  },
  cancel_offer: async (emu, run, ix) => {
    const { buyer, offer } = ix.accounts;
    run.requireSigner(buyer, 'buyer');
    const o = requireMarket(run, emu, 'Offer', offer);
    if (o.buyer !== buyer) throw fail('NotAuthority', 'only the buyer cancels an offer');
    closeAccount(run, offer, buyer);
  },
  accept_offer: async (emu, run, ix) => {
    const { owner, handle, offer, buyer } = ix.accounts;
    const h = run.loadHandle(handle);
    if (h.tokenized) throw fail('HandleIsTokenized', `@${h.name} is tokenized`);
    await run.requireAuthority(h, owner);
    const o = requireMarket(run, emu, 'Offer', offer);
    if (o.handle !== handle || o.buyer !== buyer) throw fail('InvalidPda', 'offer is not for this handle and buyer');
    if (o.amount !== ix.args.expectedAmount)
      throw fail('PriceChanged', `the offer is ${o.amount}, not ${ix.args.expectedAmount}`);
    await refuseWhileBidStands(emu, run, handle);
    write(run, handle, encodeHandle({ ...h, owner: buyer }));
    closeAccount(run, offer, owner); // the amount and the offer's rent go to the seller
  },
} satisfies MarketRows;
