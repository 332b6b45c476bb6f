// Webhooks managed with the portal session over real HTTP: a signed-in owner registers a pay webhook through one of
// its keys (no key secret), edits its event types, proves a new URL with a fresh wallet signature, disables and
// enables it, sends a test event of a chosen type, reads the delivery in full (body as received, headers, attempts),
// redelivers it and filters the log; identity webhooks through the same routes; the public event catalog.
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { eventCatalog } from '@sigil/contract/event-catalog';
import { PayEventSchema } from '@sigil/contract/pay-events';
import { show } from '@sigil/test/support/connect-world';
import { useOwnerWebhooksWorld } from '@sigil/test/support/owner-webhooks';
import { waitFor } from '@sigil/test/support/pay-webhooks';

const w = useOwnerWebhooksWorld();

describe('pay webhooks managed with the session', () => {
  it('register → edit → new URL with a signature → disable → enable → test event → detail → redeliver → filters', async () => {
    const { grace } = w;
    const hook = await w.registerPay(grace, { description: 'shop' });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.webhook).toMatchObject({ url: w.url(), description: 'shop', status: 'active' });

    const listed = await w.call(grace, 'GET', '/webhooks/pay');
    expect(listed.status, show(listed)).toBe(200);
    expect(listed.body.webhooks).toEqual([
      expect.objectContaining({ id: hook.id, stream: 'pay', state: 'active', paused_reason: null }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    // The challenge message names the key of the path.
    const edited = await w.call(grace, 'PATCH', `/webhooks/pay/${hook.id}`, {
      event_types: ['invoice.paid', 'payment.received'],
      description: 'till',
    });
    expect(edited.status, show(edited)).toBe(200);
    expect(edited.body).toMatchObject({
      event_types: ['payment.received', 'invoice.paid'],
      description: 'till',
      url: w.url(),
      state: 'active',
    });

    const challenge = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/challenge`, { url: w.url('/v2') });
    expect(challenge.status, show(challenge)).toBe(200);
    expect(challenge.body.message.split('\n')).toEqual([
      'sigil-pay-webhook:v1',
      `key: ${grace.keyId}`,
      `scope: ${grace.wallet.address}`,
      `url: ${w.url('/v2')}`,
      'events: payment.received,invoice.paid',
      `nonce: ${challenge.body.nonce}`,
      expect.stringMatching(/^expires: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    ]);
    const moved = await w.call(
      grace,
      'PATCH',
      `/webhooks/pay/${hook.id}`,
      await w.signedUrlChange(grace, hook.id, w.url('/v2')),
    );
    expect(moved.status, show(moved)).toBe(200);
    expect(moved.body).toMatchObject({ url: w.url('/v2'), event_types: ['payment.received', 'invoice.paid'] });

    const disabled = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/disable`);
    expect(disabled.status, show(disabled)).toBe(200);
    expect(disabled.body).toMatchObject({
      state: 'disabled',
      status: 'paused',
      paused_reason: 'disabled: by the owner',
    });
    expect((await w.call(grace, 'GET', `/webhooks/pay/${hook.id}`)).body.state).toBe('disabled');
    const enabled = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/enable`);
    expect(enabled.status, show(enabled)).toBe(200);
    expect(enabled.body).toMatchObject({ state: 'active', status: 'active', paused_reason: null });

    const workers = w.env.startWorkers();
    const test = await w.call(grace, 'POST', `/webhooks/pay/${hook.id}/test`, { type: 'invoice.paid' });
    expect(test.status, show(test)).toBe(200);
    expect(test.body).toMatchObject({ event_type: 'invoice.paid', test: true, status: 'pending' });
    const deliveryPath = `/webhooks/pay/${hook.id}/deliveries/${test.body.id}`;
    const delivered = await waitFor(async () => {
      const res = await w.call(grace, 'GET', deliveryPath);
      return res.body.delivery?.status === 'delivered' ? res.body : undefined;
    });
    const received = w.receiver.requests.find((r) => r.headers['sigil-delivery-id'] === test.body.id)!;
    expect(received.url).toBe('/v2');
    expect(Buffer.from(delivered.body, 'utf8').equals(received.body)).toBe(true);
    const event = PayEventSchema.parse(JSON.parse(delivered.body));
    expect(event).toMatchObject({ type: 'invoice.paid', test: true, invoice: { payee: grace.wallet.address } });
    expect(delivered.headers['Sigil-Signature']).toBe(received.headers['sigil-signature']);
    expect(delivered.headers['webhook-signature']).toBe(received.headers['webhook-signature']);
    expect(await verifyWebhook(delivered.body, delivered.headers['Sigil-Signature'], hook.secret)).toMatchObject({
      ok: true,
    });

    const attempts = await w.call(grace, 'GET', `${deliveryPath}/attempts`);
    expect(attempts.status, show(attempts)).toBe(200);
    expect(attempts.body).toEqual({
      attempts: [
        {
          attempt: 1,
          attempted_at: expect.any(Number),
          status: 204,
          error: null,
          duration_ms: expect.any(Number),
          headers: delivered.headers,
        },
      ],
      next_cursor: null,
    });

    const again = await w.call(grace, 'POST', `${deliveryPath}/redeliver`);
    expect(again.status, show(again)).toBe(200);
    await waitFor(async () => {
      const res = await w.call(grace, 'GET', `${deliveryPath}/attempts`);
      return res.body.attempts.length === 2 ? true : undefined;
    });

    const filtered = await w.call(
      grace,
      'GET',
      `/webhooks/pay/${hook.id}/deliveries?status=delivered&event_type=invoice.paid`,
    );
    expect(filtered.status, show(filtered)).toBe(200);
    expect(filtered.body.deliveries.map((d: { id: string }) => d.id)).toEqual([test.body.id]);
    const other = await w.call(grace, 'GET', `/webhooks/pay/${hook.id}/deliveries?event_type=payment.received`);
    expect(other.body).toEqual({ deliveries: [], next_cursor: null });
    await workers.stop();

    // The X-API-Key routes see the same webhook, in the spec's shape.
    const keyed = await w.env.app.call('GET', `/v1/pay/webhooks/${hook.id}`, { key: grace.keySecret });
    expect(keyed.status, show(keyed)).toBe(200);
    expect(keyed.body).toMatchObject({ url: w.url('/v2'), status: 'active' });
    expect(keyed.body.state).toBeUndefined();

    const removed = await w.call(grace, 'DELETE', `/webhooks/pay/${hook.id}`);
    expect(removed.status, show(removed)).toBe(204);
    expect((await w.call(grace, 'GET', '/webhooks/pay')).body).toEqual({ webhooks: [] });
  });
});

describe('identity webhooks managed with the session', () => {
  it('create, edit the URL (no proof: identity webhooks have none), a test event of a chosen type, delete', async () => {
    const { grace } = w;
    const created = await w.call(grace, 'POST', '/webhooks/identity', { scope: '@alice', url: w.url('/id') });
    expect(created.status, show(created)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;
    const moved = await w.call(grace, 'PATCH', `/webhooks/identity/${id}`, {
      url: w.url('/id2'),
      event_types: ['record'],
    });
    expect(moved.status, show(moved)).toBe(200);
    expect(moved.body).toMatchObject({
      stream: 'identity',
      state: 'active',
      url: w.url('/id2'),
      event_types: ['record.*'], // the family, stored as the identity grammar normalizes it
      scope: { type: 'name', value: '@alice' },
    });
    const test = await w.call(grace, 'POST', `/webhooks/identity/${id}/test`, { type: 'listing.sold' });
    expect(test.status, show(test)).toBe(200);
    const detail = await w.call(grace, 'GET', `/webhooks/identity/${id}/deliveries/${test.body.id}`);
    expect(detail.status, show(detail)).toBe(200);
    expect(JSON.parse(detail.body.body)).toMatchObject({
      type: 'listing.sold',
      test: true,
      sequence: 0,
      handle: { name: 'alice' },
    });
    expect((await w.call(grace, 'GET', '/webhooks/identity')).body.webhooks).toHaveLength(1);
    expect((await w.call(grace, 'DELETE', `/webhooks/identity/${id}`)).status).toBe(204);
  });
});

describe('the event catalog', () => {
  it('GET /v1/webhooks/event-types: every type of both streams with its example, no credentials needed', async () => {
    const res = await w.env.app.call('GET', '/v1/webhooks/event-types');
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toEqual({ event_types: eventCatalog() });
    expect(res.body.event_types).toHaveLength(40);
  });
});
