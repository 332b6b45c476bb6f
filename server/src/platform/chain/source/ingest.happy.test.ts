// The ingestion pass on the local chain: the slot cursor moves only after every consumer has persisted a block, so a
// consumer dying in the middle of a block gets that block again on the next pass (and nothing after it is skipped);
// a consumer that looks back is fed the older blocks alone; a pass stops at the tip it was given, or follows the
// chain past it until its signal aborts. Both dialects.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { describeEachDialect } from '@sigil/test/support/db';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../../localchain/index';
import { readKv } from '../../db/index';
import { createChainReader } from '../reader';
import type { ChainReader } from '../types';
import { runIngestPass, type BlockConsumer } from './ingest';
import type { SourceBlock } from './types';

const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

describeEachDialect('ingestion pass', (ctx) => {
  let chain: LocalChain;
  let reader: ChainReader;
  let payer: KeyPairSigner;
  const slots: bigint[] = [];

  beforeAll(async () => {
    chain = await startLocalChain({ autoAdvance: false, scenario: false });
    reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    payer = await fundedWallet(chain);
    for (let i = 0; i < 3; i++) {
      const tx = await signedTransaction(chain, payer, [
        getTransferSolInstruction({ source: payer, destination: recipient, amount: 1_000_000n + BigInt(i) }),
      ]);
      await chain.send(tx);
      slots.push(chain.slot());
      await chain.advance(2);
    }
    await chain.finalizeAll();
  });
  afterAll(() => chain?.close());

  /** A consumer recording the signatures it persisted; it may die at one signature (once). */
  const recorder = (name: string, options: { dieAt?: string; lookBackTo?: bigint } = {}) => {
    const persisted: string[] = [];
    let died = false;
    const consumer: BlockConsumer = {
      name,
      prepare: async (stored, tip) => options.lookBackTo ?? stored ?? tip,
      consume: async (block: SourceBlock) => {
        for (const tx of block.transactions) {
          if (tx.signature === options.dieAt && !died) {
            died = true;
            throw new Error('killed in the middle of a block');
          }
          persisted.push(tx.signature);
        }
      },
    };
    return { consumer, persisted };
  };

  it('a consumer dying mid-block leaves the cursor before that block; the next pass feeds it again, nothing skipped', async () => {
    const tip = chain.slot('finalized');
    const block = (await reader.getBlock(slots[1]!))!;
    const victim = block.transactions[0]!.signature;
    const a = recorder('a', { lookBackTo: 0n });
    const b = recorder('b', { lookBackTo: 0n, dieAt: victim });
    await expect(runIngestPass(ctx.db, { chain: reader, consumers: [a.consumer, b.consumer], tip })).rejects.toThrow(
      'killed in the middle of a block',
    );
    const cursor = JSON.parse((await readKv(ctx.db, 'ingest.cursor'))!) as Record<string, string>;
    expect(BigInt(cursor.a!)).toBeLessThan(slots[1]!);
    expect(BigInt(cursor.b!)).toBe(BigInt(cursor.a!));

    // Restarted: both resume from the cursor; `a` sees the block again (its writes must be idempotent), `b` gets it.
    const a2 = recorder('a');
    const b2 = recorder('b');
    const result = await runIngestPass(ctx.db, { chain: reader, consumers: [a2.consumer, b2.consumer], tip });
    expect(result.slot).toBe(tip);
    const all = [...b.persisted, ...b2.persisted];
    expect(all.filter((sig) => sig === victim)).toHaveLength(1);
    expect(a2.persisted[0]).toBe(victim);
    expect([...a.persisted, ...a2.persisted.slice(1)]).toEqual(all);
  });

  it('a consumer looking back gets the older blocks alone; the others only the new ones', async () => {
    const tip = chain.slot('finalized');
    const behind = recorder('a', { lookBackTo: slots[0]! });
    const current = recorder('b');
    await runIngestPass(ctx.db, { chain: reader, consumers: [behind.consumer, current.consumer], tip });
    expect(behind.persisted).toHaveLength(2); // the blocks of slots[1] and slots[2]
    expect(current.persisted).toEqual([]);
  });

  /** A transfer sent in a slot of its own and finalized: its signature, and the finalized tip after it. */
  const finalizedTransfer = async (amount: bigint) => {
    await chain.advance(1);
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient, amount }),
    ]);
    const { signature } = await chain.send(tx);
    await chain.finalizeAll();
    return { signature, tip: chain.slot('finalized') };
  };

  it('an RPC fault fails the pass, the cursor stays, the next pass completes', async () => {
    const { signature, tip } = await finalizedTransfer(2_000_000n);
    chain.faults.set({ rpcError: { code: -32005, message: 'Node is behind' }, methods: ['getBlock'] });
    const one = recorder('a');
    await expect(runIngestPass(ctx.db, { chain: reader, consumers: [one.consumer], tip })).rejects.toThrow(/getBlock/);
    chain.faults.clear();
    const two = recorder('a');
    await runIngestPass(ctx.db, { chain: reader, consumers: [two.consumer], tip });
    expect([...one.persisted, ...two.persisted]).toEqual([signature]);
  });

  it('reads slower than the pass waits: the blocks read are still consumed, so every pass makes progress', async () => {
    const first = await finalizedTransfer(4_000_000n);
    const { signature, tip } = await finalizedTransfer(4_000_001n);
    const sent = [first.signature, signature];
    // Each getBlock answers after the pass has stopped waiting for the next block (idleMs): before, the pass
    // dropped what those reads brought and ended with nothing, every time.
    chain.faults.set({ delayMs: 150, methods: ['getBlock'] });
    const slow = recorder('a');
    try {
      const passes: number[] = [];
      while (!sent.every((s) => slow.persisted.includes(s)) && passes.length < 20) {
        passes.push(
          (await runIngestPass(ctx.db, { chain: reader, consumers: [slow.consumer], tip, idleMs: 20 })).blocks,
        );
      }
      expect(slow.persisted).toEqual(sent);
      expect(passes.every((blocks) => blocks > 0)).toBe(true);
    } finally {
      chain.faults.clear();
    }
  });

  it('a read that fails after the pass stopped waiting fails the pass: a slow node is reported, not silent', async () => {
    const { signature, tip } = await finalizedTransfer(5_000_000n);
    const impatient = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 100 });
    chain.faults.set({ delayMs: 300, methods: ['getBlock'] });
    const one = recorder('a');
    try {
      await expect(
        runIngestPass(ctx.db, { chain: impatient, consumers: [one.consumer], tip, idleMs: 20 }),
      ).rejects.toThrow(/getBlock/);
    } finally {
      chain.faults.clear();
    }
    const two = recorder('a');
    await runIngestPass(ctx.db, { chain: reader, consumers: [two.consumer], tip });
    expect([...one.persisted, ...two.persisted]).toEqual([signature]);
  });

  it('a following pass hands over a block finalized after it started, and ends when its signal aborts', async () => {
    const tip = chain.slot('finalized');
    const follower = recorder('a');
    const stop = new AbortController();
    const passing = runIngestPass(ctx.db, {
      chain: reader,
      consumers: [follower.consumer],
      tip,
      followMs: 600_000,
      signal: stop.signal,
    });
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: recipient, amount: 3_000_000n }),
    ]);
    const { signature } = await chain.send(tx);
    await chain.finalizeAll();
    while (!follower.persisted.includes(signature)) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    const result = await passing;
    expect(follower.persisted).toEqual([signature]);
    expect(result.slot).toBeGreaterThan(tip);
    const cursor = JSON.parse((await readKv(ctx.db, 'ingest.cursor'))!) as Record<string, string>;
    expect(BigInt(cursor.a!)).toBe(result.slot);
  });
});
