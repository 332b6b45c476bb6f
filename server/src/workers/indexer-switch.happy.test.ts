// SIGIL_PAY_WEBHOOKS=false reaches the indexer worker as `pay: false`: with a pay webhook registered, a pass makes no
// chain read for it (the pay pass does not run) and reports nothing for pay, while the pass itself completes.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { seedWebhook } from '@sigil/test/support/webhooks-world';
import type { ChainReader } from '../platform/chain/types';
import { readKv } from '../platform/db/index';
import { INDEXED_SLOT_KEY, startIndexerWorker } from './indexer';

describeEachDialect('indexer worker with pay webhooks off', (ctx) => {
  it('a pass with pay off reads nothing for the pay webhook and reports zero pay work', async () => {
    await seedWebhook(ctx.db, 'https://receiver.example/hook');
    const reads: string[] = [];
    // Every chain method but the tip throws: the pay pass, had it run for the seeded webhook, would fail.
    const chain = new Proxy({} as ChainReader, {
      get: (_t, method: string) => async () => {
        reads.push(method);
        if (method === 'getSlot') return 42n;
        throw new Error(`unexpected chain read ${method}`);
      },
    });
    const worker = startIndexerWorker({ db: ctx.db, chain, pay: false, identity: false, holder: 'h' }, { loop: false });
    expect(await worker.runOnce()).toEqual({ transactions: 0, events: 0, deliveries: 0, paused: 0, identity: null });
    expect(reads).toEqual(['getSlot']);
    expect(await readKv(ctx.db, INDEXED_SLOT_KEY)).toBe('42');
    await worker.stop();
  });

  it('the same pass with pay on reads the chain for that webhook (the switch is what kept it quiet)', async () => {
    await seedWebhook(ctx.db, 'https://receiver.example/hook', { account: 'acct_on' });
    const reads: string[] = [];
    const chain = new Proxy({} as ChainReader, {
      get: (_t, method: string) => async () => {
        reads.push(method);
        if (method === 'getSlot') return 42n;
        throw new Error(`unexpected chain read ${method}`);
      },
    });
    const worker = startIndexerWorker({ db: ctx.db, chain, identity: false, holder: 'h' }, { loop: false });
    await expect(worker.runOnce()).rejects.toThrow(/unexpected chain read/);
    expect(reads.filter((m) => m !== 'getSlot').length).toBeGreaterThan(0);
    await worker.stop();
  });
});
