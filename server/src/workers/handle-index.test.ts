// The handle index worker against the local chain's demo scenario: a pass fills handle_index (the agent flagged),
// a later registration, an agent by manifest record and a release show up on the next pass, a quiet pass writes
// nothing, and the lease keeps a second replica out. Both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { describeEachDialect } from '@sigil/test/support/db';
import { registerHandle, setRecord } from '@sigil/test/support/agent-registry';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../localchain/index';
import { createChainReader } from '../platform/chain/reader';
import { findHandlePda, getReleaseInstruction } from '../platform/chain/registry';
import type { ChainReader } from '../platform/chain/types';
import { acquireLease, currentLease } from '../platform/db/index';
import { Lifecycle } from '../platform/lifecycle';
import { HANDLE_INDEX_LEASE, startHandleIndexWorker } from './handle-index';

describeEachDialect('handle index worker', (ctx) => {
  let chain: LocalChain;
  let reader: ChainReader;
  let wallet: KeyPairSigner;

  beforeAll(async () => {
    chain = await startLocalChain({ scenario: true, autoAdvance: false });
    reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    wallet = await fundedWallet(chain);
  }, 60_000);
  afterAll(() => chain?.close());

  const rows = async () =>
    Object.fromEntries(
      (await ctx.db.selectFrom('handle_index').selectAll().orderBy('name').execute()).map((r) => [r.name, r]),
    );

  it('a pass indexes every scenario handle; the demo agents are agents', async () => {
    const worker = startHandleIndexWorker({ db: ctx.db, chain: reader, holder: 'me' }, { loop: false });
    const result = await worker.runOnce();
    const scenario = chain.scenario!;
    // A released handle (the scenario's `lapsed`) is nobody's: it is not indexed.
    const live = Object.keys(scenario.handles).filter((name) => scenario.handles[name]!.authority !== null);
    const handles = live.length;
    // Every demo agent is one (type 3, or an agent.manifest record).
    const agents = Object.keys(scenario.agents).length;
    expect(result).toMatchObject({ handles, added: handles, removed: 0, agents });
    const indexed = await rows();
    expect(Object.keys(indexed)).toEqual(live.sort());
    expect(indexed.scout).toMatchObject({
      account: scenario.handles.scout!.account,
      owner: scenario.wallets.ivan!.address,
      handle_type: 3,
      agent: 1,
    });
    expect(indexed.scout!.registered_slot).toBeGreaterThan(0);
    expect(indexed.alice).toMatchObject({ agent: 0, handle_type: 0, owner: scenario.wallets.alice!.address });

    // Nothing changed on chain: the next pass writes nothing.
    const quiet = await worker.runOnce();
    expect(quiet).toMatchObject({ added: 0, changed: 0, removed: 0 });
    expect((await rows()).alice!.updated_at).toBe(indexed.alice!.updated_at);
    await worker.stop();
  });

  it('a handle registered later, an agent by manifest record and a release appear on the next pass', async () => {
    const worker = startHandleIndexWorker({ db: ctx.db, chain: reader, holder: 'me' }, { loop: false });
    await worker.runOnce();
    const late = `late_${ctx.dialect}`;
    const bot = `bot_${ctx.dialect}`;
    await registerHandle(chain, wallet, late);
    await registerHandle(chain, wallet, bot);
    await setRecord(chain, wallet, bot, 'text', 'agent.manifest', 'https://agents.example/bot.json');
    expect(await worker.runOnce()).toMatchObject({ added: 2, removed: 0 });
    const indexed = await rows();
    expect(indexed[late]).toMatchObject({ agent: 0, owner: wallet.address, handle_type: 0 });
    expect(indexed[bot]).toMatchObject({ agent: 1, handle_type: 0 });

    const [handle] = await findHandlePda(chain.programId, late);
    const release = getReleaseInstruction({ programId: chain.programId, owner: wallet.address, handle });
    await chain.sendAndConfirm(await signedTransaction(chain, wallet, [release]));
    expect(await worker.runOnce()).toMatchObject({ removed: 1 });
    expect((await rows())[late]).toBeUndefined();
    await worker.stop();
  });

  it('another replica holding the lease keeps this one from scanning', async () => {
    await acquireLease(ctx.db, HANDLE_INDEX_LEASE, 'other-replica', 60_000);
    const worker = startHandleIndexWorker({ db: ctx.db, chain: reader, holder: 'me' }, { loop: false });
    expect(await worker.runOnce()).toBeNull();
    await worker.stop();
  });
  it('running on its own: passes every interval; the lifecycle stops it and frees the lease', async () => {
    await ctx.db.deleteFrom('leases').execute();
    await ctx.db.deleteFrom('handle_index').execute();
    const lifecycle = new Lifecycle();
    startHandleIndexWorker({ db: ctx.db, chain: reader, holder: 'looping', intervalMs: 50, lifecycle });
    const late = `loop_${ctx.dialect}`;
    await registerHandle(chain, wallet, late);
    const deadline = Date.now() + 10_000;
    while (!(await rows())[late] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await rows())[late]).toBeDefined();
    expect((await currentLease(ctx.db, HANDLE_INDEX_LEASE))?.holder).toBe('looping');
    await lifecycle.stopAll();
    expect(await currentLease(ctx.db, HANDLE_INDEX_LEASE)).toBeUndefined();
  });
});
