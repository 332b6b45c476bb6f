// The local chain's Geyser endpoint refusing what it does not serve, as a Yellowstone server does: a filter kind it
// has no data for, or an invalid address, ends the stream with INVALID_ARGUMENT "failed to create filter: …"
// (read with the stock client); a fault outage answers UNAVAILABLE until cleared.
import Client, { CommitmentLevel, SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';

let chain: LocalChain;
let client: Client;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  await chain.advance(6);
  client = new Client(chain.geyserUrl, undefined, undefined);
  await client.connect();
}, 60_000);
afterAll(() => chain?.close());

/**
 * How the stream ends: the error's message with its causes (the native client nests the gRPC status). The client
 * opens the stream before it resolves, so a refused first request rejects subscribe() itself.
 */
async function failureOf(request: SubscribeRequest): Promise<string> {
  try {
    const stream = await client.subscribe(request);
    for await (const update of stream as AsyncIterable<SubscribeUpdate>) void update;
  } catch (err) {
    const parts: string[] = [];
    for (let e = err as { message: string; cause?: unknown } | undefined; e; e = e.cause as never)
      parts.push(e.message);
    return parts.join(' / ');
  }
  return 'ended without an error';
}

describe('Geyser endpoint: refused subscriptions', () => {
  const commitment = CommitmentLevel.FINALIZED;
  const cases: [string, SubscribeRequest, string][] = [
    [
      'slots',
      SubscribeRequest.fromPartial({ slots: { s: {} }, commitment }),
      'failed to create filter: slots filters are not served here',
    ],
    [
      'accounts',
      SubscribeRequest.fromPartial({ accounts: { a: {} }, commitment }),
      'failed to create filter: accounts filters are not served here',
    ],
    [
      'blocks_meta',
      SubscribeRequest.fromPartial({ blocksMeta: { m: {} }, commitment }),
      'failed to create filter: blocksMeta filters are not served here',
    ],
    [
      'include_accounts',
      SubscribeRequest.fromPartial({ blocks: { b: { includeAccounts: true } }, commitment }),
      'failed to create filter: blocks.b: include_accounts and include_entries are not served here',
    ],
    [
      'a bad address',
      SubscribeRequest.fromPartial({ transactions: { t: { accountInclude: ['not-an-address'] } }, commitment }),
      'failed to create filter: transactions.t.account_include: invalid address not-an-address',
    ],
  ];
  it.each(cases)('%s ends the stream with INVALID_ARGUMENT', async (_, request, details) => {
    const failure = await failureOf(request);
    expect(failure).toContain('Client specified an invalid argument');
    expect(failure).toContain(details);
  });

  it('an outage fault ends a running stream and refuses calls with UNAVAILABLE; cleared, it serves again', async () => {
    // A stream waiting at the tip for the next block.
    const stream = await client.subscribe(
      SubscribeRequest.fromPartial({ blocks: { b: {} }, commitment: CommitmentLevel.FINALIZED }),
    );
    let failure = '';
    chain.faults.set({ unreachable: true });
    try {
      for await (const update of stream as AsyncIterable<SubscribeUpdate>) void update;
    } catch (err) {
      failure = String((err as { cause?: { message?: string } }).cause?.message);
    }
    const refused = await client.getSlot().then(
      () => 'served',
      (err: { cause?: { message?: string } }) => String(err.cause?.message),
    );
    chain.faults.clear();
    expect(failure).toContain('The service is currently unavailable');
    expect(failure).toContain('the local chain is unreachable (fault)');
    expect(refused).toContain('the local chain is unreachable (fault)');
    expect(await client.getSlot(CommitmentLevel.FINALIZED)).toEqual({ slot: String(chain.slot('finalized')) });
  });
});
