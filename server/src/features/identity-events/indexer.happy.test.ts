// The identity indexer on the local chain, both dialects: one event per registry change with its before/after,
// sequences 1..n without gaps, replays add nothing, a pass that dies mid-stream loses and duplicates nothing, and
// identity webhooks get exactly the events of their scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  IdentityEventSchema,
  IdentityLogPageSchema,
  type IdentityEvent,
  type IdentityEventsQuery,
} from '@sigil/contract/identity-events';
import { describeEachDialect, freshDatabase } from '@sigil/test/support/db';
import {
  everyChange,
  EVERY_CHANGE_TYPES,
  identityActors,
  type IdentityActors,
} from '@sigil/test/support/identity-world';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import type { ChainReader } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import type { Kysely } from 'kysely';
import { runIdentityPass } from './indexer';
import { createIdentityWebhook, readIdentityLog } from './service';
import { createQueueSignal } from '../webhooks/index';

let chain: LocalChain;
let reader: ChainReader;
let actors: IdentityActors;
const NAME = 'idtest';

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  actors = await identityActors(chain);
  await everyChange(chain, NAME, actors);
});
afterAll(() => chain?.close());

async function log(db: Kysely<Database>): Promise<{ events: IdentityEvent[]; raw: string[] }> {
  const rows = await db
    .selectFrom('identity_events')
    .select(['payload'])
    .where('test', '=', 0)
    .orderBy('sequence')
    .execute();
  return { events: rows.map((r) => JSON.parse(r.payload) as IdentityEvent), raw: rows.map((r) => r.payload) };
}

const byType = (events: IdentityEvent[], type: string) => events.filter((e) => e.type === type);

describeEachDialect('identity indexer', (ctx) => {
  const caller = { keyId: 'key_test', account: 'acct_identity', tier: 'free' as const };
  const deps = () => ({
    db: ctx.db,
    allowLoopback: false,
    queued: createQueueSignal(),
    resolver: async () => [{ address: '93.184.216.34', family: 4 as const }],
  });
  let all: IdentityEvent[] = [];
  let raw: string[] = [];
  const hooks: Record<string, string> = {};

  it('derives one event per registry change, in chain order, sequences 1..n without gaps', async () => {
    // Subscriptions made before the changes: they receive them (the log serves earlier events to anyone).
    for (const scope of [`@${NAME}`, actors.bob.address])
      hooks[scope] = (await createIdentityWebhook(deps(), caller, { scope, url: 'https://hooks.example.com/id' })).id;
    hooks.records = (
      await createIdentityWebhook(deps(), caller, {
        scope: `@${NAME}`,
        url: 'https://hooks.example.com/records',
        event_types: ['record'],
      })
    ).id;
    // The registry-wide scope is for partner keys only.
    await expect(
      createIdentityWebhook(deps(), caller, { scope: '*', url: 'https://hooks.example.com/all' }),
    ).rejects.toMatchObject({ code: 'PARTNER_TIER_REQUIRED' });
    hooks.all = (
      await createIdentityWebhook(
        deps(),
        { ...caller, tier: 'partner' },
        { scope: '*', url: 'https://hooks.example.com/all' },
      )
    ).id;

    const result = await runIdentityPass(ctx.db, { chain: reader });
    ({ events: all, raw } = await log(ctx.db));
    expect(all.map((e) => e.type)).toEqual(EVERY_CHANGE_TYPES);
    expect(result.events).toBe(EVERY_CHANGE_TYPES.length);
    expect(all.map((e) => e.sequence)).toEqual(EVERY_CHANGE_TYPES.map((_, i) => i + 1));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    for (const [i, e] of all.entries()) {
      expect(IdentityEventSchema.parse(e)).toEqual(e);
      expect(JSON.stringify(IdentityEventSchema.parse(e))).toBe(raw[i]); // stored in the schema's key order
      expect(e.chain.commitment).toBe('finalized');
      expect(e.schema).toBe('sigil.identity-events/v1');
      expect(e.id).toMatch(/^iev_[1-9A-HJ-NP-Za-km-z]+$/);
    }
  });

  it('carries the handle, the actors and the change with before and after', () => {
    const { alice, bob, till, attester } = actors;
    const [registered] = byType(all, 'handle.registered');
    expect(registered).toMatchObject({
      handle: { name: NAME },
      actors: { signer: alice.address, owner: alice.address },
      change: { handleType: 0, owner: { before: null, after: alice.address } },
    });
    const texts = byType(all, 'record.set').filter((e) => e.type === 'record.set' && e.change.key === 'bio');
    expect(texts.map((e) => e.type === 'record.set' && e.change.value)).toEqual([
      { before: null, after: 'first' },
      { before: 'first', after: 'second' },
    ]);
    expect(byType(all, 'record.verified')[0]).toMatchObject({
      change: { kind: 'address', key: 'X1', value: till.address, verified: { before: false, after: true } },
    });
    expect(byType(all, 'primary.set')[0]).toMatchObject({
      change: { wallet: alice.address, primary: { before: null, after: NAME } },
    });
    expect(byType(all, 'attestation.created')[0]).toMatchObject({
      actors: { issuer: attester.address },
      change: { platform: 'github', subject: `${NAME}-gh`, expiresAt: null },
    });
    expect(byType(all, 'attestation.revoked')[0]).toMatchObject({
      handle: { name: NAME },
      change: { platform: 'github', revoked: { before: false, after: true } },
    });
    expect(byType(all, 'handle.transferred')[0]).toMatchObject({
      actors: { owner: alice.address, newOwner: bob.address },
      change: { owner: { before: alice.address, after: bob.address } },
    });
    expect(byType(all, 'primary.cleared')[0]).toMatchObject({
      handle: { name: NAME },
      change: { wallet: alice.address, primary: { before: NAME, after: null }, reason: 'handle_transferred' },
    });
    expect(byType(all, 'handle.tokenized')[0]).toMatchObject({
      handle: { name: `${NAME}nft` },
      change: { tokenized: { before: false, after: true } },
    });
    expect(byType(all, 'handle.released')[0]).toMatchObject({
      handle: { name: `${NAME}gone` },
      change: { owner: { before: bob.address, after: null } },
    });
    expect(byType(all, 'domain.registered')[0]).toMatchObject({
      handle: null,
      change: { domain: { label: 'home', tld: NAME }, owner: { before: null, after: bob.address } },
    });
  });

  it('fans out to the webhooks whose scope and types match, once per event', async () => {
    const delivered = async (id: string) =>
      (
        await ctx.db
          .selectFrom('webhook_deliveries')
          .select('event_id')
          .where('webhook_id', '=', id)
          .orderBy('event_id')
          .execute()
      ).map((r) => r.event_id);
    const ids = (events: IdentityEvent[]) => events.map((e) => e.id).sort();
    expect(await delivered(hooks[`@${NAME}`]!)).toEqual(ids(all.filter((e) => e.handle?.name === NAME)));
    expect(await delivered(hooks.records!)).toEqual(
      ids(all.filter((e) => e.handle?.name === NAME && e.type.startsWith('record.'))),
    );
    expect(await delivered(hooks[actors.bob.address]!)).toEqual(
      ids(all.filter((e) => Object.values(e.actors).includes(actors.bob.address))),
    );
    expect(await delivered(hooks.all!)).toEqual(ids(all));
  });

  it('a second pass (a restart) adds nothing', async () => {
    expect(await runIdentityPass(ctx.db, { chain: reader })).toEqual({ transactions: 0, events: 0, deliveries: 0 });
    expect((await log(ctx.db)).raw).toEqual(raw);
  });

  it('a pass that dies mid-stream leaves no gap and no duplicate; the next one ends where an unbroken run does', async () => {
    const d = await freshDatabase(ctx.dialect);
    try {
      // Every event is in one block here, so the pass must die inside it: its clock (read once to prepare, then
      // once per registry transaction before its commit) throws half-way through the block's transactions.
      let ticks = 0;
      const dieAt = 2 + Math.floor(all.length / 2);
      const dying = () => {
        if (++ticks === dieAt) throw new Error('rpc died');
        return Date.now();
      };
      await expect(runIdentityPass(d.db, { chain: reader, now: dying })).rejects.toThrow('rpc died');
      const partial = await log(d.db);
      expect(partial.events.length).toBeGreaterThan(0);
      expect(partial.events.length).toBeLessThan(all.length);
      expect(partial.events.map((e) => e.sequence)).toEqual(partial.events.map((_, i) => i + 1));
      await runIdentityPass(d.db, { chain: reader });
      expect((await log(d.db)).raw).toEqual(raw);
    } finally {
      await d.drop();
    }
  });

  it('the log: cursor, filters, page bounds', async () => {
    const page1 = (await readIdentityLog(ctx.db, { limit: 5 })).toJSON();
    expect(page1.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(page1).toMatchObject({ next_after: 5, has_more: true });
    const rest = (await readIdentityLog(ctx.db, { after: 5, limit: 200 })).toJSON();
    expect(rest.events.map((e) => e.sequence)).toEqual(all.slice(5).map((e) => e.sequence));
    expect(rest).toMatchObject({ next_after: all.length, has_more: false });
    const records = (await readIdentityLog(ctx.db, { types: 'record.*,primary.cleared', limit: 200 })).toJSON();
    expect(records.events.map((e) => e.type)).toEqual(
      all.filter((e) => e.type.startsWith('record.') || e.type === 'primary.cleared').map((e) => e.type),
    );
    const nft = (await readIdentityLog(ctx.db, { handle: `@${NAME}nft`, limit: 200 })).toJSON();
    expect(nft.events.map((e) => e.type)).toEqual(['handle.registered', 'handle.tokenized']);
    const alice = (await readIdentityLog(ctx.db, { wallet: actors.alice.address, limit: 200 })).toJSON();
    expect(alice.events.map((e) => e.sequence)).toEqual(
      all.filter((e) => Object.values(e.actors).includes(actors.alice.address)).map((e) => e.sequence),
    );
  });

  it('serves each page as stored: the bytes of parsing, validating and serializing every event again', async () => {
    const first = await readIdentityLog(ctx.db, { limit: 5 });
    expect(first.text).toBe(
      `{"events":[${raw.slice(0, 5).join(',')}],"next_after":5,"has_more":true,"oldest_sequence":1,` +
        `"latest_sequence":${all.length}}`,
    );
    const queries: IdentityEventsQuery[] = [
      { limit: 200 },
      { after: 3, limit: 7 },
      { types: 'record.*,primary.cleared,handle', limit: 200 },
      { handle: `@${NAME}nft`, limit: 1 },
      { wallet: actors.alice.address, limit: 200 },
      { after: all.length, limit: 10 },
    ];
    for (const query of queries) {
      const stored = await readIdentityLog(ctx.db, query);
      expect(stored.text).toBe(JSON.stringify(IdentityLogPageSchema.parse(stored.toJSON())));
    }
    // The whole log is on the first of those pages: every event type, each body as its deliveries carried it.
    const whole = (await readIdentityLog(ctx.db, { limit: 200 })).toJSON();
    expect(new Set(whole.events.map((e) => e.type)).size).toBe(new Set(all.map((e) => e.type)).size);
    expect(whole.events.map((e) => JSON.stringify(e))).toEqual(raw);
  });
});

describe('identity event ids', () => {
  it('are derived from the chain position: the same change always has the same id', async () => {
    const { identityEventId } = await import('@sigil/contract/identity-events');
    expect(identityEventId('5'.repeat(88), 2, -1, 0)).toBe(identityEventId('5'.repeat(88), 2, -1, 0));
    expect(identityEventId('5'.repeat(88), 2, -1, 0)).not.toBe(identityEventId('5'.repeat(88), 2, -1, 1));
  });
});
