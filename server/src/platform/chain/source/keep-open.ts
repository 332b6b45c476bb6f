// One long-lived stream behind a chain source whose every `blocks()` call would otherwise open a new one (a Geyser
// subscription): the ingestion pass asks for the blocks after its cursor once per pass, and when that is exactly the
// last slot this source handed out, the same stream simply goes on. Any other position (a consumer that failed in
// the middle of a block, a look-back, another replica that moved the cursor) closes it and opens one at that
// position. Between passes the stream is kept for `lingerMs`, then closed; `close()` ends it at once (worker stop).
// A block the stream delivered after a pass stopped waiting is kept and handed to the next pass that resumes there.
import type { ChainSource, SourceBlock } from './types';

type Open = (afterSlot: bigint, signal: AbortSignal) => AsyncIterable<SourceBlock>;

interface Live {
  controller: AbortController;
  iterator: AsyncIterator<SourceBlock>;
  /** The slot of the last block handed out (or the position it was opened after). */
  last: bigint;
  /** A block asked for and not handed out yet (the pass that asked stopped waiting). */
  pending?: Promise<IteratorResult<SourceBlock>>;
}

const ABORTED = Symbol('aborted');

/** The promise's outcome, or ABORTED as soon as the signal aborts (the promise itself goes on). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function keepOpen(kind: ChainSource['kind'], open: Open, { lingerMs = 10_000 } = {}): Required<ChainSource> {
  let live: Live | undefined;
  let linger: NodeJS.Timeout | undefined;
  let caller = 0;

  function close() {
    clearTimeout(linger);
    live?.controller.abort();
    live = undefined;
  }

  function liveAfter(afterSlot: bigint): Live {
    if (live && live.last === afterSlot) return live;
    close();
    const controller = new AbortController();
    const iterator = open(afterSlot, controller.signal)[Symbol.asyncIterator]();
    live = { controller, iterator, last: afterSlot };
    return live;
  }

  async function* blocks(afterSlot: bigint, signal: AbortSignal): AsyncGenerator<SourceBlock> {
    clearTimeout(linger);
    const me = ++caller;
    const stream = liveAfter(afterSlot);
    try {
      // A newer caller takes the stream over; this iteration then ends.
      while (!signal.aborted && caller === me && live === stream) {
        if (!stream.pending) {
          stream.pending = stream.iterator.next();
          stream.pending.catch(() => {}); // awaited below or by the next pass; never an unhandled rejection
        }
        const outcome = await unlessAborted(stream.pending, signal);
        if (outcome === ABORTED) return;
        stream.pending = undefined;
        if (outcome.done) {
          if (live === stream) live = undefined;
          return;
        }
        stream.last = outcome.value.slot;
        yield outcome.value;
      }
    } catch (err) {
      if (live === stream) close();
      throw err;
    } finally {
      if (caller === me && live) {
        linger = setTimeout(close, lingerMs);
        linger.unref();
      }
    }
  }

  return { kind, blocks, close };
}
