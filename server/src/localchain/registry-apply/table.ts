// Registry instruction → its effect on the chain: one row per instruction of the registry's own (the market's rows
// are market-apply/table.ts), grouped by family. A new instruction is a new row here; the type refuses a table that
// misses one.
import { joinFamilies } from '../../platform/chain/registry/instruction-table';
import { attestationRows } from './attestations';
import { handleRows } from './handles';
import { invoiceRows } from './invoices';
import { namespaceRows } from './namespaces';
import { recordRows } from './records';
import type { RegistryTable } from './rows';

export const REGISTRY_APPLIERS: RegistryTable = joinFamilies(
  handleRows,
  recordRows,
  attestationRows,
  namespaceRows,
  invoiceRows,
);
