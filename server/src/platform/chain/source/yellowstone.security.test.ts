// The Yellowstone source against an endpoint that requires an x-token: a wrong token is refused (logged without
// the token, retried, never a crash); the right one streams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturedLogger } from '@sigil/test/support/captured-log';
import { startLocalChain, type LocalChain } from '../../../localchain';
import { createYellowstoneSource } from './yellowstone';

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, geyserToken: 'right-token' });
  await chain.advance(10);
}, 60_000);
afterAll(() => chain?.close());

describe('Yellowstone source: x-token', () => {
  it('a wrong token is refused by the endpoint (logged, retried); the right one streams', async () => {
    const wrong = capturedLogger();
    const refused = createYellowstoneSource({
      url: chain.geyserUrl,
      token: 'wrong-token',
      logger: wrong.logger,
      backoff: { initialMs: 10, maxMs: 20 },
    });
    const stop = new AbortController();
    const pending = refused.blocks(0n, stop.signal)[Symbol.asyncIterator]().next();
    await wrong.errors(2);
    stop.abort();
    expect((await pending).done).toBe(true);
    expect(wrong.lines[0]!.err).toContain('invalid x-token');
    expect(JSON.stringify(wrong.lines)).not.toContain('wrong-token');

    const right = createYellowstoneSource({
      url: chain.geyserUrl,
      token: 'right-token',
      logger: capturedLogger().logger,
    });
    const go = new AbortController();
    for await (const block of right.blocks(0n, go.signal)) {
      expect(block.slot).toBe(1n);
      go.abort();
    }
  });
});
