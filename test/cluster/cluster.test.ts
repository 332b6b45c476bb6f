// Scale-out proven over HTTP: three real service processes (server/src/main.ts) on one Postgres database, each on its
// own port, the load spread across them by a small load balancer in this test (round robin; a request that got no
// answer at all, e.g. a refused connection during a restart, is retried on the next replica, as a proxy does).
// Figures are in docs/deploy.md ("Scale-out"). CLUSTER_SCALE=N multiplies the load of every scenario for longer runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { getTransferSolInstruction } from '@solana-program/system';
import { base58 } from '@scure/base';
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { WEBHOOK_HEADERS } from '@sigil/contract/http-headers';
import { payEventId } from '@sigil/contract/pay-events';
import { freshDatabase, postgresReachable, type FreshDatabase } from '@sigil/test/support/db';
import {
  selfSignedCert,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
} from '@sigil/test/support/https-receiver';
import {
  exec,
  fundedWallet,
  queueEvents,
  registerName,
  seedWebhook,
  signRaw,
} from '@sigil/test/support/webhooks-world';
import { pageBaseOf } from '@sigil/test/support/oidc-page';
import { awayFromMinuteEdge } from '@sigil/test/support/ratelimit-usage';
import { startX402Chain, type X402Chain } from '@sigil/test/support/x402-app';
import { X402_HEADERS, encodeBase64Json } from '@sigil/contract/x402';
import { paymentInstructions, requestChallenge, sendInstructions, signRedeemMessage } from '@sigil/client-sdk/x402';
import { createKey, ensurePortalKey } from '../../server/src/features/keys/service';
import { hashClientSecret } from '../../server/src/features/oidc/clients';
import { putClientRow } from '../../server/src/features/oidc/queries';
import type { LocalChain } from '../../server/src/localchain/index';
import { currentLease } from '../../server/src/platform/db/index';
import { INDEXER_LEASE } from '../../server/src/workers/indexer';

const SCALE = Math.max(1, Number(process.env.CLUSTER_SCALE ?? 1));
const root = join(import.meta.dirname, '../..');
const PORTAL_DOMAIN = 'portal.sigil.test';
/** Failover: payments before the kill and after the takeover; in between, one every PAY_EVERY_MS. */
const PHASE_PAYMENTS = 4 * SCALE;
const PAY_EVERY_MS = Math.round(1000 / SCALE);
/**
 * How long after the killed holder's lease lapses another replica may take it: the worker tries once a second
 * (its interval) and this test polls every 200 ms; the rest is room for a loaded shared machine.
 */
const TAKEOVER_SLACK_MS = 5_000;

interface Replica {
  index: number;
  port: number;
  base: string;
  child: ChildProcess;
  output: string;
}

let db: FreshDatabase;
let x402: X402Chain;
let chain: LocalChain;
let receiver: HttpsReceiver;
let dir: string;
const replicas: Replica[] = [];
/** Replicas the load balancer sends to (an orchestrator takes a replica out before it stops it). */
const inRotation = new Set<number>();

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

async function startReplica(index: number, port: number): Promise<Replica> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server/src/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: db.url,
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      SIGIL_PORTAL_DOMAIN: PORTAL_DOMAIN,
      SIGIL_PUBLIC_URL: 'https://api.sigil.test',
      SIGIL_X402_PAY_TO: x402.payTo.address,
      // Shared secrets: every replica must sign and verify alike (docs/deploy.md "What replicas must share").
      SIGIL_X402_NONCE_SECRET: 'cluster-nonce-secret-0123456789abcdefgh',
      SIGIL_RESOLVE_CACHE_MS: '0',
      SIGIL_HANDLE_INDEX_INTERVAL_MS: '0',
      SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true',
      SIGIL_OUTBOUND_CA_FILE: join(dir, 'receiver-ca.pem'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const replica: Replica = { index, port, base: `http://127.0.0.1:${port}`, child, output: '' };
  child.stdout!.on('data', (c) => (replica.output += c));
  child.stderr!.on('data', (c) => (replica.output += c));
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    const up = await fetch(`${replica.base}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) return replica;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`replica ${index} did not become ready:\n${replica.output}`);
}

let next = 0;
/** One request through the load balancer: round robin over the replicas in rotation; no answer → next replica. */
async function send(path: string, init: RequestInit = {}): Promise<Response> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 6; attempt++) {
    const pool = [...inRotation];
    const replica = replicas[pool[next++ % pool.length]!]!;
    try {
      return await fetch(replica.base + path, init);
    } catch (err) {
      lastError = err; // connection refused or reset before any answer
    }
  }
  throw lastError;
}

const keyed = (secret: string, body?: unknown): RequestInit => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: { 'x-api-key': secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});

async function freeKey() {
  return createKey(db.db, { account: base58.encode(randomBytes(32)), name: 'cluster' });
}

/** Waits (bounded) until `done()` holds; the assertion that follows says what was expected. */
async function until(done: () => boolean | Promise<boolean>, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await done()) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
}

const deliveries = new Map<string, number>();
/** While set, the receiver answers nothing on FAILOVER_PATH: the senders' attempts stay in flight. */
let held: ServerResponse[] | null = null;
const FAILOVER_PATH = '/failover';

const run = postgresReachable ? describe : describe.skip;

run('three replicas on one Postgres, over HTTP', () => {
  beforeAll(async () => {
    db = await freshDatabase('postgres');
    // The chain x402 needs (funded payers, a payee with token accounts; slots advance when the test finalizes).
    x402 = await startX402Chain();
    chain = x402.chain;
    dir = mkdtempSync(join(tmpdir(), 'sigil-cluster-'));
    writeFileSync(join(dir, 'receiver-ca.pem'), selfSignedCert().cert);
    receiver = await startHttpsReceiver((req, res) => {
      const id = String(req.headers[WEBHOOK_HEADERS.deliveryId.toLowerCase()] ?? '');
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
      if (held && req.url === FAILOVER_PATH) held.push(res);
      else res.writeHead(200).end();
    });
    // The portal key exists before the replicas start, so none of them generates its own.
    await ensurePortalKey(db.db, { domain: PORTAL_DOMAIN });
    const ports = await Promise.all([0, 1, 2].map(() => freePort()));
    for (const [i, port] of ports.entries()) {
      replicas.push(await startReplica(i, port));
      inRotation.add(i);
    }
  }, 300_000);

  afterAll(async () => {
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await receiver?.close();
    await x402?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rate limit: 1,000 concurrent keyed requests on one free key → exactly 300 admitted, 700 × 429', async () => {
    // The window is the UTC minute: start in its first third, so the burst (10-20 s here) does not straddle two.
    await awayFromMinuteEdge(40_000);
    const key = await freeKey();
    const statuses = await Promise.all(
      Array.from({ length: 1000 }, () => send('/v1/pay/webhooks', keyed(key.secret)).then((r) => r.status)),
    );
    const count = (s: number) => statuses.filter((x) => x === s).length;
    expect({ admitted: count(200), limited: count(429), other: statuses.length - count(200) - count(429) }).toEqual({
      admitted: 300,
      limited: 700,
      other: 0,
    });
  }, 120_000);

  it('single use: 50 concurrent verifies of one signed Connect proof → exactly one 200', async () => {
    const key = await freeKey();
    const wallet = await generateKeyPairSigner();
    const challenge = await send('/v1/auth/challenge', keyed(key.secret, { wallet: wallet.address }));
    expect(challenge.status).toBe(200);
    const proof = await signChallenge(await challenge.json(), wallet, key.key.id);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => send('/v1/auth/verify', keyed(key.secret, proof)).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s >= 500)).toHaveLength(0);
  }, 60_000);

  it('single use: 50 concurrent registrations with one signed webhook challenge → exactly one 2xx', async () => {
    const key = await freeKey();
    const wallet = await generateKeyPairSigner();
    const url = `https://127.0.0.1:${receiver.port}/hook`;
    const challenge = await send('/v1/pay/webhooks/challenge', keyed(key.secret, { scope: wallet.address, url }));
    expect(challenge.status).toBe(200);
    const { nonce, message } = await challenge.json();
    const body = { nonce, signature: await signRaw(wallet, message) };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        send('/v1/pay/webhooks', keyed(key.secret, body)).then(async (r) => ({
          status: r.status,
          body: await r.json(),
        })),
      ),
    );
    expect(answers.filter((a) => a.status >= 200 && a.status < 300)).toHaveLength(1);
    expect(answers.filter((a) => a.status >= 300).map((a) => a.body.code)).toEqual(Array(49).fill('CHALLENGE_INVALID'));
  }, 60_000);

  it('single use: 50 concurrent redemptions of one x402 payment → exactly one 200', async () => {
    const path = '/v1/resolve/alice';
    const payer = x402.payer1;
    const { entry } = await requestChallenge({ url: replicas[0]!.base + path }, payer.address);
    expect(entry).not.toBeNull();
    const signature = await sendInstructions(chain.rpc, payer, await paymentInstructions(chain.rpc, entry!, payer));
    await chain.finalizeAll();
    const payload = { signature, payerSig: await signRedeemMessage(payer, entry!.extra.redeemMessage!) };
    const network = `solana:${chain.genesisHash.slice(0, 32)}`;
    const headers = {
      [X402_HEADERS.payer]: payer.address,
      [X402_HEADERS.payment]: encodeBase64Json({ x402Version: 2, accepted: { scheme: 'exact', network }, payload }),
    };
    const statuses = await Promise.all(Array.from({ length: 50 }, () => send(path, { headers }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  }, 60_000);

  it('single use: 50 concurrent exchanges of one OpenID Connect code across the replicas → exactly one gets tokens', async () => {
    // A client registered on a fresh key (the registration row as PUT /v1/keys/{id}/oidc writes it).
    const key = await freeKey();
    const clientSecret = `sigil_cs_${base58.encode(randomBytes(32))}`;
    const redirectUri = 'http://127.0.0.1:1/callback';
    await putClientRow(db.db, {
      key_id: key.key.id,
      client_type: 'confidential',
      secret_hash: hashClientSecret(clientSecret),
      redirect_uris: JSON.stringify([redirectUri]),
      post_logout_redirect_uris: '[]',
      scopes: 'openid profile wallet attestations',
      backchannel_logout_uri: null,
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    // A browser whose every step goes through the load balancer (so the steps land on different replicas).
    const cookies = new Map<string, string>();
    const browse = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
      const res = await send(path, { ...init, headers, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(';')[0]!;
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      return res;
    };
    const pathOf = (location: string | null) => {
      const url = new URL(location!, 'https://api.sigil.test');
      return url.pathname + url.search;
    };
    const verifier = base58.encode(randomBytes(32));
    const challengeHash = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const authorize = new URLSearchParams({
      client_id: key.key.id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid wallet',
      code_challenge: challengeHash.toString('base64url'),
      code_challenge_method: 'S256',
    });
    // The authorization endpoint answers with the sign-in page, whose steps post to the interaction's path.
    const started = await browse(`/oidc/auth?${authorize}`);
    expect(started.status).toBe(200);
    const page = pageBaseOf(await started.text());
    expect(page).toMatch(/^\/oidc\/interaction\//);
    const wallet = await generateKeyPairSigner();
    const json = (body: unknown): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const challenge = await browse(`${page}/challenge`, json({ wallet: wallet.address }));
    expect(challenge.status).toBe(200);
    const proof = await signChallenge(await challenge.json(), wallet, key.key.id);
    const verified = await browse(`${page}/verify`, json({ path: 'verify', ...proof }));
    expect(verified.status).toBe(200);
    const resumed = await browse(pathOf((await verified.json()).redirect_to));
    expect(resumed.status).toBe(303);
    const callback = new URL(resumed.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    const code = callback.searchParams.get('code')!;

    const basic = Buffer.from(`${encodeURIComponent(key.key.id)}:${encodeURIComponent(clientSecret)}`).toString(
      'base64',
    );
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        send('/oidc/token', {
          method: 'POST',
          headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            code_verifier: verifier,
          }).toString(),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.body).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
    for (const loser of answers.filter((a) => a.status !== 200)) {
      expect(loser).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
  }, 60_000);

  it(
    'deliveries: every replica runs the delivery worker; 500 events → each delivered exactly once',
    async () => {
      // Ten webhooks of 50 events: the spec's budget of 60 attempts per webhook per minute would hold one webhook's 500
      // back over several minutes; ten let all three workers deliver at once.
      const hooks = await Promise.all(
        Array.from({ length: 10 }, () => seedWebhook(db.db, `https://127.0.0.1:${receiver.port}/hook`)),
      );
      const ids = (await Promise.all(hooks.map((hook) => queueEvents(db.db, hook.id, 50 * SCALE)))).flat();
      const statuses = async () =>
        (
          await db.db
            .selectFrom('webhook_deliveries')
            .select(['status', (eb) => eb.fn.countAll<string>().as('n')])
            .where(
              'webhook_id',
              'in',
              hooks.map((h) => h.id),
            )
            .groupBy('status')
            .execute()
        ).map((r) => [r.status, Number(r.n)]);
      await until(() => ids.every((id) => deliveries.has(id)), 120_000 * SCALE);
      // A worker marks a delivery delivered after the receiver has answered it: the last ones may still be on their
      // way back when the receiver has seen every event.
      await until(async () => (await statuses()).length === 1, 30_000 * SCALE);
      expect(await statuses()).toEqual([['delivered', 500 * SCALE]]);
      expect(ids.filter((id) => deliveries.get(id) !== 1)).toEqual([]);
    },
    180_000 * SCALE,
  );

  it(
    'indexer lease failover: kill -9 the holder while payments flow → another replica takes the lease within its ' +
      'lifetime, every payment event arrives (duplicates with the same event id), the identity log has no gap',
    async () => {
      // A wallet watched by a pay webhook, registered over HTTP as a customer does.
      const key = (await createKey(db.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })).secret;
      const recipient = await generateKeyPairSigner();
      const url = `https://127.0.0.1:${receiver.port}${FAILOVER_PATH}`;
      const challenge = await send(
        '/v1/pay/webhooks/challenge',
        keyed(key, { scope: recipient.address, url, event_types: ['payment'] }),
      );
      expect(challenge.status).toBe(200);
      const { nonce, message } = await challenge.json();
      const created = await send(
        '/v1/pay/webhooks',
        keyed(key, { nonce, signature: await signRaw(recipient, message) }),
      );
      expect(created.status).toBe(201);
      const hook: { id: string } = await created.json();
      const arrivals = () =>
        receiver.requests.filter((r) => r.headers[WEBHOOK_HEADERS.subscriptionId.toLowerCase()] === hook.id);
      const header = (r: ReceivedRequest, name: string) => String(r.headers[name.toLowerCase()]);
      const arrivalsOf = (deliveryId: string) =>
        arrivals().filter((r) => header(r, WEBHOOK_HEADERS.deliveryId) === deliveryId).length;

      // The chain keeps moving before, during and after the kill: a native payment to the watched wallet every
      // PAY_EVERY_MS (each finalized at once), and with every fourth one a name registration (an identity event,
      // derived under the same lease).
      const payer = await fundedWallet(chain);
      const owner = await fundedWallet(chain);
      const tag = randomBytes(3).toString('hex');
      const payments: string[] = [];
      const names: string[] = [];
      let stop = false;
      const flow = (async () => {
        for (let i = 0; !stop; i++) {
          const amount = 1_000_000n + BigInt(i); // above the rent-exempt minimum: the first one creates the account
          payments.push(
            await exec(chain, payer, [
              getTransferSolInstruction({ source: payer, destination: recipient.address, amount }),
            ]),
          );
          if (i % 4 === 0) {
            const name = `failover${tag}${i}`;
            await registerName(chain, name, owner);
            names.push(name);
          }
          await new Promise((r) => setTimeout(r, PAY_EVERY_MS));
        }
      })();
      const sent = (n: number) => until(() => payments.length >= n, 60_000);

      await sent(PHASE_PAYMENTS);
      await until(async () => (await currentLease(db.db, INDEXER_LEASE)) !== undefined, 30_000);
      const holderOf = (lease: { holder: string } | undefined) =>
        replicas.find((r) => lease?.holder.includes(`:${r.child.pid}:`));
      const before = await currentLease(db.db, INDEXER_LEASE);
      const holder = holderOf(before);
      expect(holder, `lease ${before?.holder}`).toBeDefined();
      // The kill must lose work in flight: hold the receiver's answers until an attempt of the holder's delivery
      // worker (woken by its own indexer) has reached the receiver unanswered. Its claim dies with the process, so
      // another worker can send it again only once the claim lapses (60 s): the repeat at-least-once allows.
      held = [];
      let lost: string[] = [];
      await until(async () => {
        const claimed = await db.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('webhook_id', '=', hook.id)
          .where('status', '=', 'pending')
          .where('lease_holder', 'like', `%:${holder!.child.pid}:%`)
          .execute();
        lost = claimed.map((r) => r.id).filter((id) => arrivalsOf(id) > 0);
        return lost.length > 0;
      }, 30_000);
      expect(lost.length).toBeGreaterThan(0);
      inRotation.delete(holder!.index);
      holder!.child.kill('SIGKILL');
      await once(holder!.child, 'exit');
      // The surviving replicas' attempts get their answer (well within the 10 s response timeout).
      for (const res of held) res.writeHead(200).end();
      held = null;
      const sentBeforeKill = payments.length;
      // Read after the exit: the last renewal the killed replica made, so the moment its lease lapses.
      const lapsed = (await currentLease(db.db, INDEXER_LEASE, 0))!;
      expect(lapsed.holder).toBe(before!.holder);

      let takenAt = 0;
      await until(async () => {
        const now = await currentLease(db.db, INDEXER_LEASE);
        if (now === undefined || now.holder === lapsed.holder) return false;
        takenAt = Date.now();
        return true;
      }, 60_000);
      const taken = await currentLease(db.db, INDEXER_LEASE, 0);
      const successor = holderOf(taken);
      expect(successor !== undefined && successor !== holder, `lease ${taken?.holder}`).toBe(true);
      // Not before the lapse (two holders at once), and within one worker interval after it (1 s), with room for this
      // test's polling on a shared machine.
      expect(takenAt).toBeGreaterThanOrEqual(lapsed.expiresAt);
      expect(takenAt - lapsed.expiresAt).toBeLessThanOrEqual(TAKEOVER_SLACK_MS);
      const sentBeforeTakeover = payments.length;
      await sent(sentBeforeTakeover + PHASE_PAYMENTS);
      stop = true;
      await flow;
      // Payments were made while no replica held the lease (the interesting ones).
      expect(sentBeforeTakeover - sentBeforeKill).toBeGreaterThan(0);

      // Every payment's event reaches the receiver at least once; a repeat is the same delivery of the same event.
      const expected = new Map(payments.map((sig) => [payEventId(sig, 0, -1, 'payment.received'), sig]));
      await until(() => {
        const got = new Set(arrivals().map((r) => header(r, WEBHOOK_HEADERS.eventId)));
        return [...expected.keys()].every((id) => got.has(id)) && lost.every((id) => arrivalsOf(id) > 1);
      }, 150_000 * SCALE);
      const got = arrivals();
      const arrivedIds = new Set(got.map((r) => header(r, WEBHOOK_HEADERS.eventId)));
      expect([...expected.keys()].filter((id) => !arrivedIds.has(id))).toEqual([]);
      // The attempts lost with the killed replica were sent again, by another worker.
      expect(lost.filter((id) => arrivalsOf(id) < 2)).toEqual([]);
      const mismatched = got.filter((r) => {
        const event = JSON.parse(r.body.toString('utf8'));
        const eventId = header(r, WEBHOOK_HEADERS.eventId);
        return event.id !== eventId || event.chain.signature !== expected.get(eventId);
      });
      expect(mismatched.map((r) => header(r, WEBHOOK_HEADERS.eventId))).toEqual([]);
      const deliveryOf = new Map<string, Set<string>>();
      for (const r of got) {
        const eventId = header(r, WEBHOOK_HEADERS.eventId);
        deliveryOf.set(eventId, (deliveryOf.get(eventId) ?? new Set()).add(header(r, WEBHOOK_HEADERS.deliveryId)));
      }
      expect([...deliveryOf].filter(([, ids]) => ids.size !== 1).map(([id]) => id)).toEqual([]);
      const rows = await db.db
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('webhook_id', '=', hook.id)
        .execute();
      expect(rows.map((r) => r.event_id).sort()).toEqual([...expected.keys()].sort());

      // The identity log, read over HTTP: sequences 1..n without a gap, each registration in it exactly once.
      const readLog = async () => {
        const events: { sequence: number; type: string; handle: { name: string } | null }[] = [];
        for (let after = 0; ;) {
          const res = await send(`/v1/identity/events?after=${after}&limit=200`, keyed(key));
          expect(res.status).toBe(200);
          const page = await res.json();
          events.push(...page.events);
          if (!page.has_more) return events;
          after = page.next_after;
        }
      };
      const registered = (log: Awaited<ReturnType<typeof readLog>>) =>
        log
          .filter((e) => e.type === 'handle.registered' && names.includes(e.handle?.name ?? ''))
          .map((e) => e.handle!.name);
      let log = await readLog();
      await until(async () => {
        log = await readLog();
        return names.every((n) => registered(log).includes(n));
      }, 60_000);
      expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1));
      expect(registered(log).sort()).toEqual([...names].sort());

      console.info(
        `failover: ${payments.length} payments (${sentBeforeKill} before the kill, ${lost.length} attempts lost, ` +
          `${sentBeforeTakeover - sentBeforeKill} before the takeover), ${got.length} arrivals, ` +
          `takeover ${takenAt - lapsed.expiresAt} ms after the lapse, ${names.length} names, log ${log.length}`,
      );

      // The killed replica comes back for the rolling restart below.
      replicas[holder!.index] = await startReplica(holder!.index, holder!.port);
      inRotation.add(holder!.index);
    },
    300_000 * SCALE,
  );

  it('rolling restart under steady load: zero failed requests, zero lost deliveries', async () => {
    const hook = await seedWebhook(db.db, `https://127.0.0.1:${receiver.port}/hook`);
    let stop = false;
    const failures: string[] = [];
    let answered = 0;
    const key = (await createKey(db.db, { account: base58.encode(randomBytes(32)), tier: 'partner' })).secret;
    const loop = async () => {
      while (!stop) {
        try {
          const res = await send('/v1/pay/webhooks', keyed(key));
          await res.arrayBuffer();
          if (res.status !== 200 && res.status !== 429) failures.push(`status ${res.status}`);
          answered++;
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const load = Array.from({ length: 4 }, loop);
    const ids: string[] = [];
    for (const replica of [...replicas]) {
      ids.push(...(await queueEvents(db.db, hook.id, 50 * SCALE)));
      // The orchestrator takes the replica out of rotation, then sends SIGTERM (the drain answers what is in flight).
      inRotation.delete(replica.index);
      replica.child.kill('SIGTERM');
      const [code] = await once(replica.child, 'exit');
      expect(code, replica.output).toBe(0);
      replicas[replica.index] = await startReplica(replica.index, replica.port);
      inRotation.add(replica.index);
    }
    stop = true;
    await Promise.all(load);
    await until(() => ids.every((id) => deliveries.has(id)), 120_000);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect(ids.filter((id) => !deliveries.has(id))).toEqual([]);
  }, 300_000);
});
