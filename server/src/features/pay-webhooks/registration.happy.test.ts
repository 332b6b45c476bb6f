// Registration and management services on both dialects, against a real local chain.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { registerWebhook, type WebhookCaller } from './service';
import {
  issueChallengeFromBody,
  payWebhooksService,
  signEnvelope,
  signRaw,
  useRegistrationWorld,
} from '@sigil/test/support/webhooks-world';

const world = useRegistrationWorld('shop');

describeEachDialect('webhook registration and management', (ctx) => {
  const hooks = () => payWebhooksService(ctx.db, world.deps);
  let n = 0;
  const caller = (): WebhookCaller => ({ keyId: `key_${++n}`, account: `acct_${n}` });

  it('registers a wallet scope with a raw signature; the message is the spec format; secret once', async () => {
    const me = caller();
    const challenge = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: world.merchant.address,
      url: 'https://Shop.Example.com/hooks/sigil',
      event_types: ['payment.*', 'invoice.paid'],
      description: 'orders',
    });
    expect(challenge.message).toBe(
      [
        'sigil-pay-webhook:v1',
        `key: ${me.keyId}`,
        `scope: ${world.merchant.address}`,
        'url: https://shop.example.com/hooks/sigil',
        'events: payment.received,payment.binding_verified,invoice.paid',
        `nonce: ${challenge.nonce}`,
        `expires: ${new Date(challenge.expires_at * 1000).toISOString().replace('.000Z', 'Z')}`,
      ].join('\n'),
    );
    expect(challenge.expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThanOrEqual(599);
    expect(challenge.expires_at - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(600);

    const created = await registerWebhook(ctx.db, world.deps, me, {
      nonce: challenge.nonce,
      signature: await signRaw(world.merchant, challenge.message),
    });
    expect(created.id).toMatch(/^whsub_[1-9A-HJ-NP-Za-km-z]{22}$/);
    // Standard Webhooks format: whsec_ + base64 of 24 random bytes.
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created).toMatchObject({
      scope: { type: 'wallet', value: world.merchant.address, wallets: [world.merchant.address] },
      url: 'https://shop.example.com/hooks/sigil',
      event_types: ['payment.received', 'payment.binding_verified', 'invoice.paid'],
      description: 'orders',
      status: 'active',
      paused_reason: null,
    });
    const fetched = await hooks().get(me, created.id);
    expect(fetched).not.toHaveProperty('secret');
    expect(await hooks().list(me)).toEqual({ webhooks: [fetched] });
  });

  it('registers an @name with the payment address signing an off-chain envelope; both proven wallets recorded', async () => {
    const me = caller();
    const challenge = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: '@Shop',
      url: 'https://shop.example.com/h',
    });
    expect(challenge.message.split('\n')[2]).toBe('scope: @shop');
    expect(challenge.message.split('\n')[4]).toBe(
      'events: payment.received,payment.binding_verified,invoice.paid,invoice.created,invoice.cancelled,invoice.closed',
    );
    const created = await registerWebhook(ctx.db, world.deps, me, {
      nonce: challenge.nonce,
      signature: await signEnvelope(world.till, challenge.message),
    });
    expect(created.scope).toEqual({
      type: 'name',
      value: '@shop',
      wallets: [world.merchant.address, world.till.address],
    });
  });

  it('registers an @name signed by the owner with `wallet` given', async () => {
    const me = caller();
    const challenge = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: '@shop',
      wallet: world.merchant.address,
      url: 'https://shop.example.com/h',
    });
    const created = await registerWebhook(ctx.db, world.deps, me, {
      nonce: challenge.nonce,
      signature: await signRaw(world.merchant, challenge.message),
    });
    expect(created.scope.wallets).toEqual([world.merchant.address, world.till.address]);
  });

  it('rotates the secret, deletes (then WEBHOOK_NOT_FOUND), lists deliveries with the page limit, queues a test event, redelivers', async () => {
    const me = caller();
    const challenge = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: world.merchant.address,
      url: 'https://shop.example.com/h',
    });
    const created = await registerWebhook(ctx.db, world.deps, me, {
      nonce: challenge.nonce,
      signature: await signRaw(world.merchant, challenge.message),
    });

    const rotated = await hooks().rotateSecret(me, created.id);
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const row = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select('secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).toBe(rotated.secret);

    const test1 = await hooks().sendTest(me, created.id);
    const test2 = await hooks().sendTest(me, created.id);
    expect(test1).toMatchObject({
      status: 'pending',
      attempts: 0,
      test: true,
      event_type: 'payment.received',
      webhook_id: created.id,
    });
    expect((await hooks().deliveries(me, created.id)).deliveries.map((d) => d.id)).toEqual([test2.id, test1.id]);
    expect((await hooks().deliveries(me, created.id, { limit: '1' })).deliveries.map((d) => d.id)).toEqual([test2.id]);

    // A pending delivery is answered as is; a dead one goes back to pending with attempts from zero.
    expect(await hooks().redeliver(me, created.id, test1.id)).toMatchObject({ status: 'pending', attempts: 0 });
    await ctx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'dead', attempts: 6, last_error: 'timeout' })
      .where('id', '=', test1.id)
      .execute();
    expect(await hooks().redeliver(me, created.id, test1.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      last_error: null,
    });

    await hooks().remove(me, created.id);
    await expect(hooks().get(me, created.id)).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    expect(
      await ctx.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', created.id).execute(),
    ).toEqual([]);
  });

  it('resumes only an auto-paused webhook and resets its dead-letter streak', async () => {
    const me = caller();
    const challenge = await issueChallengeFromBody(ctx.db, world.deps, me, {
      scope: world.merchant.address,
      url: 'https://shop.example.com/h',
    });
    const created = await registerWebhook(ctx.db, world.deps, me, {
      nonce: challenge.nonce,
      signature: await signRaw(world.merchant, challenge.message),
    });
    await expect(hooks().resume(me, created.id)).rejects.toMatchObject({ code: 'NOT_RESUMABLE', status: 409 });
    await ctx.db
      .updateTable('webhook_subscriptions')
      .set({ status: 'paused', paused_reason: 'scope_changed: owner changed' })
      .where('id', '=', created.id)
      .execute();
    await expect(hooks().resume(me, created.id)).rejects.toMatchObject({ code: 'NOT_RESUMABLE' });
    await ctx.db
      .updateTable('webhook_subscriptions')
      .set({ paused_reason: 'auto-paused: 50 consecutive deliveries dead-lettered', consecutive_dead: 50 })
      .where('id', '=', created.id)
      .execute();
    expect(await hooks().resume(me, created.id)).toMatchObject({ status: 'active', paused_reason: null });
    const row = await ctx.db
      .selectFrom('webhook_subscriptions')
      .select('consecutive_dead')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.consecutive_dead).toBe(0);
  });
});
