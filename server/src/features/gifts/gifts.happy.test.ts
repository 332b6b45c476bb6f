// POST /gift/notify and GET /gift/{voucher} on the local chain, with the app's own workers: the indexer runs only
// when woken (its timer is an hour), so a gift's event reaching the log and the recipient's identity webhook proves
// the notify made it prompt; repeated notifies change nothing (one event per gift); the gift's state follows it from
// claimable to claimed or refunded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { identityEventId } from '@sigil/contract/identity-events';
import { isoSeconds } from '@sigil/contract/webhooks';
import { chainNow, claimGift, giveHandle, refundGift, type Gift } from '@sigil/test/support/gift-world';
import { startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { startWebhookApp, waitFor, type WebhookApp } from '@sigil/test/support/pay-webhooks';
import { fundedWallet } from '@sigil/test/support/webhooks-world';
import { freshDatabase } from '@sigil/test/support/db';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { readKv } from '../../platform/db/index';
import { INDEXED_SLOT_KEY } from '../../workers/indexer';
import { createRateLimiter } from '../ratelimit/index';
import { createQueueSignal } from '../webhooks/index';
import { createGiftService } from './service';

let chain: LocalChain;
let env: WebhookApp;
let receiver: HttpsReceiver;
let recipient: KeyPairSigner;
let gift: Gift;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false, slotMs: 100 });
  env = await startWebhookApp({ chain });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end('ok'));
  recipient = await fundedWallet(chain);
  const hook = await env.app.call('POST', '/v1/identity/webhooks', {
    key: env.app.key.secret,
    body: { scope: recipient.address, url: `https://127.0.0.1:${receiver.port}/recipient` },
  });
  expect(hook.status, hook.text).toBe(201);
  // The indexer's timer is an hour: after its first pass it runs again only when something wakes it.
  env.startWorkers({ intervalMs: 3_600_000 });
  await waitFor(() => readKv(env.app.database.db, INDEXED_SLOT_KEY), 20_000, 'the first indexer pass');
  gift = await giveHandle(chain, 'giftee', { recipient });
}, 120_000);

afterAll(async () => {
  await env?.close();
  await receiver?.close();
  await chain?.close();
});

const notify = (signature: string) => env.app.call('POST', '/gift/notify', { body: { signature } });
const state = (voucher: string) => env.app.call('GET', `/gift/${voucher}`);
const giftLog = async () => {
  const res = await env.app.call('GET', '/v1/identity/events?types=gift.created', { key: env.app.key.secret });
  expect(res.status, res.text).toBe(200);
  return res.body.events as { id: string; sequence: number; change: Record<string, unknown> }[];
};

describe('POST /gift/notify', () => {
  it("wakes the indexer: the gift.created event is logged and delivered to the recipient's webhook, once", async () => {
    const eventId = identityEventId(gift.signature, 0, -1, 0);
    const expected = {
      signature: gift.signature,
      slot: expect.any(Number),
      gifts: [
        {
          voucher: gift.voucher,
          handle: { account: gift.handle, name: 'giftee' },
          creator: gift.creator.address,
          recipient: recipient.address,
          expiresAt: isoSeconds(gift.expiresAt),
          event: { id: eventId, status: 'logged', sequence: expect.any(Number) },
        },
      ],
    };
    // The first answer may come before the woken pass has committed (pending); a repeat answers the same gift.
    const first = await notify(gift.signature);
    expect(first.status, first.text).toBe(200);
    expect(['logged', 'pending']).toContain(first.body.gifts[0].event.status);
    const logged = await waitFor(
      async () => {
        const res = await notify(gift.signature);
        return res.body.gifts?.[0]?.event.status === 'logged' ? res : undefined;
      },
      20_000,
      'the event logged',
    );
    expect(logged.body).toEqual(expected);

    const events = await giftLog();
    expect(events.map((e) => e.id)).toEqual([eventId]);
    expect(events[0]!.sequence).toBe(logged.body.gifts[0].event.sequence);
    expect(events[0]!.change).toMatchObject({ voucher: gift.voucher, recipient: recipient.address });

    const delivered = await waitFor(
      () => receiver.requests.find((r) => r.url === '/recipient' && r.headers['webhook-id'] === eventId),
      20_000,
      'the delivery to the recipient',
    );
    expect(JSON.parse(delivered.body.toString())).toMatchObject({ id: eventId, type: 'gift.created' });

    // Idempotent: more notifies answer the same and add nothing to the log.
    for (let i = 0; i < 3; i++) expect((await notify(gift.signature)).body).toEqual(logged.body);
    expect((await giftLog()).map((e) => e.id)).toEqual([eventId]);
  });
});

describe('POST /gift/notify: a gift the log will never hold', () => {
  it('before the log’s start slot → outside_log, nothing woken or waited for', async () => {
    const d = await freshDatabase('sqlite');
    try {
      await d.db
        .insertInto('identity_stream')
        .values({ id: 'main', next_sequence: 1, start_slot: 1e9, last_signature: null, last_slot: null, updated_at: 1 })
        .execute();
      let woken = 0;
      const ingest = createQueueSignal();
      ingest.listen(() => woken++);
      const service = createGiftService({
        db: d.db,
        chain: env.app.app.services.chain,
        limiter: createRateLimiter(d.db),
        ingest,
      });
      const answer = await service.notify({ clientIp: '10.0.0.1', responseHeaders: {} }, gift.signature);
      expect(answer.gifts[0]!.event).toEqual({
        id: identityEventId(gift.signature, 0, -1, 0),
        status: 'outside_log',
        sequence: null,
      });
      expect(woken).toBe(0);
    } finally {
      await d.drop();
    }
  });
});

describe('GET /gift/{voucher}', () => {
  it('claimable, then claimed once the recipient claims it', async () => {
    const common = {
      voucher: gift.voucher,
      handle: { account: gift.handle, name: 'giftee' },
      creator: gift.creator.address,
      recipient: recipient.address,
      expiresAt: isoSeconds(gift.expiresAt),
    };
    const live = await state(gift.voucher);
    expect(live.status, live.text).toBe(200);
    expect(live.body).toEqual({ ...common, state: 'claimable' });

    await claimGift(chain, gift);
    env.app.app.services.ingest.notify();
    const claimed = await waitFor(
      async () => {
        const res = await state(gift.voucher);
        return res.body?.state === 'claimed' ? res : undefined;
      },
      20_000,
      'the claim indexed',
    );
    expect(claimed.status).toBe(200);
    expect(claimed.body).toEqual({ ...common, state: 'claimed' });
  });

  it('expired past its expiry (by the clock), refunded once the creator takes it back', async () => {
    const short = await giveHandle(chain, 'giftback', { seconds: 60 });
    const common = {
      voucher: short.voucher,
      handle: { account: short.handle, name: 'giftback' },
      creator: short.creator.address,
      recipient: short.recipient.address,
      expiresAt: isoSeconds(short.expiresAt),
    };
    expect((await state(short.voucher)).body).toEqual({ ...common, state: 'claimable' });
    const later = createGiftService({
      db: env.app.database.db,
      chain: env.app.app.services.chain,
      limiter: createRateLimiter(env.app.database.db),
      ingest: createQueueSignal(),
      now: () => (short.expiresAt + 1) * 1000,
    });
    expect(await later.state(short.voucher)).toEqual({ ...common, state: 'expired' });

    await chain.warpTo(chainNow(chain) + 120);
    await refundGift(chain, short);
    env.app.app.services.ingest.notify();
    const refunded = await waitFor(
      async () => {
        const res = await state(short.voucher);
        return res.body?.state === 'refunded' ? res : undefined;
      },
      20_000,
      'the refund indexed',
    );
    expect(refunded.body).toEqual({ ...common, state: 'refunded' });

    // This gift's event came from the ingestion alone (no POST /gift/notify): a late notify finds it and adds none.
    const events = await giftLog();
    const ingested = events.find((e) => e.change.voucher === short.voucher)!;
    const late = await notify(short.signature);
    expect(late.body.gifts[0].event).toEqual({ id: ingested.id, status: 'logged', sequence: ingested.sequence });
    expect((await giftLog()).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(events.map((e) => e.change.voucher)).toEqual([gift.voucher, short.voucher]);
  });
});
