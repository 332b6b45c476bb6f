// Back-channel logout to a receiver that does not answer: the library's own deadline (the `signal` it hands its
// `fetch`) ends the POST, not the outbound client's longer one, so a revocation's answer is held no longer than that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackTestClient, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import type { OutboundClient } from '../../platform/outbound/client';
import { outboundFetch } from './provider';

let receiver: HttpsReceiver;
let outbound: OutboundClient;
/** Resolves when the receiver holds a request, then when the sender has given that request up. */
let held: Promise<void>;
let givenUp: Promise<void>;

beforeAll(async () => {
  let onHeld!: () => void;
  let onGivenUp!: () => void;
  held = new Promise((resolve) => (onHeld = resolve));
  givenUp = new Promise((resolve) => (onGivenUp = resolve));
  receiver = await startHttpsReceiver((_req, res) => {
    // Never answers: the sender's deadline is all that ends it.
    res.on('close', onGivenUp);
    onHeld();
  });
  // Longer than the test's own timeout: if the caller's signal were dropped, nothing would end the request in time.
  outbound = loopbackTestClient({ timeoutMs: 120_000 });
});
afterAll(async () => {
  await outbound?.close();
  await receiver?.close();
});

describe('the provider’s back-channel fetch', () => {
  it('ends the POST when the library’s signal aborts, as a timeout, and the receiver sees it given up', async () => {
    const deadline = new AbortController();
    const sent = outboundFetch(outbound)(`https://127.0.0.1:${receiver.port}/backchannel`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: 'x' }),
      signal: deadline.signal,
    });
    await held;
    deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    await expect(sent).rejects.toMatchObject({ kind: 'timeout' });
    await givenUp;
    expect(receiver.requests.map((r) => r.url)).toEqual(['/backchannel']);
  });
});
