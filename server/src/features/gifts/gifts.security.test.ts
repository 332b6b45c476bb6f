// POST /gift/notify against abuse: keyless (the shared suite: keys and bearers change nothing, no rate headers; the
// per-client-address limit in the shared store, decided before any chain read), nothing taken from the caller but a
// signature (no destination, no claimed facts), the answer only what the chain says, and an oversized body refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIFT_LIMITS } from '@sigil/contract/gifts';
import { keylessAddressLimitSuite } from '@sigil/test/support/auth-suite';
import { giveHandle, type Gift } from '@sigil/test/support/gift-world';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { startLocalChain, type LocalChain } from '../../localchain/index';

let chain: LocalChain;
let app: KeyedApp;
let gift: Gift;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false });
  app = await startKeyedApp({ dialect: 'sqlite', chain });
  gift = await giveHandle(chain, 'giftsafe');
}, 120_000);
afterAll(async () => {
  await app?.close();
  await chain?.close();
});

describe('POST /gift/notify: abuse', () => {
  keylessAddressLimitSuite(
    'POST /gift/notify',
    () => app,
    (a, auth) => a.call('POST', '/gift/notify', { ...auth, body: { signature: gift.signature } }),
    {
      limitKey: (ip) => `gift-notify:${ip}`,
      perMinute: GIFT_LIMITS.perMinute,
      perDay: GIFT_LIMITS.perDay,
      from: async (a, remoteAddress) => {
        const res = await a.app.inject({
          method: 'POST',
          url: '/gift/notify',
          payload: { signature: gift.signature },
          remoteAddress,
        });
        return { statusCode: res.statusCode, body: res.body };
      },
    },
  );

  it('takes nothing but the signature: a destination, a recipient or an event of the caller → 400', async () => {
    for (const extra of [
      { url: 'https://attacker.example/hook' },
      { callback: 'https://attacker.example' },
      { recipient: gift.creator.address },
      { event: { type: 'gift.created' } },
    ]) {
      const res = await app.call('POST', '/gift/notify', { body: { signature: gift.signature, ...extra } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'bad request' });
    }
  });

  it('answers what the chain says: the recipient is the one the transaction bound, whoever calls', async () => {
    const res = await app.call('POST', '/gift/notify', { body: { signature: gift.signature } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.gifts).toMatchObject([
      { voucher: gift.voucher, recipient: gift.recipient.address, creator: gift.creator.address },
    ]);
  });

  it('an oversized signature (over 256 characters) → 400 bad request, no chain read', async () => {
    chain.faults.set({ unreachable: true });
    try {
      const res = await app.call('POST', '/gift/notify', { body: { signature: '1'.repeat(257) } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ error: 'bad request' });
    } finally {
      chain.faults.clear();
    }
  });
});
