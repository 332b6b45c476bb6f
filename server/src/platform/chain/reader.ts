// The one chain reader: every JSON-RPC call the service makes goes through here (docs/chain-reads.md).
// Transport failures and RPC errors become ChainError('unreachable'); undecodable data ChainError('malformed').
// Assembled from three parts: the transport (transport.ts), the registry account reads (account-reads.ts) and the
// transaction and cluster reads (transaction-reads.ts).
import { address as toAddress, type Address } from '@solana/kit';
import { createAccountReads } from './account-reads';
import { createBlockReads } from './block-reads';
import { createTransactionReads } from './transaction-reads';
import { createChainRpc, type ChainRpcOptions } from './transport';
import type { ChainReader } from './types';

export interface ChainReaderOptions extends ChainRpcOptions {
  programId: Address | string;
}

export function createChainReader(opts: ChainReaderOptions): ChainReader {
  const programId = toAddress(opts.programId);
  const chain = createChainRpc(opts);
  return {
    rpcUrl: opts.rpcUrl,
    programId,
    ...createAccountReads(chain, programId),
    ...createTransactionReads(chain),
    ...createBlockReads(chain),
  };
}
