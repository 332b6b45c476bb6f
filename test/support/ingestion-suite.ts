// The ingestion test suite every chain source passes (docs/deploy.md "Chain source"): a source is handed a local
// chain and must yield its finalized blocks in strictly increasing slot order after the slot it is asked for, each
// with its transactions in block order (failed ones included), decoded exactly as getTransaction decodes them;
// never a block that is not finalized yet; skipped slots simply absent; and it ends when its signal aborts.
// Usage: describeIngestionSuite('blocks', async (chain) => ({ source: createBlockSource(reader) })).
import { address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainSource, SourceBlock } from '../../server/src/platform/chain/source/types';
import type { ChainReader } from '../../server/src/platform/chain/types';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { fundedWallet, signedTransaction } from './localchain-wallets';

export interface SourceUnderTest {
  source: ChainSource;
  close?: () => Promise<void>;
}

const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

/**
 * Takes blocks from `source` after `afterSlot` until `enough` says so (then aborts the source and checks that the
 * iteration ends). Each block is stamped with the chain's finalized slot at the moment it was handed over.
 */
export async function takeBlocks(
  source: ChainSource,
  chain: LocalChain,
  afterSlot: bigint,
  enough: (taken: SourceBlock[]) => boolean,
): Promise<(SourceBlock & { finalizedAtYield: bigint })[]> {
  const controller = new AbortController();
  const taken: (SourceBlock & { finalizedAtYield: bigint })[] = [];
  for await (const block of source.blocks(afterSlot, controller.signal)) {
    taken.push({ ...block, finalizedAtYield: chain.slot('finalized') });
    if (enough(taken)) controller.abort();
  }
  return taken;
}

/** Advances one slot, then lets the event loop turn (a source's HTTP answers arrive between slots). */
const nextSlot = async (chain: LocalChain) => {
  await chain.advance(1);
  await new Promise((resolve) => setTimeout(resolve, 10));
  return null;
};

export function describeIngestionSuite(name: string, factory: (chain: LocalChain) => Promise<SourceUnderTest>): void {
  describe(`chain source: ${name} (ingestion suite)`, () => {
    let chain: LocalChain;
    let reader: ChainReader;
    let payer: KeyPairSigner;
    let under: SourceUnderTest;
    const sent: { signature: Signature; slot: bigint }[] = [];

    const transfer = async (amount: bigint, options: { skipPreflight?: boolean } = {}) => {
      const tx = await signedTransaction(chain, payer, [
        getTransferSolInstruction({ source: payer, destination: recipient, amount }),
      ]);
      const { signature } = await chain.send(tx, options);
      sent.push({ signature: signature as Signature, slot: chain.slot() });
      return signature as Signature;
    };

    beforeAll(async () => {
      chain = await startLocalChain({ autoAdvance: false, scenario: false, finalityLagSlots: 4 });
      reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
      payer = await fundedWallet(chain);
      under = await factory(chain);
    });
    afterAll(async () => {
      await under?.close?.();
      await chain?.close();
    });

    it('yields finalized blocks in slot order, transactions in block order (failed ones with err), decoded as getTransaction does', async () => {
      const start = chain.slot('finalized');
      await chain.advance(2);
      const a = await transfer(1_000_000n);
      const b = await transfer(2_000_000n);
      await chain.advance(1);
      const failed = await transfer(10n ** 15n, { skipPreflight: true }); // more than the payer holds
      await chain.advance(3);
      const c = await transfer(3_000_000n);
      await chain.finalizeAll();
      const last = sent.find((s) => s.signature === c)!.slot;
      const blocks = await takeBlocks(under.source, chain, start, (t) => t[t.length - 1]!.slot >= last);

      const slots = blocks.map((block) => block.slot);
      expect(slots[0]).toBeGreaterThan(start);
      for (let i = 1; i < slots.length; i++) expect(slots[i]).toBeGreaterThan(slots[i - 1]!);
      for (const block of blocks) expect(block.slot).toBeLessThanOrEqual(block.finalizedAtYield);
      const signatures = blocks.flatMap((block) => block.transactions.map((tx) => tx.signature));
      expect(signatures).toEqual([a, b, failed, c]);
      const withA = blocks.find((block) => block.transactions.some((tx) => tx.signature === a))!;
      expect(withA.transactions.map((tx) => tx.signature)).toEqual([a, b]);
      for (const block of blocks) {
        for (const tx of block.transactions) {
          expect(tx).toEqual(await reader.getTransaction(tx.signature, 'finalized'));
          expect(tx.slot).toBe(block.slot);
        }
      }
      expect(blocks.flatMap((block) => block.transactions).find((tx) => tx.signature === failed)!.err).not.toBeNull();
    });

    it('resumes strictly after the slot it is given: the block of that slot is not yielded again', async () => {
      const d = await transfer(4_000_000n);
      await chain.advance(1);
      const e = await transfer(5_000_000n);
      await chain.finalizeAll();
      const dSlot = sent.find((s) => s.signature === d)!.slot;
      const eSlot = sent.find((s) => s.signature === e)!.slot;
      const blocks = await takeBlocks(under.source, chain, dSlot, (t) => t[t.length - 1]!.slot >= eSlot);
      expect(blocks[0]!.slot).toBeGreaterThan(dSlot);
      expect(blocks.flatMap((block) => block.transactions.map((tx) => tx.signature))).toEqual([e]);
    });

    it('never yields a block before it is finalized; yields it once it is', async () => {
      const start = chain.slot('finalized');
      const f = await transfer(6_000_000n);
      const fSlot = sent.find((s) => s.signature === f)!.slot;
      const controller = new AbortController();
      const iterator = under.source.blocks(start, controller.signal)[Symbol.asyncIterator]();
      const seen: SourceBlock[] = [];
      let pending = iterator.next();
      // Finalize one slot at a time; every block handed over must be finalized at that moment.
      while (!seen.some((block) => block.slot >= fSlot)) {
        const step = await Promise.race([pending, nextSlot(chain)]);
        if (step === null) continue;
        expect(step.done).toBe(false);
        expect(step.value!.slot).toBeLessThanOrEqual(chain.slot('finalized'));
        seen.push(step.value!);
        pending = iterator.next();
      }
      controller.abort();
      await pending;
      expect(seen.flatMap((block) => block.transactions.map((tx) => tx.signature))).toEqual([f]);
    });

    it('skipped slots are simply absent', async () => {
      chain.faults.set({ skipEmptySlots: true });
      try {
        const start = chain.slot('finalized');
        await chain.advance(3);
        const g = await transfer(7_000_000n);
        await chain.advance(3);
        const h = await transfer(8_000_000n);
        await chain.finalizeAll();
        const hSlot = sent.find((s) => s.signature === h)!.slot;
        const blocks = await takeBlocks(under.source, chain, start, (t) => t[t.length - 1]!.slot >= hSlot);
        expect(blocks.map((block) => block.transactions.map((tx) => tx.signature))).toEqual([[g], [h]]);
      } finally {
        chain.faults.clear();
      }
    });

    it('an RPC outage delays blocks but loses none', async () => {
      const start = chain.slot('finalized');
      const i = await transfer(9_000_000n);
      await chain.finalizeAll();
      const iSlot = sent.find((s) => s.signature === i)!.slot;
      chain.faults.set({ rpcError: { code: -32005, message: 'Node is behind' } });
      const taking = takeBlocks(under.source, chain, start, (t) => t[t.length - 1]!.slot >= iSlot);
      await new Promise((resolve) => setTimeout(resolve, 300));
      chain.faults.clear();
      const blocks = await taking;
      expect(blocks.flatMap((block) => block.transactions.map((tx) => tx.signature))).toEqual([i]);
    });

    it('ends when its signal aborts, even while waiting for a block', async () => {
      const controller = new AbortController();
      const iterating = (async () => {
        const got: SourceBlock[] = [];
        for await (const block of under.source.blocks(chain.slot('finalized') + 1000n, controller.signal)) {
          got.push(block);
        }
        return got;
      })();
      controller.abort();
      expect(await iterating).toEqual([]);
    });
  });
}
