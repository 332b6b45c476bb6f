// One ingestion pass (docs/deploy.md "Chain source"): finalized blocks from one chain source, after one durable
// slot cursor, handed to every consumer in slot order. The cursor (one kv row: each consumer's slot, all equal once
// they run together) moves after EVERY consumer has persisted the block, so a crash in the middle of a block
// re-reads that block: the consumers' per-transaction writes are idempotent (or guarded), nothing is lost or
// duplicated. A consumer that has never run, or that must look back (a new subscription watching from an earlier
// slot), says so in `prepare`; the pass then starts at the lowest such slot and feeds older blocks to it alone. A
// scheduled pass may stay at the tip for a while (`followMs`), handing each new finalized block over as soon as the
// source has it: latency is then the source's (one getBlocks poll, or a Geyser push), not the pause between passes.
import type { Kysely } from 'kysely';
import { readKv, writeKv, type Database } from '../../db/index';
import type { ChainReader } from '../types';
import { createBlockSource } from './blocks';
import type { ChainSource, SourceBlock } from './types';

const INGEST_CURSOR_KEY = 'ingest.cursor';

export interface BlockConsumer {
  readonly name: string;
  /**
   * Before the pass: the slot after which this consumer needs blocks, given its stored slot (null: it never ran)
   * and the finalized tip. Usually its stored slot; lower to look back.
   */
  prepare(stored: bigint | null, tip: bigint): Promise<bigint>;
  /** Persists what this block means to the consumer (idempotently per transaction). */
  consume(block: SourceBlock): Promise<void>;
  /** After a pass that ended without error. */
  finish?(): Promise<void>;
}

interface IngestPassOptions {
  chain: Pick<ChainReader, 'getBlocks' | 'getBlock' | 'getSlot'>;
  /** Default: block polling over `chain`, its RPC faults failing the pass (the worker backs off and retries). */
  source?: ChainSource;
  consumers: readonly BlockConsumer[];
  /** The finalized slot read before the pass: the pass ends once a block at or past it is consumed. */
  tip: bigint;
  /** Most blocks one pass consumes (bounded catch-up; the next pass resumes). Default 500. */
  maxBlocks?: number;
  /** The pass ends when no block came for this long (the tip's slot was skipped). Default 2000 ms. */
  idleMs?: number;
  /**
   * Once at the tip, keep consuming the blocks that become finalized until this long after the pass started, so a
   * new block is handed over as soon as the source sees it instead of at the next pass. Default 0 (end at the tip).
   */
  followMs?: number;
  /** Ends the pass early (after the blocks already read from the source): the worker is stopping. */
  signal?: AbortSignal;
  now?: () => number;
}

interface IngestPassResult {
  blocks: number;
  /** The slot every consumer has now persisted (null: nothing consumed yet, ever). */
  slot: bigint | null;
}

async function readPositions(db: Kysely<Database>): Promise<Record<string, string>> {
  const raw = await readKv(db, INGEST_CURSOR_KEY);
  return raw ? (JSON.parse(raw) as Record<string, string>) : {};
}

/** Where each consumer stands this pass (the slot after which it is fed). */
async function prepareAll(consumers: readonly BlockConsumer[], stored: Record<string, string>, tip: bigint) {
  const from = new Map<string, bigint>();
  for (const consumer of consumers) {
    const own = stored[consumer.name];
    from.set(consumer.name, await consumer.prepare(own === undefined ? null : BigInt(own), tip));
  }
  return from;
}

/** When the pass gives up waiting for the next block: idle too long before the tip, or the follow time is over. */
function waitLimit(options: IngestPassOptions, atTip: boolean, followUntil: number): number {
  const idle = options.idleMs ?? 2000;
  return atTip ? Math.max(0, followUntil - performance.now()) : idle;
}

export async function runIngestPass(db: Kysely<Database>, options: IngestPassOptions): Promise<IngestPassResult> {
  const { consumers, tip } = options;
  const followUntil = performance.now() + (options.followMs ?? 0);
  const stored = await readPositions(db);
  const from = await prepareAll(consumers, stored, tip);
  const start = [...from.values()].reduce((a, b) => (b < a ? b : a), tip);
  const result: IngestPassResult = { blocks: 0, slot: start };
  if ((start >= tip && !options.followMs) || options.signal?.aborted) {
    for (const consumer of consumers) await consumer.finish?.();
    return result;
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  let fault: unknown;
  const source =
    options.source ??
    createBlockSource(options.chain, {
      onFault: (err) => {
        fault ??= err;
        controller.abort();
      },
    });
  let atTip = start >= tip;
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(stop, waitLimit(options, atTip, followUntil));
  };
  arm();
  try {
    for await (const block of source.blocks(start, controller.signal)) {
      clearTimeout(idle);
      for (const consumer of consumers) {
        if (block.slot > from.get(consumer.name)!) await consumer.consume(block);
      }
      for (const consumer of consumers) if (from.get(consumer.name)! < block.slot) from.set(consumer.name, block.slot);
      const positions = { ...stored, ...Object.fromEntries([...from].map(([name, slot]) => [name, String(slot)])) };
      await writeKv(db, INGEST_CURSOR_KEY, JSON.stringify(positions), options.now?.() ?? Date.now());
      result.blocks++;
      result.slot = block.slot;
      atTip ||= block.slot >= tip;
      // Once the signal aborts, the source ends by itself after the blocks it had already read (consumed here).
      if (result.blocks >= (options.maxBlocks ?? 500)) break;
      if (atTip && performance.now() >= followUntil) break;
      arm();
    }
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', stop);
    controller.abort();
  }
  if (fault !== undefined) throw fault;
  for (const consumer of consumers) await consumer.finish?.();
  return result;
}
