// Identity-change events over real HTTP, end to end on the local chain: identity webhooks created through the API,
// every registry change (register, records set and verified, primary set and cleared, attest and revoke, transfer,
// tokenize, release, namespace and domain) delivered signed to a local HTTPS receiver, verified by the SDK and by
// the stock `standardwebhooks` package, present in the log with identical bytes and gapless sequences; replay from a
// cursor equals the live stream; recover on both streams; rotation signs with both secrets.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { IdentityLogPageSchema } from '@sigil/contract/identity-events';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createKey } from '../../server/src/features/keys/service';
import { createLogger } from '../../server/src/platform/log';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../support/https-receiver';
import { everyChange, EVERY_CHANGE_TYPES, identityActors, type IdentityActors } from '../support/identity-world';
import { startWebhookApp, waitFor, type WebhookApp } from '../support/pay-webhooks';

const NAME = 'idweb';
let chain: LocalChain;
let env: WebhookApp;
let receiver: HttpsReceiver;
let actors: IdentityActors;
let partnerKey: string;
const hooks: Record<string, { id: string; secret: string }> = {};

const urlOf = (path: string) => `https://127.0.0.1:${receiver.port}${path}`;
const at = (path: string) => receiver.requests.filter((r) => r.url === path);
const header = (r: ReceivedRequest, name: string) => r.headers[name] as string;

const loopDelay = monitorEventLoopDelay({ resolution: 20 });

beforeAll(async () => {
  loopDelay.enable();
  chain = await startLocalChain({ scenario: false, slotMs: 100 });
  env = await startWebhookApp({ chain });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end('ok'));
  partnerKey = (
    await createKey(env.app.database.db, { account: env.app.key.key.account, name: 'partner', tier: 'partner' })
  ).secret;
  const create = async (key: string, body: Record<string, unknown>) => {
    const res = await env.app.call('POST', '/v1/identity/webhooks', { key, body });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id as string, secret: res.body.secret as string };
  };
  hooks.name = await create(env.app.key.secret, { scope: `@${NAME}`, url: urlOf('/name') });
  hooks.all = await create(partnerKey, { scope: '*', url: urlOf('/all'), description: 'everything' });
  actors = await identityActors(chain);
  // The workers' faults go to stderr: a pass that keeps failing is otherwise silent, and the tests below would only
  // see the events that never came.
  env.startWorkers({ log: createLogger({ logLevel: 'warn' }, process.stderr) });
  await everyChange(chain, NAME, actors);
}, 120_000);

// When a test fails, where the indexing stands: the pipeline's cursor, the identity stream's position, the chain's
// finalized slot and the indexer's lease, each with when it last moved (the events this file waits for come from the
// indexer alone); how long the chain takes to answer now; how late this process's event loop has run; the registry's
// transactions on the chain beside the events in the log.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const db = env.app.database.db;
  const rows = async (text: string) => (await sql.raw(text).execute(db)).rows;
  const asked = performance.now();
  const answer = await env.app.app.services.chain.getSlot('finalized').then(String, (err: Error) => err.message);
  console.error(
    'identity e2e: indexing state',
    JSON.stringify(
      {
        now: Date.now(),
        finalized: String(chain.slot('finalized')),
        rpc: { getSlot: answer, ms: Math.round(performance.now() - asked) },
        loopDelayMs: {
          p50: loopDelay.percentile(50) / 1e6,
          p99: loopDelay.percentile(99) / 1e6,
          max: loopDelay.max / 1e6,
        },
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
        kv: await rows(`select * from kv where key in ('ingest.cursor', 'pay-indexer.indexed-slot')`),
        stream: await rows('select * from identity_stream'),
        leases: await rows('select * from leases'),
        // Which change has no event: the registry's transactions as the chain holds them, beside the log.
        programTransactions: chain.ledger
          .signaturesFor(chain.programId, 'processed')
          .reverse()
          .map((r) => ({ slot: r.slot, signature: r.signature, failed: r.meta.err !== null })),
        events: await rows('select sequence, type, slot, signature from identity_events order by sequence'),
      },
      (_key, value) => (typeof value === 'bigint' ? String(value) : value),
    ),
  );
});

afterAll(async () => {
  loopDelay.disable();
  await env?.close();
  await receiver?.close();
  await chain?.close();
});

/** Every delivery to `path`, one per event (first arrival), in sequence order. */
async function deliveries(path: string, count: number) {
  const got = await waitFor(
    () => {
      const firsts = new Map<string, ReceivedRequest>();
      for (const r of at(path)) if (!firsts.has(header(r, 'webhook-id'))) firsts.set(header(r, 'webhook-id'), r);
      return firsts.size >= count ? [...firsts.values()] : undefined;
    },
    60_000,
    `${count} deliveries at ${path}`,
  );
  return got.sort((a, b) => JSON.parse(a.body.toString()).sequence - JSON.parse(b.body.toString()).sequence);
}

describe('identity events end to end', () => {
  it('every change is delivered signed: the SDK and the stock standardwebhooks package verify each delivery', async () => {
    const got = await deliveries('/all', EVERY_CHANGE_TYPES.length);
    expect(got.map((r) => JSON.parse(r.body.toString()).type)).toEqual(EVERY_CHANGE_TYPES);
    const stock = new Webhook(hooks.all!.secret);
    for (const r of got) {
      const body = JSON.parse(r.body.toString());
      expect(header(r, 'sigil-event-id')).toBe(body.id);
      expect(header(r, 'webhook-id')).toBe(body.id);
      expect(header(r, 'sigil-event-type')).toBe(body.type);
      expect(header(r, 'sigil-subscription-id')).toBe(hooks.all!.id);
      expect(header(r, 'webhook-timestamp')).toMatch(/^\d+$/);
      expect(header(r, 'sigil-signature')).toBe(
        `t=${header(r, 'webhook-timestamp')},v1=${header(r, 'sigil-signature').split(',v1=')[1]}`,
      );
      expect(await verifyWebhook(r.body, header(r, 'sigil-signature'), hooks.all!.secret)).toMatchObject({ ok: true });
      expect(await verifyWebhook(r.body, r.headers, hooks.all!.secret)).toMatchObject({ ok: true });
      // The Standard Webhooks trio alone (no Sigil-Signature): the SDK falls back to it.
      const { 'sigil-signature': _dropped, ...standardOnly } = r.headers;
      expect(await verifyWebhook(r.body, standardOnly, hooks.all!.secret)).toMatchObject({ ok: true });
      expect(await verifyWebhook(r.body, standardOnly, hooks.name!.secret)).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
      expect(stock.verify(r.body.toString(), r.headers as Record<string, string>)).toEqual(body);
      expect(() =>
        new Webhook(hooks.name!.secret).verify(r.body.toString(), r.headers as Record<string, string>),
      ).toThrow('No matching signature found');
    }
  });

  it('the log holds every delivered body byte for byte, with sequences 1..n and no gap', async () => {
    const got = await deliveries('/all', EVERY_CHANGE_TYPES.length);
    const res = await env.app.call('GET', '/v1/identity/events?limit=200', { key: env.app.key.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.body.events.map((e: { sequence: number }) => e.sequence)).toEqual(
      EVERY_CHANGE_TYPES.map((_, i) => i + 1),
    );
    expect(res.body).toMatchObject({ next_after: EVERY_CHANGE_TYPES.length, has_more: false });
    for (const r of got) expect(res.text).toContain(r.body.toString());
    // Served as stored: the bytes every event would give parsed, validated and serialized again.
    expect(res.text).toBe(JSON.stringify(IdentityLogPageSchema.parse(JSON.parse(res.text))));
  });

  it('names its bounds; a cursor beyond the latest sequence is 409 CURSOR_AHEAD naming them', async () => {
    const key = env.app.key.secret;
    const tail = await env.app.call('GET', '/v1/identity/events?limit=1', { key });
    expect(tail.status, tail.text).toBe(200);
    const latest = tail.body.latest_sequence as number;
    expect(tail.body.oldest_sequence).toBe(1);
    expect(latest).toBeGreaterThanOrEqual(EVERY_CHANGE_TYPES.length);
    const caughtUp = await env.app.call('GET', `/v1/identity/events?after=${latest}`, { key });
    expect(caughtUp.body).toMatchObject({ events: [], next_after: latest, has_more: false });
    const ahead = await env.app.call('GET', `/v1/identity/events?after=${latest + 1}`, { key });
    expect(ahead.status, ahead.text).toBe(409);
    expect(ahead.body).toStrictEqual({
      code: 'CURSOR_AHEAD',
      message: `cursor ${latest + 1} is beyond the log: it holds sequences 1..${latest}`,
    });
  });

  it('replay from a cursor equals the live stream of a scoped webhook', async () => {
    const live = await deliveries('/name', EVERY_CHANGE_TYPES.filter((_, i) => i < 10).length);
    const bodies = live.map((r) => r.body.toString());
    const first = JSON.parse(bodies[0]!).sequence as number;
    const replay: string[] = [];
    let after = first - 1;
    for (;;) {
      const res = await env.app.call('GET', `/v1/identity/events?after=${after}&handle=${NAME}&limit=3`, {
        key: env.app.key.secret,
      });
      expect(res.status, res.text).toBe(200);
      replay.push(...res.body.events.map((e: unknown) => JSON.stringify(e)));
      after = res.body.next_after;
      if (!res.body.has_more) break;
    }
    expect(replay).toEqual(bodies);
  });

  it('bad log queries are 400 with the spec body', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'BAD_REQUEST'],
      ['limit=201', 'BAD_REQUEST'],
      ['after=-1', 'BAD_REQUEST'],
      ['types=record.nope', 'INVALID_EVENT_TYPES'],
      ['wallet=0xabc', 'INVALID_WALLET'],
      ['handle=a.b', 'INVALID_SCOPE'],
    ];
    for (const [query, code] of cases) {
      const res = await env.app.call('GET', `/v1/identity/events?${query}`, { key: env.app.key.secret });
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      expect(res.body.code, query).toBe(code);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
    }
    expect((await env.app.call('GET', '/v1/identity/events')).status).toBe(401);
  });

  it('creation rules: partner scope, bad scope / url / types, 25 per account, no secret in reads', async () => {
    const key = env.app.key.secret;
    const post = (body: unknown, k = key) => env.app.call('POST', '/v1/identity/webhooks', { key: k, body });
    const star = await post({ scope: '*', url: urlOf('/x') });
    expect(star.status).toBe(403);
    expect(star.body).toStrictEqual({
      code: 'PARTNER_TIER_REQUIRED',
      message: 'scope `*` (the whole registry) needs a partner-tier key',
    });
    expect((await post({ scope: 'not a scope', url: urlOf('/x') })).body.code).toBe('INVALID_SCOPE');
    expect((await post({ scope: `@${NAME}`, url: 'http://127.0.0.1/x' })).body.code).toBe('INVALID_URL');
    expect((await post({ scope: `@${NAME}`, url: urlOf('/x'), event_types: ['payment.received'] })).body.code).toBe(
      'INVALID_EVENT_TYPES',
    );
    // Market families are accepted ahead of the market: they slot in when it lands.
    const market = await post({ scope: actors.bob.address, url: urlOf('/m'), event_types: ['offer', 'auction.*'] });
    expect(market.status, market.text).toBe(201);
    expect(market.body.event_types).toEqual(['offer.*', 'auction.*']);
    const list = await env.app.call('GET', '/v1/identity/webhooks', { key });
    expect(list.status).toBe(200);
    // The partner key belongs to the same account: its webhook is listed too.
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual([
      hooks.name!.id,
      hooks.all!.id,
      market.body.id,
    ]);
    expect(list.text).not.toContain('whsec_');
    // Another account sees none of them; pay routes do not see identity webhooks.
    expect(
      (await env.app.call('GET', `/v1/identity/webhooks/${hooks.name!.id}`, { key: env.app.otherKey.secret })).status,
    ).toBe(404);
    expect((await env.app.call('GET', `/v1/pay/webhooks/${hooks.name!.id}`, { key })).status).toBe(404);
    expect((await env.app.call('DELETE', `/v1/identity/webhooks/${market.body.id}`, { key })).status).toBe(204);
  });

  it('rotate-secret: both secrets sign during the overlap (SDK and standardwebhooks accept either); test event', async () => {
    const key = env.app.key.secret;
    const rotated = await env.app.call('POST', `/v1/identity/webhooks/${hooks.name!.id}/rotate-secret`, { key });
    expect(rotated.status, rotated.text).toBe(200);
    const test = await env.app.call('POST', `/v1/identity/webhooks/${hooks.name!.id}/test`, { key });
    expect(test.status, test.text).toBe(200);
    expect(test.body).toMatchObject({ status: 'pending', test: true, event_type: 'handle.registered' });
    const arrived = await waitFor(
      () => at('/name').find((r) => header(r, 'sigil-delivery-id') === test.body.id),
      20_000,
      'test event',
    );
    const body = JSON.parse(arrived.body.toString());
    expect(body).toMatchObject({ test: true, sequence: 0, handle: { name: NAME } });
    expect(header(arrived, 'webhook-signature').split(' ')).toHaveLength(2);
    for (const secret of [rotated.body.secret, hooks.name!.secret]) {
      expect(await verifyWebhook(arrived.body, arrived.headers, secret)).toMatchObject({ ok: true });
      expect(await verifyWebhook(arrived.body, header(arrived, 'sigil-signature'), secret)).toMatchObject({ ok: true });
      expect(new Webhook(secret).verify(arrived.body.toString(), arrived.headers as Record<string, string>)).toEqual(
        body,
      );
    }
    // Test events stay out of the log.
    const log = await env.app.call('GET', '/v1/identity/events?limit=200', { key });
    expect(log.text).not.toContain(body.id);
  });

  it('recover (both streams): validated, idempotent, nothing to re-queue when all was delivered', async () => {
    const key = env.app.key.secret;
    for (const path of [`/v1/identity/webhooks/${hooks.name!.id}/recover`]) {
      const ok = await env.app.call('POST', path, { key, body: { since: 0 } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body).toEqual({ requeued: 0, pending: 0 });
      const bad = await env.app.call('POST', path, { key, body: { since: 100, until: 50 } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('BAD_REQUEST');
    }
    const other = await env.app.call('POST', `/v1/pay/webhooks/${hooks.name!.id}/recover`, { key, body: { since: 0 } });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('WEBHOOK_NOT_FOUND');
  });
});
