// What matching a block against the pay subscriptions costs the db does not depend on how many there are: the same
// payments, delivered the same way, read the same number of rows in the same number of statements with 10 and with
// 1,000 wallet subscriptions over distinct wallets, beside a tenth as many paused `@name` ones (the watched-wallet
// index is looked up by the block's own addresses, and a payment's binding candidates by its recipient; no pass loads
// every subscription). Counts, not timings. Both dialects.
import { randomBytes } from 'node:crypto';
import { getAddressDecoder, type Address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase } from '@sigil/test/support/db';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import type { ChainReader } from '../../platform/chain/types';
import { deleteWebhook, insertSubscriptions, newSubscriptionRow } from '../webhooks/index';
import { migrateToLatest } from '../../platform/db/index';
import { migrations } from '../../platform/db/migrations/index';
import { runIndexerPass } from './indexer';
import { selectPaySubscriptionsFor, selectWatchedWallets } from './queries';
import { payWebhookStream } from './stream';

const randomAddress = () => getAddressDecoder().decode(randomBytes(32)) as Address;

/** Counts the statements a Kysely instance runs and the rows they answer. */
function counting() {
  const counts = { statements: 0, rows: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      counts.statements++;
      return args.node;
    },
    transformResult: async (args) => {
      counts.rows += args.result.rows.length;
      return args.result;
    },
  };
  return { counts, plugin };
}

describeEachDialect('pay matching cost', (ctx) => {
  let chain: LocalChain;
  let reader: ChainReader;
  let payer: KeyPairSigner;

  beforeAll(async () => {
    chain = await startLocalChain({ autoAdvance: false, scenario: false });
    reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    payer = await fundedWallet(chain, 100_000_000_000n);
    await chain.finalizeAll();
  });
  afterAll(() => chain?.close());

  const subscription = (wallet: Address, createdAt: number, watchFrom: number) =>
    newSubscriptionRow(createdAt, {
      account: 'acct_match',
      key_id: 'key_match',
      scope_type: 'wallet',
      scope_value: wallet,
      wallets: JSON.stringify([wallet]),
      url: 'https://example.com/hook',
      event_types: JSON.stringify(['payment.received']),
      description: null,
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      watch_from_slot: watchFrom,
      stream: 'pay',
    });

  /**
   * A paused `@name` subscription over two other wallets: a binding candidate only for payments to them. (Active ones
   * are re-read on chain by every pass, to pause them when their scope changes: that cost grows with them by design.)
   */
  const pausedName = (n: number, createdAt: number, watchFrom: number) => ({
    ...subscription(randomAddress(), createdAt, watchFrom),
    scope_type: 'name' as const,
    scope_value: `@name${n}`,
    wallets: JSON.stringify([randomAddress(), randomAddress()]),
    status: 'paused' as const,
    paused_reason: 'scope_changed: owner changed',
  });

  /** One pass over a block paying one watched and one unwatched wallet, beside `others` watched wallets. */
  async function passCost(others: number) {
    const database = await freshDatabase(ctx.dialect);
    try {
      const from = Number(chain.slot('finalized'));
      const watched = randomAddress();
      // The other subscriptions are an hour old: no pass treats them as new (their look-back is long done).
      const hourAgo = Date.now() - 3_600_000;
      await insertSubscriptions(database.db, [
        ...Array.from({ length: others }, () => subscription(randomAddress(), hourAgo, from)),
        ...Array.from({ length: others / 10 }, (_, n) => pausedName(n, hourAgo, from)),
        subscription(watched, Date.now(), from),
      ]);
      await runIndexerPass(database.db, { chain: reader });
      for (const destination of [watched, randomAddress()]) {
        const tx = await signedTransaction(chain, payer, [
          getTransferSolInstruction({ source: payer, destination, amount: 5_000_000n }),
        ]);
        await chain.send(tx);
      }
      await chain.finalizeAll();
      const { counts, plugin } = counting();
      const result = await runIndexerPass(database.db.withPlugin(plugin), { chain: reader });
      const queued = await database.db.selectFrom('webhook_deliveries').select('event_id').execute();
      return { result, counts, queued: queued.length };
    } finally {
      await database.drop();
    }
  }

  it('reads the same rows in the same statements for 10 and 1,000 subscriptions, and delivers the same', async () => {
    const small = await passCost(10);
    const large = await passCost(1000);
    for (const run of [small, large]) {
      expect(run.result).toEqual({ transactions: 1, events: 1, deliveries: 1, paused: 0 });
      expect(run.queued).toBe(1);
    }
    expect(large.counts).toEqual(small.counts);
    // Not vacuous: the pass did read the db (cursor, look-back, index lookup, event, delivery).
    expect(small.counts.statements).toBeGreaterThan(5);
  });

  it('the watched-wallet index follows its subscriptions: earliest watch per wallet, active ones only, gone with them', async () => {
    const [a, b, c] = [randomAddress(), randomAddress(), randomAddress()];
    const early = subscription(a, Date.now(), 100);
    const late = subscription(a, Date.now(), 200);
    const other = subscription(b, Date.now(), 300);
    // Another stream's subscription watching `c` is not the pay stream's.
    const elsewhere = { ...subscription(c, Date.now(), 50), stream: 'identity' };
    await insertSubscriptions(ctx.db, [early, late, other, elsewhere]);
    expect(await selectWatchedWallets(ctx.db, [a, b, c, a])).toEqual(
      new Map([
        [a, 100],
        [b, 300],
      ]),
    );
    await ctx.db.updateTable('webhook_subscriptions').set({ status: 'paused' }).where('id', '=', early.id).execute();
    expect(await selectWatchedWallets(ctx.db, [a, b])).toEqual(
      new Map([
        [a, 200],
        [b, 300],
      ]),
    );
    const owner = { keyId: 'key_match', account: 'acct_match' };
    await deleteWebhook(ctx.db, payWebhookStream, owner, late.id);
    await deleteWebhook(ctx.db, payWebhookStream, owner, other.id);
    expect(await selectWatchedWallets(ctx.db, [a, b])).toEqual(new Map());
    const left = await ctx.db.selectFrom('webhook_watched_wallets').select('subscription_id').execute();
    expect(left.map((row) => row.subscription_id).sort()).toEqual([early.id, elsewhere.id].sort());
  });

  it("an event's fan-out reads only the active subscriptions watching its wallets, `@name` ones included", async () => {
    const [a, b, c, d] = [randomAddress(), randomAddress(), randomAddress(), randomAddress()];
    const named = (wallets: Address[]) => ({
      ...subscription(wallets[0]!, Date.now(), 0),
      scope_type: 'name' as const,
      scope_value: '@named',
      wallets: JSON.stringify(wallets),
    });
    const walletScope = subscription(a, Date.now(), 0);
    const [first, second] = [named([b, c]), named([d])];
    const paused = { ...subscription(a, Date.now(), 0), status: 'paused' as const };
    await insertSubscriptions(ctx.db, [walletScope, first, second, paused]);
    const ids = async (wallets: Address[]) =>
      (await selectPaySubscriptionsFor(ctx.db, wallets)).map((row) => row.id).sort();
    expect(await ids([a])).toEqual([walletScope.id]);
    expect(await ids([c])).toEqual([first.id]);
    expect(await ids([a, d])).toEqual([walletScope.id, second.id].sort());
    expect(await ids([randomAddress()])).toEqual([]);
  });

  it('the index is built from the subscriptions that exist when it is added', async () => {
    const database = await freshDatabase(ctx.dialect, { migrate: false });
    try {
      const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0018'));
      await migrateToLatest(database.db, { migrations: before });
      const [a, b] = [randomAddress(), randomAddress()];
      const named = {
        ...subscription(a, Date.now(), 7),
        scope_type: 'name' as const,
        wallets: JSON.stringify([a, b, a]),
      };
      await database.db.insertInto('webhook_subscriptions').values(named).execute();
      await migrateToLatest(database.db);
      const rows = await database.db
        .selectFrom('webhook_watched_wallets')
        .select(['wallet', 'subscription_id', 'stream', 'watch_from_slot'])
        .orderBy('wallet')
        .execute();
      expect(rows.map((row) => ({ ...row, watch_from_slot: Number(row.watch_from_slot) }))).toEqual(
        [a, b].sort().map((wallet) => ({ wallet, subscription_id: named.id, stream: 'pay', watch_from_slot: 7 })),
      );
    } finally {
      await database.drop();
    }
  });
});
