// The Yellowstone gRPC (Geyser) chain source: finalized blocks pushed by a Geyser endpoint (Triton, Helius and
// others sell them; the local chain serves one), read with the stock client @triton-one/yellowstone-grpc. One
// long-lived `blocks` subscription at FINALIZED with `from_slot` = the slot after the last one handed out, kept
// across ingestion passes while they resume where it is; a dropped stream, a refused connection or a server error is
// logged and retried with exponential backoff, resuming from that slot.
// See docs/deploy.md "Chain source: Yellowstone gRPC (Geyser)".
import Client, { CommitmentLevel, SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { Logger } from '../../log';
import type { ChainSource, SourceBlock } from './types';
import { keepOpen } from './keep-open';
import { sourceBlock } from './yellowstone-blocks';

export interface YellowstoneSourceOptions {
  /** The Geyser endpoint: https://… (TLS) or http://… (plain-text HTTP/2, e.g. the local chain). */
  url: string;
  /** Sent as the `x-token` header, as hosted endpoints require. */
  token?: string;
  logger: Logger;
  /** Delay before the first retry, doubled per consecutive failure up to maxMs. Default 500 ms … 30 s. */
  backoff?: { initialMs: number; maxMs: number };
  /** How long the stream stays open with no pass reading it (keep-open.ts). Default 10 s. */
  lingerMs?: number;
}

/** The one filter name of our subscription (Geyser echoes it in every update's `filters`). */
const FILTER = 'sigil';
const DEFAULT_BACKOFF = { initialMs: 500, maxMs: 30_000 };

/** What the endpoint is told: every finalized block with all its transactions, from `fromSlot` on. */
function blocksRequest(fromSlot: bigint): SubscribeRequest {
  return SubscribeRequest.fromPartial({
    blocks: {
      [FILTER]: { accountInclude: [], includeTransactions: true, includeAccounts: false, includeEntries: false },
    },
    commitment: CommitmentLevel.FINALIZED,
    fromSlot: fromSlot.toString(),
  });
}

/** An error and its causes in one line (the native client nests the gRPC status under generic messages). */
function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message?: unknown; cause?: unknown } | undefined; e && parts.length < 5; e = e.cause as never) {
    parts.push(String(e.message ?? e));
  }
  return parts.join(': ');
}

/** The endpoint without credentials or query (an API key may ride in the URL), for log lines. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(unparseable URL)';
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves with the promise, or rejects as soon as the signal aborts (a connect attempt cannot be cancelled). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** One connection: the blocks after `afterSlot` until the stream ends or fails (then it throws). */
async function* subscribeOnce(
  options: YellowstoneSourceOptions,
  afterSlot: bigint,
  signal: AbortSignal,
): AsyncGenerator<SourceBlock> {
  const client = new Client(options.url, options.token, undefined);
  await unlessAborted(client.connect(), signal);
  const stream = await unlessAborted(client.subscribe(blocksRequest(afterSlot + 1n)), signal);
  const onAbort = () => stream.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  let last = afterSlot;
  try {
    for await (const update of stream as AsyncIterable<SubscribeUpdate>) {
      if (update.ping) {
        // Answer the server's keep-alive, as load balancers in front of hosted endpoints expect.
        stream.write(SubscribeRequest.fromPartial({ ping: { id: 1 } }));
        continue;
      }
      if (!update.block) continue;
      const slot = BigInt(update.block.slot);
      // Strictly increasing, whatever the endpoint replays around a reconnect.
      if (slot <= last) continue;
      yield sourceBlock(update.block);
      last = slot;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stream.destroy();
  }
}

export function createYellowstoneSource(options: YellowstoneSourceOptions): ChainSource {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const log = options.logger;
  // One stream for as long as the passes resume where it is (keep-open.ts); it reconnects by itself from the last
  // slot it handed out.
  return keepOpen(
    'yellowstone',
    async function* follow(afterSlot, signal) {
      let last = afterSlot;
      let failures = 0;
      while (!signal.aborted) {
        try {
          for await (const block of subscribeOnce(options, last, signal)) {
            failures = 0;
            yield block;
            last = block.slot;
          }
          if (signal.aborted) return;
          log.warn({ endpoint: shown(options.url), fromSlot: String(last + 1n) }, 'Geyser stream ended; reconnecting');
        } catch (err) {
          if (signal.aborted) return;
          log.error(
            { endpoint: shown(options.url), fromSlot: String(last + 1n), err: describe(err) },
            'Geyser stream failed; reconnecting',
          );
        }
        failures++;
        await sleep(Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(failures - 1, 20)), signal);
      }
    },
    { lingerMs: options.lingerMs },
  );
}
