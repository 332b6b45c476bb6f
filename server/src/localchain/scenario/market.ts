// Scenario steps: one handle in each market state (docs/registry-program.md § Market): an open offer, a listing,
// an auction with a bid, a pending gift, a lease in progress.
import {
  findHandlePda,
  getMarketInstruction,
  getTokenizeInstruction,
  MARKET_PDAS,
} from '../../platform/chain/registry';
import { ata, demoWallet, describe, exec, LAMPORTS, now, register, type Seed } from './seed';

const mk = <N extends Parameters<typeof getMarketInstruction>[1]>(
  s: Seed,
  name: N,
  args: Parameters<typeof getMarketInstruction<N>>[2],
  accounts: Parameters<typeof getMarketInstruction<N>>[3],
) => getMarketInstruction(s.programId, name, args, accounts);

/** bazaar (bob): an open offer of 0.5 native units by payer2. */
export async function marketOffer(s: Seed): Promise<void> {
  const { programId, w } = s;
  const bazaar = await register(s, 'bazaar', 'bob');
  const [offer] = await MARKET_PDAS.offer(programId, bazaar, w.payer2.address);
  await exec(s, w.payer2, [
    mk(s, 'make_offer', { amount: LAMPORTS / 2n }, { buyer: w.payer2.address, handle: bazaar, offer }),
  ]);
  s.seeded.market.offer = {
    description: 'open offer of 0.5 native units by payer2 on @bazaar (owner bob)',
    handle: 'bazaar',
    account: offer,
  };
  await describe(s, 'bazaar', 'bob', 'bob', 'plain handle with an open offer (market)');
}

/** exhibit (heidi): tokenized and listed at 2 native units; its NFT is frozen while listed. */
export async function marketListing(s: Seed): Promise<void> {
  const { programId, w } = s;
  const exhibit = await register(s, 'exhibit', 'heidi');
  const exhibitMint = await demoWallet('mint:exhibit-nft');
  const exhibitAta = await ata(w.heidi.address, exhibitMint.address);
  await exec(
    s,
    w.heidi,
    [
      getTokenizeInstruction({
        programId,
        owner: w.heidi.address,
        handle: exhibit,
        mint: exhibitMint.address,
        ownerTokenAccount: exhibitAta,
      }),
    ],
    [exhibitMint],
  );
  const [listing] = await MARKET_PDAS.listing(programId, exhibit);
  await exec(s, w.heidi, [
    mk(
      s,
      'list_handle',
      { price: 2n * LAMPORTS },
      { seller: w.heidi.address, handle: exhibit, listing, sellerTokenAccount: exhibitAta },
    ),
  ]);
  s.seeded.market.listing = {
    description: 'tokenized @exhibit listed by heidi at 2 native units (NFT frozen)',
    handle: 'exhibit',
    account: listing,
  };
  await describe(s, 'exhibit', 'heidi', 'heidi', 'tokenized handle listed for sale (market)');
}

/** gavel (grace): a 7-day auction, reserve 1 native unit, with a bid of 1 native unit by payer1. */
export async function marketAuction(s: Seed): Promise<void> {
  const { programId, w } = s;
  const gavel = await register(s, 'gavel', 'grace');
  const [auction] = await MARKET_PDAS.auction(programId, gavel);
  await exec(s, w.grace, [
    mk(
      s,
      'create_auction',
      { reserve: LAMPORTS, duration: 7 * 86_400 },
      { seller: w.grace.address, handle: gavel, auction },
    ),
  ]);
  await exec(s, w.payer1, [
    mk(
      s,
      'place_bid',
      { amount: LAMPORTS },
      { bidder: w.payer1.address, handle: gavel, auction, previousBidder: w.payer1.address },
    ),
  ]);
  s.seeded.market.auction = {
    description: 'running 7-day auction of @gavel by grace, high bid 1 native unit by payer1',
    handle: 'gavel',
    account: auction,
  };
  await describe(s, 'gavel', 'grace', 'grace', 'plain handle at auction with a bid (market)');
}

/** ribbon (dave → erin): a pending gift; the voucher holds the handle for 30 days. */
export async function marketGift(s: Seed): Promise<void> {
  const { programId, w } = s;
  const ribbon = await register(s, 'ribbon', 'dave');
  const [voucher] = await MARKET_PDAS.voucher(programId, w.dave.address, 1n);
  await exec(s, w.dave, [
    mk(
      s,
      'create_voucher',
      { id: 1n, expiresAt: now(s) + 30 * 86_400 },
      { creator: w.dave.address, handle: ribbon, voucher, recipient: w.erin.address },
    ),
  ]);
  s.seeded.market.gift = {
    description: 'pending gift of @ribbon from dave to erin (claimable for 30 days)',
    handle: 'ribbon',
    account: voucher,
  };
  await describe(
    s,
    'ribbon',
    'voucher',
    'voucher',
    'handle held by a pending gift (market): owned by the voucher account',
  );
}

/** tenant (payer2): lease-to-own, first instalment of 0.025 native units paid. */
export async function marketLease(s: Seed): Promise<void> {
  const { programId, w } = s;
  const [tenant] = await findHandlePda(programId, 'tenant');
  const [lease] = await MARKET_PDAS.lease(programId, tenant);
  const [treasuryVault] = await MARKET_PDAS.treasury(programId);
  await exec(s, w.payer2, [
    mk(
      s,
      'start_lease',
      { name: 'tenant', firstPayment: 25_000_000n },
      { lessee: w.payer2.address, handle: tenant, lease, treasury: treasuryVault },
    ),
  ]);
  s.seeded.market.lease = {
    description: 'lease-to-own of @tenant by payer2, 0.025 of 0.1 native units paid',
    handle: 'tenant',
    account: lease,
  };
  await describe(s, 'tenant', 'payer2', 'payer2', 'handle leased to own, in progress (market)');
}
