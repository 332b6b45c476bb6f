// The Yellowstone source when the endpoint is missing or malformed: a clear log line naming the endpoint (never its
// credentials), retries with backoff, never a crash; and it connects once the endpoint is there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../../localchain';
import { startGeyserServer } from '../../../localchain/geyser-server';
import { capturedLogger } from '@sigil/test/support/captured-log';
import type { SourceBlock } from './types';
import { createYellowstoneSource } from './yellowstone';

let chain: LocalChain;

/** A loopback port nothing listens on (bound once, then released). */
async function freePort(): Promise<number> {
  const server = await startGeyserServer({ ledger: chain.ledger, faults: chain.faults, host: '127.0.0.1', port: 0 });
  await server.close();
  return server.port;
}

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  await chain.advance(10);
}, 60_000);
afterAll(() => chain?.close());

describe('Yellowstone source: unavailable or refusing endpoints', () => {
  it('an endpoint that is not there: logged with the endpoint, retried with backoff, and followed once it appears', async () => {
    const port = await freePort();
    const { logger, lines, errors } = capturedLogger();
    const source = createYellowstoneSource({
      url: `http://127.0.0.1:${port}/?api-key=hidden`,
      logger,
      backoff: { initialMs: 10, maxMs: 40 },
    });
    const stop = new AbortController();
    const iterator = source.blocks(3n, stop.signal)[Symbol.asyncIterator]();
    const first = iterator.next();
    await errors(3);
    const server = await startGeyserServer({ ledger: chain.ledger, faults: chain.faults, host: '127.0.0.1', port });
    try {
      const { value } = await first;
      expect((value as SourceBlock).slot).toBe(4n);
    } finally {
      stop.abort();
      await iterator.return?.();
      await server.close();
    }
    const failure = lines.find((l) => l.level === 'error')!;
    expect(failure).toMatchObject({
      msg: 'Geyser stream failed; reconnecting',
      endpoint: `http://127.0.0.1:${port}`,
      fromSlot: '4',
    });
    expect(failure.err).toContain('failed to connect to gRPC endpoint');
    expect(JSON.stringify(lines)).not.toContain('hidden');
  });

  it('a URL that is no endpoint: a logged error and retries, never a crash; stopping ends the iteration', async () => {
    const { logger, lines, errors } = capturedLogger();
    const source = createYellowstoneSource({ url: 'not a url', logger, backoff: { initialMs: 10, maxMs: 20 } });
    const stop = new AbortController();
    const iterator = source.blocks(0n, stop.signal)[Symbol.asyncIterator]();
    const next = iterator.next();
    await errors(2);
    stop.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(lines[0]).toMatchObject({ level: 'error', endpoint: '(unparseable URL)' });
    expect(lines[0]!.err).toContain('invalid gRPC endpoint configuration');
  });
});
