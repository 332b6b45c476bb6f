// The demo scenario, step by step, in the order it is seeded: each step sends its transactions in slots of their
// own, so the order fixes every slot, block time and account the scenario publishes. A new case is a new row.
import { agents } from './agents';
import { createUsdx, fundWallets } from './funds';
import { alice, bob, drift, lapsed, phoenix, satoshi, scout, vault } from './handles';
import { invoices } from './invoices';
import { marketAuction, marketGift, marketLease, marketListing, marketOffer } from './market';
import { createNamespaces, registerDomains } from './names';
import type { Seed } from './seed';

export const SCENARIO_STEPS: readonly ((s: Seed) => Promise<void>)[] = [
  fundWallets,
  createUsdx,
  createNamespaces,
  alice,
  bob,
  vault,
  phoenix,
  drift,
  lapsed,
  scout,
  satoshi,
  registerDomains,
  agents,
  invoices,
  marketOffer,
  marketListing,
  marketAuction,
  marketGift,
  marketLease,
];
