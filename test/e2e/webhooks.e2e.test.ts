// Pay webhooks end to end over real HTTP: the local chain (demo scenario, live slots), the app, its indexer and
// delivery workers, a local HTTPS receiver. Webhooks are registered through the API for a scenario wallet (raw
// signature) and for @alice (off-chain envelope signature, by alice); native, SPL and invoice payments on the chain
// arrive as signed deliveries that the SDK's verifyWebhook accepts. Then the management routes over HTTP.
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { Address, KeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { payEventId } from '@sigil/contract/pay-events';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { getPayInvoiceInstruction } from '../../server/src/platform/chain/registry';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../support/https-receiver';
import { exec } from '../support/webhooks-world';
import { registerOverHttp, scenarioSigner, startWebhookApp, waitFor, type WebhookApp } from '../support/pay-webhooks';

let chain: LocalChain;
let env: WebhookApp;
let receiver: HttpsReceiver;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let payer1: KeyPairSigner;
let payer2: KeyPairSigner;
let bobHook: { id: string; secret: string; webhook: any };
let aliceHook: { id: string; secret: string; webhook: any };

const urlOf = (r: HttpsReceiver, path: string) => `https://127.0.0.1:${r.port}${path}`;
const bySubscription = (id: string) => receiver.requests.filter((r) => r.headers['sigil-subscription-id'] === id);
const eventOf = (r: ReceivedRequest) => JSON.parse(r.body.toString('utf8'));

/** The first delivery of `eventId` to `hookId` at the receiver, waiting for it. */
const arrival = (hookId: string, eventId: string) =>
  waitFor(
    () => bySubscription(hookId).find((r) => r.headers['sigil-event-id'] === eventId),
    20_000,
    `${eventId} at ${hookId}`,
  );

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true, slotMs: 100 });
  env = await startWebhookApp({ chain });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end('ok'));
  [alice, bob, payer1, payer2] = await Promise.all(
    ['alice', 'bob', 'payer1', 'payer2'].map((n) => scenarioSigner(chain, n)),
  );
  const key = env.app.key.secret;
  bobHook = await registerOverHttp(
    env.app,
    key,
    { scope: bob.address, url: urlOf(receiver, '/bob'), event_types: ['payment'] },
    bob,
  );
  aliceHook = await registerOverHttp(
    env.app,
    key,
    { scope: '@alice', url: urlOf(receiver, '/alice'), description: 'shop' },
    alice,
    { envelope: true },
  );
  env.startWorkers();
}, 60_000);

afterAll(async () => {
  await env?.close();
  await receiver?.close();
  await chain?.close();
});

describe('pay webhooks over HTTP on the local chain', () => {
  it('registration answers 201 with the webhook and its secret; @alice records both proven wallets', () => {
    expect(bobHook.webhook).toMatchObject({
      scope: { type: 'wallet', value: bob.address, wallets: [bob.address] },
      url: urlOf(receiver, '/bob'),
      event_types: ['payment.received', 'payment.binding_verified'],
      description: null,
      status: 'active',
      paused_reason: null,
    });
    expect(bobHook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(aliceHook.webhook.scope.type).toBe('name');
    expect(aliceHook.webhook.scope.value).toBe('@alice');
    expect(aliceHook.webhook.scope.wallets).toContain(alice.address);
    expect(aliceHook.webhook.event_types).toEqual([
      'payment.received',
      'payment.binding_verified',
      'invoice.paid',
      'invoice.created',
      'invoice.cancelled',
      'invoice.closed',
    ]);
    expect(aliceHook.webhook.description).toBe('shop');
  });

  it('a native payment to the scenario wallet arrives signed; verifyWebhook accepts it with the secret from registration', async () => {
    const sig = await exec(chain, payer1, [
      getTransferSolInstruction({ source: payer1, destination: bob.address, amount: 42_000n }),
    ]);
    const eventId = payEventId(sig, 0, -1, 'payment.received');
    const request = await arrival(bobHook.id, eventId);
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/bob');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['sigil-event-type']).toBe('payment.received');
    expect(request.headers['sigil-delivery-id']).toMatch(/^whdel_/);
    expect(request.headers['sigil-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(
      await verifyWebhook(request.body, request.headers['sigil-signature'] as string, bobHook.secret),
    ).toMatchObject({
      ok: true,
      secretIndex: 0,
    });
    expect(await verifyWebhook(request.body, request.headers['sigil-signature'] as string, aliceHook.secret)).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
    const event = eventOf(request);
    expect(event).toMatchObject({
      schema: 'sigil.pay-events/v1',
      id: eventId,
      type: 'payment.received',
      chain: { signature: sig, ixIndex: 0, innerIndex: -1, commitment: 'finalized', finalized: true },
      payment: {
        kind: 'transfer',
        payer: payer1.address,
        recipient: bob.address,
        asset: 'native',
        mint: null,
        amount: '42000',
        fee: '0',
        net: '42000',
        memo: '',
      },
    });
    // bob's wallet has no @name whose proof holds → nothing for @alice.
    expect(bySubscription(aliceHook.id).some((r) => r.headers['sigil-event-id'] === eventId)).toBe(false);

    const log = await env.app.call('GET', `/v1/pay/webhooks/${bobHook.id}/deliveries`, { key: env.app.key.secret });
    expect(log.status).toBe(200);
    const record = log.body.deliveries.find((d: { event_id: string }) => d.event_id === eventId);
    expect(record).toMatchObject({
      webhook_id: bobHook.id,
      event_type: 'payment.received',
      attempts: 1,
      last_status: 200,
      last_error: null,
      test: false,
    });
    expect(['delivered']).toContain(record.status);
  });

  it('SPL (USDX) to alice and the @alice invoice: payment.received bound to @alice, invoice.paid, both verified', async () => {
    const usdx = chain.scenario!.mints.usdx!.address;
    const ata = async (owner: Address) =>
      (await findAssociatedTokenPda({ owner, mint: usdx, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
    const spl = await exec(chain, payer2, [
      getTransferCheckedInstruction({
        source: await ata(payer2.address),
        mint: usdx,
        destination: await ata(alice.address),
        authority: payer2,
        amount: 1_500_000n,
        decimals: 6,
      }),
    ]);
    const invoice = chain.scenario!.invoices['alice-1']!.account;
    const paid = await exec(chain, payer1, [
      getPayInvoiceInstruction({
        programId: chain.programId,
        kind: 'native',
        payer: payer1.address,
        invoice,
        payee: alice.address,
      }),
    ]);

    const splDelivery = await arrival(aliceHook.id, payEventId(spl, 0, -1, 'payment.received'));
    expect(
      (await verifyWebhook(splDelivery.body, splDelivery.headers['sigil-signature'] as string, aliceHook.secret)).ok,
    ).toBe(true);
    expect(eventOf(splDelivery).payment).toMatchObject({
      recipient: alice.address,
      recipientTokenAccount: await ata(alice.address),
      asset: 'spl',
      mint: usdx,
      amount: '1500000',
      binding: { status: 'verified', handles: [{ name: 'alice', basis: 'owner' }] },
    });

    const invoiceDelivery = await arrival(aliceHook.id, payEventId(paid, 0, -1, 'invoice.paid'));
    expect(invoiceDelivery.headers['sigil-event-type']).toBe('invoice.paid');
    expect(
      await verifyWebhook(invoiceDelivery.body, invoiceDelivery.headers['sigil-signature'] as string, [
        bobHook.secret,
        aliceHook.secret,
      ]),
    ).toMatchObject({ ok: true, secretIndex: 1 });
    expect(eventOf(invoiceDelivery)).toMatchObject({
      type: 'invoice.paid',
      invoice: { address: invoice, payee: alice.address },
      payment: {
        kind: 'invoice',
        payer: payer1.address,
        recipient: alice.address,
        amount: '250000000',
        invoice,
        binding: { status: 'verified' },
      },
    });
    // Exactly one event for the invoice payment.
    expect(
      bySubscription(aliceHook.id)
        .filter((r) => eventOf(r).chain.signature === paid)
        .map((r) => r.headers['sigil-event-type']),
    ).toEqual(['invoice.paid']);
  });

  it('test event, rotate-secret (next attempt signed with the new secret), redeliver, resume, delete — no request bodies', async () => {
    const key = env.app.key.secret;
    const test = await env.app.call('POST', `/v1/pay/webhooks/${bobHook.id}/test`, { key });
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({
      webhook_id: bobHook.id,
      event_type: 'payment.received',
      status: 'pending',
      attempts: 0,
      test: true,
    });
    const testArrival = await waitFor(
      () => bySubscription(bobHook.id).find((r) => r.headers['sigil-delivery-id'] === test.body.id),
      10_000,
      'test event',
    );
    expect(eventOf(testArrival)).toMatchObject({
      test: true,
      chain: { signature: '1'.repeat(64), slot: 0 },
      payment: { recipient: bob.address, amount: '1' },
    });
    expect(
      (await verifyWebhook(testArrival.body, testArrival.headers['sigil-signature'] as string, bobHook.secret)).ok,
    ).toBe(true);

    const rotated = await env.app.call('POST', `/v1/pay/webhooks/${bobHook.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(bobHook.id);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(bobHook.secret);

    const before = bySubscription(bobHook.id).length;
    const again = await env.app.call('POST', `/v1/pay/webhooks/${bobHook.id}/deliveries/${test.body.id}/redeliver`, {
      key,
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: test.body.id, status: 'pending', attempts: 0 });
    const redelivered = await waitFor(
      () =>
        bySubscription(bobHook.id)
          .slice(before)
          .find((r) => r.headers['sigil-delivery-id'] === test.body.id),
      10_000,
      'redelivery',
    );
    const header = redelivered.headers['sigil-signature'] as string;
    expect((await verifyWebhook(redelivered.body, header, rotated.body.secret)).ok).toBe(true);
    // During the overlap (24 h) the replaced secret signs too: a receiver that has not switched yet still verifies.
    expect(header.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(await verifyWebhook(redelivered.body, header, bobHook.secret)).toMatchObject({ ok: true, secretIndex: 0 });
    expect(await verifyWebhook(redelivered.body, header, [rotated.body.secret, bobHook.secret])).toMatchObject({
      ok: true,
      secretIndex: 0,
    });

    const resume = await env.app.call('POST', `/v1/pay/webhooks/${bobHook.id}/resume`, { key });
    expect(resume.status).toBe(409);
    expect(resume.body).toStrictEqual({ code: 'NOT_RESUMABLE', message: 'webhook is active, not auto-paused' });

    const listed = await env.app.call('GET', '/v1/pay/webhooks', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toEqual([bobHook.id, aliceHook.id]);
    expect(listed.text).not.toContain('whsec_');
    const one = await env.app.call('GET', `/v1/pay/webhooks/${aliceHook.id}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).toStrictEqual(listed.body.webhooks[1]);

    const removed = await env.app.call('DELETE', `/v1/pay/webhooks/${bobHook.id}`, { key });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    const gone = await env.app.call('GET', `/v1/pay/webhooks/${bobHook.id}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('WEBHOOK_NOT_FOUND');
  });
});
