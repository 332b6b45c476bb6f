// A Geyser block update (as the stock Yellowstone client decodes it) → SourceBlock. Each transaction is put in the
// JSON-RPC form (base58 keys and instruction data, the JSON TransactionError) and built by the one decoder every
// source shares (transaction-reads.ts), so a transaction reads the same whichever source delivered it.
import { base58 } from '@scure/base';
import {
  txErrDecode,
  type SubscribeUpdateBlock,
  type SubscribeUpdateTransactionInfo,
} from '@triton-one/yellowstone-grpc';
import { decodeTransaction, type RawTransaction } from '../transaction-reads';
import { ChainError, type ChainTransaction } from '../types';
import type { SourceBlock } from './types';

type Info = SubscribeUpdateTransactionInfo;
type Meta = NonNullable<Info['meta']>;
type Instruction = { programIdIndex: number; accounts: Uint8Array; data: Uint8Array };
type TokenBalance = Meta['preTokenBalances'][number];

const text = (bytes: Uint8Array) => base58.encode(bytes);

const instruction = (ix: Instruction) => ({
  programIdIndex: ix.programIdIndex,
  accounts: Array.from(ix.accounts),
  data: text(ix.data),
});

function tokenBalance(balance: TokenBalance, signature: string) {
  const amount = balance.uiTokenAmount?.amount;
  if (amount === undefined)
    throw new ChainError('malformed', `Geyser transaction ${signature}: token balance without amount`);
  return {
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    ...(balance.owner ? { owner: balance.owner } : {}),
    ...(balance.programId ? { programId: balance.programId } : {}),
    uiTokenAmount: { amount },
  };
}

/** JSON numbers as bigints, as kit's JSON-RPC client answers every integer (the error then reads the same). */
function integersAsBigInt(value: unknown): unknown {
  if (typeof value === 'number') return BigInt(value);
  if (Array.isArray(value)) return value.map(integersAsBigInt);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, integersAsBigInt(v)]));
  }
  return value;
}

/** The JSON TransactionError of a Geyser meta (bincode bytes there), decoded by the stock client's own decoder. */
function transactionError(meta: Meta, signature: string): unknown {
  if (!meta.err) return null;
  try {
    return integersAsBigInt(txErrDecode.decode(meta.err.err));
  } catch (err) {
    throw new ChainError('malformed', `Geyser transaction ${signature}: undecodable error (${(err as Error).message})`);
  }
}

function chainTransaction(info: Info, slot: bigint, blockTime: number | null): ChainTransaction {
  const signature = text(info.signature);
  const message = info.transaction?.message;
  const meta = info.meta;
  if (!message?.header || !meta) {
    throw new ChainError('malformed', `Geyser transaction ${signature}: no message or no meta`);
  }
  const raw: RawTransaction = {
    slot,
    blockTime: blockTime === null ? null : BigInt(blockTime),
    meta: {
      err: transactionError(meta, signature),
      preBalances: meta.preBalances.map(BigInt),
      postBalances: meta.postBalances.map(BigInt),
      preTokenBalances: meta.preTokenBalances.map((b) => tokenBalance(b, signature)),
      postTokenBalances: meta.postTokenBalances.map((b) => tokenBalance(b, signature)),
      innerInstructions: meta.innerInstructions.map((group) => ({
        index: group.index,
        instructions: group.instructions.map(instruction),
      })),
      loadedAddresses: {
        writable: meta.loadedWritableAddresses.map(text),
        readonly: meta.loadedReadonlyAddresses.map(text),
      },
    },
    transaction: {
      message: {
        accountKeys: message.accountKeys.map(text),
        header: { numRequiredSignatures: message.header.numRequiredSignatures },
        instructions: message.instructions.map(instruction),
      },
    },
  };
  return decodeTransaction(signature, raw);
}

/** One finalized block as every consumer sees it; transactions in block order (their `index`). */
export function sourceBlock(block: SubscribeUpdateBlock): SourceBlock {
  const slot = BigInt(block.slot);
  const blockTime = block.blockTime ? Number(block.blockTime.timestamp) : null;
  const ordered = [...block.transactions].sort((a, b) => Number(BigInt(a.index) - BigInt(b.index)));
  return { slot, blockTime, transactions: ordered.map((info) => chainTransaction(info, slot, blockTime)) };
}
