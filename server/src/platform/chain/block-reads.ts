// The chain reader's block reads (what the block-polling chain source runs on): getBlocks to find the slots that
// have a block, getBlock for one block's transactions in full. A skipped slot (-32007, or -32009 from a node that
// serves old slots from long-term storage) is an answer, not a fault: the block is null.
import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED,
} from '@solana/kit';
import { decodeTransaction, type RawTransaction } from './transaction-reads';
import type { ChainRpc } from './transport';
import { ChainError, DEFAULT_COMMITMENT, type ChainBlock, type ChainReader, type Commitment } from './types';

export type BlockReads = Pick<ChainReader, 'getBlocks' | 'getBlock'>;

interface RawBlock {
  blockTime: bigint | null;
  transactions?: readonly {
    meta: RawTransaction['meta'];
    transaction: RawTransaction['transaction'] & { signatures: readonly string[] };
  }[];
}

const SKIPPED = Symbol('skipped');

/** Blocks are read at `finalized` unless asked otherwise; `processed` is not served for blocks (read as `confirmed`). */
const served = (commitment: Commitment) => (commitment === 'processed' ? 'confirmed' : commitment);

export function createBlockReads(chain: ChainRpc): BlockReads {
  const finalized = DEFAULT_COMMITMENT.payments;
  return {
    getBlocks: (start, end, commitment = finalized) =>
      chain.read(
        'getBlocks',
        () => chain.rpc.getBlocks(start, end, { commitment: served(commitment) }).send(),
        (slots) => {
          if (!Array.isArray(slots)) throw new ChainError('malformed', 'getBlocks: not a list');
          return slots.map((slot) => BigInt(slot));
        },
      ),
    getBlock: (slot, commitment = finalized) =>
      chain.read(
        'getBlock',
        () => sendGetBlock(chain, slot, commitment),
        (raw) => (raw === SKIPPED ? null : decodeBlock(slot, raw)),
      ),
  };
}

async function sendGetBlock(chain: ChainRpc, slot: bigint, commitment: Commitment): Promise<RawBlock | typeof SKIPPED> {
  try {
    const block = await chain.rpc
      .getBlock(slot, {
        commitment: served(commitment) as 'finalized',
        encoding: 'json',
        transactionDetails: 'full',
        rewards: false,
        maxSupportedTransactionVersion: 0,
      })
      .send();
    if (block === null) return SKIPPED; // older nodes answer null for a slot without a block
    return block as unknown as RawBlock;
  } catch (err) {
    if (
      isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SLOT_SKIPPED) ||
      isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED)
    ) {
      return SKIPPED;
    }
    throw err;
  }
}

function decodeBlock(slot: bigint, raw: RawBlock): ChainBlock {
  if (!raw || !Array.isArray(raw.transactions)) throw new ChainError('malformed', `getBlock ${slot}: no transactions`);
  const blockTime = raw.blockTime === null || raw.blockTime === undefined ? null : Number(raw.blockTime);
  return {
    slot,
    blockTime,
    transactions: raw.transactions.map((entry) => {
      const signature = entry.transaction?.signatures?.[0];
      if (typeof signature !== 'string')
        throw new ChainError('malformed', `getBlock ${slot}: transaction without signature`);
      return decodeTransaction(signature, {
        slot,
        blockTime: raw.blockTime,
        meta: entry.meta,
        transaction: entry.transaction,
      });
    }),
  };
}
