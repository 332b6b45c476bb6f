// Market instruction → its effect on the chain: one row per instruction of the market (docs/registry-program.md
// § Market), grouped by family. A new instruction is a new row here; the type refuses a table that misses one.
import { joinFamilies } from '../../platform/chain/registry/instruction-table';
import type { MarketTable } from './accounts';
import { auctionRows } from './auctions';
import { delegateRows } from './delegates';
import { leaseRows } from './leases';
import { listingRows } from './listings';
import { namespaceRows } from './namespaces';
import { offerRows } from './offers';
import { treasuryRows } from './treasury';
import { voucherRows } from './vouchers';

export const MARKET_APPLIERS: MarketTable = joinFamilies(
  offerRows,
  listingRows,
  auctionRows,
  voucherRows,
  leaseRows,
  treasuryRows,
  namespaceRows,
  delegateRows,
);
