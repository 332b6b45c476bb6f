// The handle index fed by the identity stream: one full build, then passes that re-read only the handles the
// identity events name — a quiet registry costs no RPC call at all; a registration, a manifest record and a release
// reach the index through their events; a pruned log falls back to a full build. Local chain, both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { describeEachDialect } from '@sigil/test/support/db';
import { registerHandle, setRecord } from '@sigil/test/support/agent-registry';
import { countingReader, fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { findHandlePda, getReleaseInstruction } from '../../platform/chain/registry';
import { runIdentityPass } from '../identity-events/index';
import { runHandleIndexPass } from './index-pass';

describeEachDialect('handle index from identity events', (ctx) => {
  let chain: LocalChain;
  let wallet: KeyPairSigner;

  beforeAll(async () => {
    chain = await startLocalChain({ scenario: true, autoAdvance: false });
    wallet = await fundedWallet(chain);
    await chain.finalizeAll();
  }, 60_000);
  afterAll(() => chain?.close());

  const names = async () =>
    (await ctx.db.selectFrom('handle_index').select('name').orderBy('name').execute()).map((r) => r.name);

  it('builds once, then follows the identity log: quiet passes cost nothing, changes cost their handles', async () => {
    const { reader, calls } = countingReader(chain);
    await runIdentityPass(ctx.db, { chain: reader });
    const full = await runHandleIndexPass(ctx.db, { chain: reader, fromIdentityEvents: true });
    expect(full.added).toBeGreaterThan(0);
    expect(calls).toContain('getProgramAccounts');
    const built = await names();

    calls.length = 0;
    expect(await runHandleIndexPass(ctx.db, { chain: reader, fromIdentityEvents: true })).toMatchObject({
      added: 0,
      changed: 0,
      removed: 0,
    });
    expect(calls).toEqual([]);

    const late = `late_${ctx.dialect}`;
    const bot = `bot_${ctx.dialect}`;
    await registerHandle(chain, wallet, late);
    await registerHandle(chain, wallet, bot);
    await setRecord(chain, wallet, bot, 'text', 'agent.manifest', 'https://agents.example/bot.json');
    await chain.finalizeAll();
    await runIdentityPass(ctx.db, { chain: reader });
    calls.length = 0;
    expect(await runHandleIndexPass(ctx.db, { chain: reader, fromIdentityEvents: true })).toMatchObject({
      added: 2,
      removed: 0,
    });
    expect(calls).not.toContain('getProgramAccounts');
    const rows = await ctx.db.selectFrom('handle_index').selectAll().where('name', 'in', [late, bot]).execute();
    expect(Object.fromEntries(rows.map((r) => [r.name, r.agent]))).toEqual({ [late]: 0, [bot]: 1 });
    expect(await names()).toEqual([...built, late, bot].sort());

    const [handle] = await findHandlePda(chain.programId, late);
    const release = getReleaseInstruction({ programId: chain.programId, owner: wallet.address, handle });
    await chain.sendAndConfirm(await signedTransaction(chain, wallet, [release]), { commitment: 'finalized' });
    await runIdentityPass(ctx.db, { chain: reader });
    expect(await runHandleIndexPass(ctx.db, { chain: reader, fromIdentityEvents: true })).toMatchObject({ removed: 1 });
    expect(await names()).not.toContain(late);
  });

  it('when the log no longer holds the next event (pruned), the pass builds in full again', async () => {
    const { reader, calls } = countingReader(chain);
    await registerHandle(chain, wallet, `gap_${ctx.dialect}`);
    await registerHandle(chain, wallet, `gap2_${ctx.dialect}`);
    await chain.finalizeAll();
    await runIdentityPass(ctx.db, { chain: reader });
    const latest = await ctx.db
      .selectFrom('identity_events')
      .select('sequence')
      .orderBy('sequence', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    await ctx.db.deleteFrom('identity_events').where('sequence', '<', latest.sequence).execute();
    calls.length = 0;
    await runHandleIndexPass(ctx.db, { chain: reader, fromIdentityEvents: true });
    expect(calls).toContain('getProgramAccounts');
    expect(await names()).toContain(`gap_${ctx.dialect}`);
  });
});
