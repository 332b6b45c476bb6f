// getBlocks / getBlock as the local chain serves them: the raw JSON answer (key set, transaction order, skipped
// slots under the fault) and the chain reader's decoding of the same blocks.
import { address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../platform/chain/reader';
import type { ChainReader } from '../platform/chain/types';
import { startLocalChain, type LocalChain } from './index';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';

let chain: LocalChain;
let reader: ChainReader;
let payer: KeyPairSigner;
let first: Signature;
let second: Signature;
let slot: bigint;
const recipient = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin');

const call = async (method: string, params: unknown[], url = chain.url) => {
  const res = await fetch(url, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
};

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, finalityLagSlots: 4 });
  reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  payer = await fundedWallet(chain);
  await chain.advance(3);
  // Two transfers in one slot: the block lists them in the order they landed.
  slot = chain.slot();
  const transfer = (amount: bigint) => getTransferSolInstruction({ source: payer, destination: recipient, amount });
  first = (await chain.send(await signedTransaction(chain, payer, [transfer(1_000_000n)]))).signature as Signature;
  second = (await chain.send(await signedTransaction(chain, payer, [transfer(2_000_000n)]))).signature as Signature;
  await chain.finalizeAll();
});
afterAll(() => chain.close());

describe('getBlocks', () => {
  it('lists every slot of the range up to the finalized tip', async () => {
    const tip = chain.slot('finalized');
    expect(await call('getBlocks', [Number(tip) - 2, Number(tip) + 10])).toMatchObject({
      result: [Number(tip) - 2, Number(tip) - 1, Number(tip)],
    });
    expect(await call('getBlocks', [Number(tip) - 1])).toMatchObject({ result: [Number(tip) - 1, Number(tip)] });
    expect(await call('getBlocks', [Number(tip) + 1, Number(tip) + 5])).toMatchObject({ result: [] });
    expect(await reader.getBlocks(tip - 1n, tip + 3n)).toEqual([tip - 1n, tip]);
  });

  it('with skipEmptySlots, only the slots that have a transaction', async () => {
    chain.faults.set({ skipEmptySlots: true });
    try {
      expect(await call('getBlocks', [Number(slot) - 1, Number(slot) + 1])).toMatchObject({ result: [Number(slot)] });
      expect(await reader.getBlock(slot - 1n)).toBeNull();
    } finally {
      chain.faults.clear();
    }
  });
});

describe('getBlock', () => {
  it('answers the shape of a real node: json, full details, versions, no rewards when asked', async () => {
    const config = { encoding: 'json', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0 };
    const { result } = (await call('getBlock', [Number(slot), config])) as { result: Record<string, unknown> };
    expect(Object.keys(result).sort()).toEqual([
      'blockHeight',
      'blockTime',
      'blockhash',
      'parentSlot',
      'previousBlockhash',
      'transactions',
    ]);
    expect(result.parentSlot).toBe(Number(slot) - 1);
    const previous = (await call('getBlock', [Number(slot) - 1, config])) as { result: { blockhash: string } };
    expect(result.previousBlockhash).toBe(previous.result.blockhash);
    const transactions = result.transactions as {
      transaction: { signatures: string[] };
      version: unknown;
      meta: { err: unknown };
    }[];
    expect(transactions.map((t) => t.transaction.signatures[0])).toEqual([first, second]);
    expect(transactions.map((t) => t.version)).toEqual([0, 0]);
    expect(transactions[0]!.meta.err).toBeNull();
    const signaturesOnly = await call('getBlock', [Number(slot), { transactionDetails: 'signatures', rewards: true }]);
    expect(signaturesOnly.result).toMatchObject({ signatures: [first, second], rewards: [] });
  });

  it('the reader decodes each transaction as getTransaction does', async () => {
    const block = (await reader.getBlock(slot))!;
    expect(block.slot).toBe(slot);
    expect(block.transactions.map((t) => t.signature)).toEqual([first, second]);
    expect(block.transactions[1]).toEqual(await reader.getTransaction(second, 'finalized'));
    expect(block.blockTime).toBe(block.transactions[0]!.blockTime);
  });
});

describe('the open slot', () => {
  it('is not served above processed: block 0 is listed and read only once slot 1 begins, with all it holds', async () => {
    const open = await startLocalChain({ autoAdvance: false, scenario: false });
    try {
      const blocksOf = createChainReader({ rpcUrl: open.url, programId: open.programId, timeoutMs: 5000 });
      const funded = await fundedWallet(open); // its airdrop lands in slot 0, still open
      expect(open.slot()).toBe(0n);
      expect(open.slot('finalized')).toBe(0n); // every commitment's slot clamps to the open one
      for (const commitment of ['confirmed', 'finalized'] as const) {
        expect(await blocksOf.getBlocks(0n, 10n, commitment)).toEqual([]);
        expect((await call('getBlock', [0, { commitment }], open.url)).error?.code).toBe(-32004);
      }
      const late = await open.send(
        await signedTransaction(open, funded, [
          getTransferSolInstruction({ source: funded, destination: recipient, amount: 1_000_000n }),
        ]),
      );
      expect(open.ledger.getTransaction(late.signature)!.slot).toBe(0n);
      await open.advance(1);
      expect(await blocksOf.getBlocks(0n, 10n, 'confirmed')).toEqual([0n]);
      const block = await blocksOf.getBlock(0n, 'confirmed');
      expect(block!.transactions.map((t) => t.signature)).toHaveLength(2);
      expect(block!.transactions.at(-1)!.signature).toBe(late.signature);
    } finally {
      await open.close();
    }
  });
});
