// The local chain's first slot is open (it still takes transactions) while every commitment reads it as its tip
// (Ledger.slotAt clamps at 0): a block source that reads it then, and moves its cursor past it, must not lose the
// transactions that land in it afterwards. Both dialects.
import { afterEach, expect, it } from 'vitest';
import { address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { describeEachDialect } from '@sigil/test/support/db';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../../localchain/index';
import { createChainReader } from '../reader';
import { runIngestPass, type BlockConsumer } from './ingest';

const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

describeEachDialect('ingestion from a chain still in its first slot', (ctx) => {
  let chain: LocalChain | undefined;
  afterEach(() => chain?.close());

  it('a transaction landing in slot 0 after a pass already ran at slot 0 is still consumed', async () => {
    chain = await startLocalChain({ autoAdvance: false, scenario: false });
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    const persisted: string[] = [];
    const consumer: BlockConsumer = {
      name: 'open-slot',
      prepare: async (stored) => stored ?? -1n, // from the chain's first block
      consume: async (block) => {
        for (const tx of block.transactions) persisted.push(tx.signature);
      },
    };
    const pass = () =>
      runIngestPass(ctx.db, { chain: reader, consumers: [consumer], tip: chain!.slot('finalized'), idleMs: 50 });

    const payer = await fundedWallet(chain); // the faucet's airdrop lands in slot 0
    expect(chain.slot()).toBe(0n);
    expect(chain.slot('finalized')).toBe(0n); // the open slot already reads as finalized
    await pass(); // an indexer's first pass, started before the chain's first slot has ended

    const late = await chain.send(
      await signedTransaction(chain, payer, [
        getTransferSolInstruction({ source: payer, destination: recipient, amount: 1_000_000n }),
      ]),
    );
    expect(chain.ledger.getTransaction(late.signature)!.slot).toBe(0n); // same slot: no tick in between
    await chain.advance(8);
    await pass();

    // Block 0 handed over with the airdrop alone would have moved the cursor to 0, and `late` would never be seen.
    expect(persisted).toContain(late.signature);
    expect(new Set(persisted).size).toBe(persisted.length); // and nothing twice
  });
});
