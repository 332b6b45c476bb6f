// The session webhook routes' refusals, each with its status and `{code, message}`: a new pay URL without its
// proof or with a wrong one (the URL stays), challenges used for the wrong purpose, enable of a webhook that is not
// disabled, test events of unknown types, malformed filters and cursors.
import { describe, expect, it } from 'vitest';
import { show } from '@sigil/test/support/connect-world';
import { useOwnerWebhooksWorld } from '@sigil/test/support/owner-webhooks';
import { signRaw } from '@sigil/test/support/webhooks-world';
import { demoWallet } from '../../localchain/scenario';
import type { KeyedResponse } from '@sigil/test/support/keyed-app';

const w = useOwnerWebhooksWorld();

const refused = (res: KeyedResponse, status: number, code: string) => {
  expect(res.status, show(res)).toBe(status);
  expect(res.body.code, show(res)).toBe(code);
  expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
};

describe('a new pay URL is proven as a registration is', () => {
  it('without a nonce → 400 CHALLENGE_INVALID; without a signature → 401 SIGNATURE_INVALID; the URL stays', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    const path = `/webhooks/pay/${hook.id}`;
    refused(await w.call(grace, 'PATCH', path, { url: w.url('/new') }), 400, 'CHALLENGE_INVALID');
    const { nonce } = await w.signedUrlChange(grace, hook.id, w.url('/new'));
    refused(await w.call(grace, 'PATCH', path, { url: w.url('/new'), nonce }), 401, 'SIGNATURE_INVALID');
    // Nonce and signature without a url prove nothing.
    refused(await w.call(grace, 'PATCH', path, { nonce, signature: '1111' }), 400, 'BAD_REQUEST');
    expect((await w.call(grace, 'GET', path)).body.url).toBe(w.url());
  });

  it('a signature by another wallet, or garbage → 401 SIGNATURE_INVALID; the nonce stays usable, the URL stays', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    const path = `/webhooks/pay/${hook.id}`;
    const forged = await w.signedUrlChange(grace, hook.id, w.url('/evil'), await demoWallet('judy'));
    refused(await w.call(grace, 'PATCH', path, forged), 401, 'SIGNATURE_INVALID');
    refused(await w.call(grace, 'PATCH', path, { ...forged, signature: 'not-base58!' }), 401, 'SIGNATURE_INVALID');
    expect((await w.call(grace, 'GET', path)).body.url).toBe(w.url());
    // The refused attempts did not burn the nonce: the right signature of the same message still works, once.
    const challenge = await w.call(grace, 'POST', `${path}/challenge`, { url: w.url('/good') });
    const signature = await signRaw(grace.wallet, challenge.body.message);
    const good = { url: w.url('/good'), nonce: challenge.body.nonce, signature };
    expect((await w.call(grace, 'PATCH', path, good)).body.url).toBe(w.url('/good'));
    refused(await w.call(grace, 'PATCH', path, good), 400, 'CHALLENGE_INVALID');
  });

  it('a challenge is good for its own URL and webhook only, and registration and URL-change nonces do not mix', async () => {
    const { grace } = w;
    const a = await w.registerPay(grace);
    const b = await w.registerPay(grace);
    const forA = await w.signedUrlChange(grace, a.id, w.url('/a'));
    // Another URL than the challenge's.
    refused(
      await w.call(grace, 'PATCH', `/webhooks/pay/${a.id}`, { ...forA, url: w.url('/other') }),
      400,
      'CHALLENGE_INVALID',
    );
    // Another webhook than the challenge's.
    refused(await w.call(grace, 'PATCH', `/webhooks/pay/${b.id}`, forA), 400, 'CHALLENGE_INVALID');
    // A URL-change nonce does not register a webhook.
    refused(
      await w.call(grace, 'POST', '/webhooks/pay', { nonce: forA.nonce, signature: forA.signature }),
      400,
      'CHALLENGE_INVALID',
    );
    // A registration nonce does not change a URL.
    const reg = await w.call(grace, 'POST', '/webhooks/pay/challenge', {
      scope: grace.wallet.address,
      url: w.url('/r'),
    });
    const signature = await signRaw(grace.wallet, reg.body.message);
    refused(
      await w.call(grace, 'PATCH', `/webhooks/pay/${a.id}`, { url: w.url('/r'), nonce: reg.body.nonce, signature }),
      400,
      'CHALLENGE_INVALID',
    );
  });

  it('the new URL is vetted as at registration: not https or private → INVALID_URL / URL_REJECTED', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    refused(
      await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/challenge`, { url: 'http://shop.example.com/h' }),
      400,
      'INVALID_URL',
    );
    refused(
      await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/challenge`, { url: 'https://nowhere.invalid/h' }),
      400,
      'URL_REJECTED',
    );
    refused(
      await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/challenge`, { url: w.url(), wallet: 'x' }),
      400,
      'INVALID_WALLET',
    );
    refused(
      await w.call(grace, 'PATCH', `/webhooks/pay/${hook.id}`, { event_types: ['payment.nope'] }),
      400,
      'INVALID_EVENT_TYPES',
    );
    refused(await w.call(grace, 'PATCH', `/webhooks/pay/${hook.id}`, { description: 'a\u0007b' }), 400, 'BAD_REQUEST');
  });

  it('identity webhooks take no proof: nonce or signature → 400 BAD_REQUEST', async () => {
    const { grace } = w;
    const created = await w.call(grace, 'POST', '/webhooks/identity', { scope: '@alice', url: w.url() });
    refused(
      await w.call(grace, 'PATCH', `/webhooks/identity/${created.body.id}`, { url: w.url('/x'), nonce: 'n' }),
      400,
      'BAD_REQUEST',
    );
    // The URL-change challenge is a pay route: an identity webhook's id is not a pay webhook.
    refused(
      await w.call(grace, 'POST', `/webhooks/pay/${created.body.id}/challenge`, { url: w.url() }),
      404,
      'WEBHOOK_NOT_FOUND',
    );
  });
});

describe('state, test events and the delivery log', () => {
  it('enable of an active webhook → 409 NOT_DISABLED; resume of a disabled one → 409 NOT_RESUMABLE', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    refused(await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/enable`), 409, 'NOT_DISABLED');
    await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/disable`);
    refused(await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/resume`), 409, 'NOT_RESUMABLE');
    // The X-API-Key resume does not lift it either.
    refused(
      await w.env.app.call('POST', `/v1/pay/webhooks/${hook.id}/resume`, { key: grace.keySecret }),
      409,
      'NOT_RESUMABLE',
    );
  });

  it('test events: a type of another stream, unknown or absent → 400 INVALID_EVENT_TYPES', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    const path = `/webhooks/pay/${hook.id}/test`;
    refused(await w.call(grace, 'POST', path, { type: 'handle.registered' }), 400, 'INVALID_EVENT_TYPES');
    refused(await w.call(grace, 'POST', path, { type: 'payment.nope' }), 400, 'INVALID_EVENT_TYPES');
    refused(await w.call(grace, 'POST', path, {}), 400, 'INVALID_EVENT_TYPES');
  });

  it('bad stream, status, limit or cursor → 400 BAD_REQUEST; an unknown delivery → 404 DELIVERY_NOT_FOUND', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace);
    const base = `/webhooks/pay/${hook.id}`;
    refused(await w.call(grace, 'GET', '/webhooks/nope'), 400, 'BAD_REQUEST');
    refused(await w.call(grace, 'GET', `${base}/deliveries?status=lost`), 400, 'BAD_REQUEST');
    refused(await w.call(grace, 'GET', `${base}/deliveries?limit=0`), 400, 'BAD_REQUEST');
    refused(await w.call(grace, 'GET', `${base}/deliveries?limit=201`), 400, 'BAD_REQUEST');
    refused(await w.call(grace, 'GET', `${base}/deliveries?cursor=abc`), 400, 'BAD_REQUEST');
    refused(await w.call(grace, 'GET', `${base}/deliveries/whdel_nope`), 404, 'DELIVERY_NOT_FOUND');
    refused(await w.call(grace, 'GET', `${base}/deliveries/whdel_nope/attempts`), 404, 'DELIVERY_NOT_FOUND');
    refused(await w.call(grace, 'POST', `${base}/deliveries/whdel_nope/redeliver`), 404, 'DELIVERY_NOT_FOUND');
    refused(await w.call(grace, 'GET', '/webhooks/pay/whsub_nope'), 404, 'WEBHOOK_NOT_FOUND');
  });
});
