// The Postgres key step's batch statement failing (admit-batch.ts, admit.queries.ts): a statement that fails fails
// every request of its batch, each as a lone key step's failure does, and counts nothing; a deadlock (40P01) is run
// again, 3 attempts in all, and each request then gets its exact answer, counted once; the next batch is served as
// usual. docs/rate-limits.md "The key step".
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { RawNode, sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshDatabase, postgresReachable, type FreshDatabase } from '@sigil/test/support/db';
import { setUsage } from '@sigil/test/support/ratelimit-usage';
import type { Database } from '../../platform/db/index';
import { createLogger } from '../../platform/log';
import { createKeyGate } from './gate';
import { admitKeyRequest, createKey, createKeysService } from './service';

const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const DEADLOCK = '40P01';
/** query_canceled: what a statement_timeout gives, a failure that running the statement again would not cure. */
const CANCELED = '57014';
const account = () => base58.encode(randomBytes(32));
const log = createLogger({ logLevel: 'silent' });

/**
 * The faults go in through a Kysely plugin on a derived handle (`db.withPlugin`): the key step runs its batch on the
 * handle it is given (withoutFsync keeps a derived handle as it is), so nothing in the code under test changes. While
 * SQLSTATEs are queued, the plugin appends to the batch statement a filter on its result rows that raises the next
 * one at a row the upsert counted: the driver returns a real Postgres error from a statement that had already
 * written, and Postgres undoes that statement whole — what happens to the statement a deadlock picks.
 */
function faultInjector() {
  const faults: string[] = [];
  let sent = 0;
  const plugin: KyselyPlugin = {
    transformQuery({ node }) {
      if (!RawNode.is(node) || !node.sqlFragments.some((f) => f.includes('counted AS ('))) return node;
      sent++;
      const code = faults.shift();
      if (code === undefined) return node;
      const fragments = [...node.sqlFragments];
      fragments.push(`${fragments.pop()!} WHERE injected_fault('${code}', counted.key_id IS NOT NULL)`);
      return RawNode.create(fragments, node.parameters);
    },
    transformResult: async ({ result }) => result,
  };
  return {
    plugin,
    /** The SQLSTATEs the next batch statements fail with, one attempt each. */
    fail: (...codes: string[]) => void faults.push(...codes),
    /** No fault queued, nothing sent: each test starts here, whatever a failing one left behind. */
    reset: () => {
      faults.length = 0;
      sent = 0;
    },
    /** Batch statements sent since the last call (each attempt is one). */
    sentSinceLast: () => {
      const n = sent;
      sent = 0;
      return n;
    },
  };
}

describe.skipIf(!postgresReachable)('the key step batch statement failing [postgres]', () => {
  let database: FreshDatabase;
  let faulty: Kysely<Database>;
  let injector: ReturnType<typeof faultInjector>;

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    // Raises `code` on the first result row whose key the upsert counted (so the statement has written by then).
    await sql`CREATE FUNCTION injected_fault(code text, counted boolean) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF counted THEN RAISE EXCEPTION 'injected fault %', code USING ERRCODE = code; END IF;
        RETURN true;
      END $$`.execute(database.db);
    injector = faultInjector();
    faulty = database.db.withPlugin(injector.plugin);
  });
  beforeEach(() => injector.reset());
  afterAll(async () => {
    await database?.drop();
  });

  const newKeys = (n: number) =>
    Promise.all(Array.from({ length: n }, () => createKey(database.db, { account: account() })));
  /** The keys' rate_limits rows as stored, in key order (nothing counted: equal before and after). */
  const rowsOf = (keyIds: string[]) =>
    database.db.selectFrom('rate_limits').selectAll().where('key_id', 'in', keyIds).orderBy('key_id').execute();
  /** The call site's view (trpc/procedures.ts authenticateApiKey → KeyGate.admit) on the faulty handle. */
  const gate = () => createKeyGate({ keys: createKeysService({ db: faulty }) });
  /** One turn of key steps at NOW: the remaining minute count each was told, or its failure. */
  const turn = (asks: { secret: string; cost: number }[]) =>
    Promise.allSettled(asks.map(({ secret, cost }) => admitKeyRequest(faulty, secret, cost, NOW)));
  const remainingOf = (outcome: PromiseSettledResult<Awaited<ReturnType<typeof admitKeyRequest>>>) =>
    outcome.status === 'fulfilled' ? outcome.value?.result.minute.remaining : outcome.reason;

  /** Two keys' asks in one turn: `near` has 295 of its 300 used (costs 1..4: 1+2 fit, 3 and 4 do not), `calm` none. */
  async function mixedTurn() {
    const [near, calm] = await newKeys(2);
    await setUsage(database.db, near!.key.id, { minute: 295, day: 295 }, NOW);
    const asks = [
      ...[4, 1, 3, 2].map((cost) => ({ secret: near!.secret, cost })),
      ...[1, 1, 5].map((cost) => ({ secret: calm!.secret, cost })),
    ];
    const ids = [near!.key.id, calm!.key.id];
    return { near: near!, calm: calm!, asks, ids, before: await rowsOf(ids) };
  }

  /** The mixed turn's exact answers (serial order: ascending costs per key) and its stored counts afterwards. */
  async function expectServed(m: Awaited<ReturnType<typeof mixedTurn>>, outcomes: PromiseSettledResult<unknown>[]) {
    // near: 1 → 4 left, 2 → 2 left; 3 and 4 refused, told the 2 left after the counted prefix.
    // calm: 1 → 299, 1 → 298, 5 → 293.
    expect(outcomes.map((o) => remainingOf(o as never))).toStrictEqual([2, 4, 2, 2, 299, 298, 293]);
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? (o.value as { result: { passed: boolean } }).result.passed : o)),
    ).toStrictEqual([false, true, false, true, true, true, true]);
    const after = await rowsOf(m.ids);
    const countOf = (id: string) => after.find((r) => r.key_id === id);
    expect(countOf(m.near.key.id)).toMatchObject({ minute_count: 298, day_count: 298 });
    expect(countOf(m.calm.key.id)).toMatchObject({ minute_count: 7, day_count: 7 });
  }

  it('a statement that fails fails every request of its batch as a lone key step fails, counts nothing, and is not run again; the next batch is served', async () => {
    const m = await mixedTurn();
    const keyGate = gate();
    // A lone key step whose statement fails: the gate rejects with the database's error, which the call site lets
    // through (authenticateApiKey does not catch it: the request fails with a server error).
    injector.fail(CANCELED);
    const lone = await keyGate.admit(m.calm.secret, 1, log).catch((error: unknown) => error);
    expect(lone).toMatchObject({ code: CANCELED });
    expect(injector.sentSinceLast()).toBe(1);
    // A batch of seven over two keys: every one of them gets that same failure, from the one statement.
    injector.fail(CANCELED);
    const outcomes = await Promise.allSettled(m.asks.map(({ secret, cost }) => keyGate.admit(secret, cost, log)));
    expect(outcomes.map((o) => o.status)).toStrictEqual(Array.from({ length: 7 }, () => 'rejected'));
    const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason as { code?: string });
    expect(reasons.map((r) => r.code)).toStrictEqual(Array.from({ length: 7 }, () => CANCELED));
    expect(new Set(reasons).size).toBe(1);
    expect(injector.sentSinceLast()).toBe(1);
    expect(await rowsOf(m.ids)).toStrictEqual(m.before);
    // The next batch on the same handle: every answer exact, counted once.
    await expectServed(m, await turn(m.asks));
    expect(injector.sentSinceLast()).toBe(1);
  });

  it.each([1, 2])(
    'a statement Postgres undoes for a deadlock %i time(s) is run again: every answer exact, counted once',
    async (deadlocks) => {
      const m = await mixedTurn();
      injector.fail(...Array.from({ length: deadlocks }, () => DEADLOCK));
      await expectServed(m, await turn(m.asks));
      expect(injector.sentSinceLast()).toBe(deadlocks + 1);
    },
  );

  it('a deadlock on every attempt: 3 attempts, then the batch fails as a failed statement does, nothing counted; the next batch is served', async () => {
    const m = await mixedTurn();
    // More deadlocks queued than attempts allowed: a 4th attempt would take the 4th.
    injector.fail(DEADLOCK, DEADLOCK, DEADLOCK, DEADLOCK);
    const outcomes = await Promise.allSettled(m.asks.map(({ secret, cost }) => gate().admit(secret, cost, log)));
    expect(injector.sentSinceLast()).toBe(3);
    const reasons = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : o.status));
    expect(reasons).toStrictEqual(Array.from({ length: 7 }, () => DEADLOCK));
    expect(await rowsOf(m.ids)).toStrictEqual(m.before);
    // The leftover fault is the next batch's first attempt: a deadlock it recovers from.
    await expectServed(m, await turn(m.asks));
    expect(injector.sentSinceLast()).toBe(2);
  });
});
