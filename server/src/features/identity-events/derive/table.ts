// Registry instruction → its identity events: one row per instruction of the registry and its market, grouped by
// family (docs/identity-events.md "Derivation"). A new instruction is a new row here; the type refuses a table
// that misses one.
import { joinFamilies } from '../../../platform/chain/registry/instruction-table';
import { attestationRows } from './attestations';
import { auctionRows } from './auctions';
import type { DeriveTable } from './context';
import { giftRows } from './gifts';
import { handleRows } from './handles';
import { leaseRows } from './leases';
import { listingRows } from './listings';
import { namespaceRows } from './namespaces';
import { offerRows } from './offers';
import { recordRows } from './records';
import { treasuryRows } from './treasury';

const noIdentityChange = async () => {};

/** Invoices are the pay stream's; the market's configuration and reservations change no identity by themselves. */
const silentRows = {
  create_invoice: noIdentityChange,
  pay_invoice: noIdentityChange,
  cancel_invoice: noIdentityChange,
  close_invoice: noIdentityChange,
  init_config: noIdentityChange,
  set_reserved_claim_approval: noIdentityChange,
};

export const DERIVERS: DeriveTable = joinFamilies(
  handleRows,
  recordRows,
  attestationRows,
  namespaceRows,
  offerRows,
  listingRows,
  auctionRows,
  giftRows,
  leaseRows,
  treasuryRows,
  silentRows,
);
