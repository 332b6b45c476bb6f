// Creator-priced namespaces: the namespace authority sets a price, and register_under_namespace_v2 pays it to
// the creator's payout account.
import {
  decodeNamespace,
  encodeMarketAccount,
  MARKET_PDAS,
  NAMESPACE_PRICE_CEILING_LAMPORTS,
  NAMESPACE_PRICE_FLOOR_LAMPORTS,
} from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import { readMarket, registerDomain, write, type MarketRows } from './accounts';

const SYSVAR_PREFIX = 'Sysvar';

export const namespaceRows = {
  set_namespace_pricing: async (emu, run, ix) => {
    const { programId } = emu;
    const { authority, namespace, pricing, creatorPayout } = ix.accounts;
    run.requireSigner(authority, 'authority');
    const ns = run.load(namespace, decodeNamespace, 'namespace');
    if (ns.authority !== authority) throw fail('NotAuthority', `only the authority of .${ns.tld} prices it`);
    const { price } = ix.args;
    if (price < NAMESPACE_PRICE_FLOOR_LAMPORTS)
      throw fail('NamespaceTierBelowFloor', `price is at least ${NAMESPACE_PRICE_FLOOR_LAMPORTS} lamports`);
    if (price > NAMESPACE_PRICE_CEILING_LAMPORTS)
      throw fail('NamespaceTierAboveMax', `price is at most ${NAMESPACE_PRICE_CEILING_LAMPORTS} lamports`);
    if (creatorPayout.startsWith(SYSVAR_PREFIX) || run.read(creatorPayout)?.executable)
      throw fail('UnreceivableCreatorPayout', `${creatorPayout} cannot receive payouts`);
    const bump = await expectPda(pricing, MARKET_PDAS.namespacePricing(programId, namespace), 'pricing');
    write(
      run,
      pricing,
      encodeMarketAccount('NamespacePricing', { namespace, creatorPayout, price, updatedAt: run.now, bump }),
    );
  },
  register_under_namespace_v2: async (emu, run, ix) => {
    const { programId } = emu;
    const { payer, owner, namespace, domain, pricing, creatorPayout } = ix.accounts;
    const { label, maxPriceLamports } = ix.args;
    run.requireSigner(payer, 'payer');
    run.requireSigner(owner, 'owner');
    const ns = run.load(namespace, decodeNamespace, 'namespace');
    if (!ns.active) throw fail('NamespaceInactive', `.${ns.tld} is not active`);
    const [expected] = await MARKET_PDAS.namespacePricing(programId, namespace);
    let p: ReturnType<typeof readMarket<'NamespacePricing'>> = null;
    try {
      p = pricing === expected ? readMarket(run, emu, 'NamespacePricing', pricing) : null;
    } catch {
      p = null; // undecodable: the same mismatch as a wrong account
    }
    if (!p || p.namespace !== namespace || p.creatorPayout !== creatorPayout)
      throw fail('NamespacePricingMismatch', `pricing must be ${expected}, with its creator payout`);
    if (p.price > maxPriceLamports)
      throw fail('PriceExceedsMax', `the price is ${p.price} lamports, above ${maxPriceLamports}`);
    await registerDomain(emu, run, { payer, owner, namespace, domain, label, tld: ns.tld });
    run.moveLamports(payer, creatorPayout, p.price);
  },
} satisfies MarketRows;
