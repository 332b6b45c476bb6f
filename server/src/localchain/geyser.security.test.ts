// The local chain's Geyser endpoint with an x-token: every call without it, or with another, is refused with
// UNAUTHENTICATED (unary reads and Subscribe alike), read with the stock client; the right token is served.
import Client, { CommitmentLevel, SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, geyserToken: 'the-token' });
  await chain.advance(6);
}, 60_000);
afterAll(() => chain?.close());

async function connected(token: string | undefined): Promise<Client> {
  const client = new Client(chain.geyserUrl, token, undefined);
  await client.connect();
  return client;
}

/** The nested messages of a native client error, in one line. */
function chainOf(err: unknown): string {
  const parts: string[] = [];
  for (let e = err as { message: string; cause?: unknown } | undefined; e; e = e.cause as never) parts.push(e.message);
  return parts.join(' / ');
}

describe('Geyser endpoint: x-token', () => {
  it.each([
    ['no token', undefined],
    ['another token', 'not-the-token'],
  ])('%s: unary reads and Subscribe are refused with UNAUTHENTICATED', async (_, token) => {
    const client = await connected(token);
    const unary = await client.getSlot(CommitmentLevel.FINALIZED).then(
      () => 'served',
      (err: unknown) => chainOf(err),
    );
    expect(unary).toContain('The request does not have valid authentication credentials');
    expect(unary).toContain('invalid x-token');

    // The client opens the stream before subscribe() resolves: a refused stream rejects it.
    const received: SubscribeUpdate[] = [];
    const streamed = await (async () => {
      const stream = await client.subscribe(SubscribeRequest.fromPartial({ blocks: { b: {} }, fromSlot: '0' }));
      for await (const update of stream as AsyncIterable<SubscribeUpdate>) received.push(update);
      return 'ended';
    })().catch((err: unknown) => chainOf(err));
    expect(streamed).toContain('invalid x-token');
    expect(received).toEqual([]);
  });

  it('the right token is served', async () => {
    const client = await connected('the-token');
    expect(await client.getSlot(CommitmentLevel.FINALIZED)).toEqual({ slot: String(chain.slot('finalized')) });
  });
});
