// The block methods of the local chain's JSON-RPC: getBlocks (the slots that have a block in a range) and getBlock
// (one block with its transactions), with the answers and error codes of a real node. Every slot has a block,
// unless the `skipEmptySlots` fault reports the slots without a transaction as skipped, as a leader that missed
// its slot leaves them: absent from getBlocks, and getBlock answers -32007.
import { z } from 'zod';
import type { ChainCore } from './core';
import { COMMITMENTS, type Commitment, type TransactionRecord } from './ledger';
import { RpcError, type MethodHandler } from './rpc-error';

/** The widest range one getBlocks call may ask for (a real node's limit). */
const MAX_GET_BLOCKS_RANGE = 500_000n;

const VERSION_0_UNSUPPORTED =
  'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0';

const commitment = z.enum(COMMITMENTS as [Commitment, ...Commitment[]]);
const slotParam = z.union([z.number().int().nonnegative(), z.bigint()]).transform((n) => BigInt(n));
const commitmentOnly = z.object({ commitment: commitment.optional() }).passthrough().optional();
const blockConfig = z
  .object({
    commitment: commitment.optional(),
    encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
    transactionDetails: z.enum(['full', 'signatures', 'none']).optional(),
    rewards: z.boolean().optional(),
    maxSupportedTransactionVersion: z.number().int().min(0).max(0).optional(),
  })
  .passthrough()
  .optional();

/** How a transaction goes out in a block: its wire form in the asked encoding, and its meta. */
interface TransactionEncoders {
  transaction(record: TransactionRecord, encoding: 'json' | 'jsonParsed' | 'base64' | 'base58'): unknown;
  meta(record: TransactionRecord): unknown;
}

type Args = <T extends z.ZodTypeAny[]>(params: unknown, ...schemas: T) => { [K in keyof T]: z.infer<T[K]> };

export function createBlockMethods(core: ChainCore, args: Args, encode: TransactionEncoders) {
  const { ledger, faults } = core;
  /** The newest complete block at a commitment of confirmed or finalized (the open slot is never served). */
  const completeTipAt = (c: Commitment) => {
    if (c === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
    return ledger.completeSlotAt(c);
  };
  const skipped = (slot: bigint) => faults.skipEmptySlots && ledger.blockTransactions(slot).length === 0;

  const getBlocks: MethodHandler = (params) => {
    const [start, endOrConfig, maybeConfig] = Array.isArray(params) ? params : [];
    const endGiven = typeof endOrConfig === 'number' || typeof endOrConfig === 'bigint';
    const [from, end, config] = args(
      [start, endGiven ? endOrConfig : undefined, endGiven ? maybeConfig : endOrConfig],
      slotParam,
      slotParam.optional(),
      commitmentOnly,
    );
    const tip = completeTipAt(config?.commitment ?? 'finalized');
    const last = end === undefined ? tip : end < tip ? end : tip;
    if (last - from > MAX_GET_BLOCKS_RANGE) {
      throw new RpcError(-32602, `Slot range too large; max ${MAX_GET_BLOCKS_RANGE}`);
    }
    const out: bigint[] = [];
    for (let slot = from; slot <= last; slot++) if (!skipped(slot)) out.push(slot);
    return out;
  };

  const getBlock: MethodHandler = (params) => {
    const [slot, config] = args(params, slotParam, blockConfig);
    const tip = completeTipAt(config?.commitment ?? 'finalized');
    if (slot > tip) throw new RpcError(-32004, `Block not available for slot ${slot}`);
    if (skipped(slot)) {
      throw new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
    }
    const records = ledger.blockTransactions(slot);
    const versioned = config?.maxSupportedTransactionVersion !== undefined;
    const details = config?.transactionDetails ?? 'full';
    const block: Record<string, unknown> = {
      blockHeight: slot,
      blockTime: BigInt(ledger.blockTime(slot)),
      blockhash: ledger.blockhashAt(slot),
      parentSlot: slot === 0n ? 0n : slot - 1n,
      previousBlockhash: slot === 0n ? '11111111111111111111111111111111' : ledger.blockhashAt(slot - 1n),
    };
    if (details === 'full') {
      // As a node: only full details encode the transactions, so only they refuse a version the client cannot read.
      if (!versioned && records.some((r) => r.version === 0)) throw new RpcError(-32015, VERSION_0_UNSUPPORTED);
      const encoding = config?.encoding ?? 'json';
      block.transactions = records.map((record) => ({
        meta: encode.meta(record),
        transaction: encode.transaction(record, encoding),
        ...(versioned ? { version: record.version } : {}),
      }));
    } else if (details === 'signatures') {
      block.signatures = records.map((record) => record.signature);
    }
    // Rewards are on by default on a real node; the local chain has no stake, so the list is always empty.
    if (config?.rewards ?? true) block.rewards = [];
    return block;
  };

  return { getBlocks, getBlock };
}
