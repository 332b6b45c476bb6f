// The block-polling chain source (the default; docs/deploy.md "Chain source"): getBlocks finds the finalized slots
// after the position that have a block, getBlock reads each one in full. Works against any JSON-RPC node. Bounded:
// one window of slots per getBlocks call and a few getBlock calls in flight, so catching up after downtime is a
// sequence of small steps, each resumable from the consumer's cursor. RPC faults back off exponentially.
import type { ChainReader } from '../types';
import type { ChainSource, SourceBlock } from './types';

interface BlockSourceOptions {
  /** Slots one getBlocks call covers. Default 1000. */
  windowSlots?: number;
  /** getBlock calls in flight at once (blocks are still yielded in slot order). Default 4. */
  concurrency?: number;
  /** Polls at the tip are this far apart (from the start of one to the next). Default 400 ms (one slot). */
  pollMs?: number;
  /** Backoff bounds after an RPC fault. */
  backoffMinMs?: number;
  backoffMaxMs?: number;
  /** Each fault, before the backoff (logging). */
  onFault?: (err: unknown, retryInMs: number) => void;
}

/** After this many empty getBlocks answers in a row, the tip is read once: a whole window may have been skipped. */
const EMPTY_POLLS_BEFORE_TIP_CHECK = 10;
/**
 * An answer with fewer new slots than this means the position is at the finalized tip (a slot is finalized every
 * ~400 ms): the next poll waits until one poll interval after this one started, instead of asking again at once for
 * a slot that cannot be there yet. A longer answer means catching up: the next poll follows immediately.
 */
const AT_TIP_SLOTS = 4;

/** Resolves after `ms`, or at once when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export function createBlockSource(
  chain: Pick<ChainReader, 'getBlocks' | 'getBlock' | 'getSlot'>,
  options: BlockSourceOptions = {},
): ChainSource {
  const window = BigInt(options.windowSlots ?? 1000);
  const concurrency = options.concurrency ?? 4;
  const pollMs = options.pollMs ?? 400;
  const backoff = (failures: number) =>
    Math.min(options.backoffMaxMs ?? 30_000, (options.backoffMinMs ?? 500) * 2 ** Math.min(failures - 1, 10));

  /** The next window's slots with a block; when none, whether the position may jump past the window. */
  async function findSlots(next: bigint, emptyPolls: number): Promise<{ slots: bigint[]; skipWindow: boolean }> {
    const last = next + window - 1n;
    const slots = await chain.getBlocks(next, last, 'finalized');
    if (slots.length > 0 || emptyPolls % EMPTY_POLLS_BEFORE_TIP_CHECK !== EMPTY_POLLS_BEFORE_TIP_CHECK - 1) {
      return { slots: slots.filter((slot) => slot >= next && slot <= last), skipWindow: false };
    }
    return { slots: [], skipWindow: (await chain.getSlot('finalized')) > last };
  }

  async function* blocks(afterSlot: bigint, signal: AbortSignal): AsyncGenerator<SourceBlock> {
    let next = afterSlot + 1n;
    let failures = 0;
    let emptyPolls = 0;
    let atTip = false;
    let polledAt = 0;
    while (!signal.aborted) {
      try {
        if (atTip) await pause(polledAt + pollMs - performance.now(), signal);
        if (signal.aborted) return;
        polledAt = performance.now();
        const { slots, skipWindow } = await findSlots(next, emptyPolls);
        atTip = !skipWindow && slots.length < AT_TIP_SLOTS;
        if (slots.length === 0) {
          if (skipWindow) next += window;
          else emptyPolls++;
          failures = 0;
          continue;
        }
        emptyPolls = 0;
        for (let i = 0; i < slots.length && !signal.aborted; i += concurrency) {
          const batch = slots.slice(i, i + concurrency);
          // The blocks read before a failed one are still handed over (in order); the fault then backs off. So are
          // blocks whose read outlasted the signal: the consumer was waiting for exactly these, and dropping them
          // would make a pass whose reads are slower than its patience end with nothing, again and again.
          const read = await Promise.allSettled(batch.map((slot) => chain.getBlock(slot, 'finalized')));
          for (const [j, outcome] of read.entries()) {
            if (outcome.status === 'rejected') throw outcome.reason;
            const block = outcome.value;
            if (block) yield { slot: block.slot, blockTime: block.blockTime, transactions: block.transactions };
            next = batch[j]! + 1n;
          }
        }
        failures = 0;
      } catch (err) {
        failures++;
        const delay = backoff(failures);
        // A read that failed after the signal still says the node is failing: reported, so a pass that gave up
        // waiting does not end as if all were well (the caller decides; nothing is retried once aborted).
        options.onFault?.(err, delay);
        if (signal.aborted) return;
        await pause(delay, signal);
      }
    }
  }

  return { kind: 'blocks', blocks };
}
