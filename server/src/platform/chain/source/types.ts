import type { ChainTransaction } from '../types';

/** One finalized block as every consumer sees it: its transactions in block order (failed ones included, err set). */
export interface SourceBlock {
  slot: bigint;
  blockTime: number | null;
  transactions: ChainTransaction[];
}

/**
 * Finalized blocks in strictly increasing slot order, starting after `afterSlot` (skipped slots simply absent).
 * The consumer persists the slot it has processed; on restart it asks again after that slot (at-least-once from
 * the source, exactly-once by the consumers' idempotent per-transaction writes). Ends when `signal` aborts: at once
 * while waiting, or after handing over the blocks it had already read when the signal came.
 */
export interface ChainSource {
  readonly kind: 'blocks' | 'yellowstone' | 'addresses';
  blocks(afterSlot: bigint, signal: AbortSignal): AsyncIterable<SourceBlock>;
  /** Ends what the source keeps open between calls (a long-lived stream), when it keeps anything. */
  close?(): void;
}
