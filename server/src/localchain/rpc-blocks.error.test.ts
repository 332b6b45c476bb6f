// getBlock / getBlocks refusals with a real node's codes: a slot not finalized yet (-32004), a skipped slot
// (-32007), a v0 transaction without maxSupportedTransactionVersion (-32015), `processed` and bad ranges (-32602).
import { type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainReader } from '../platform/chain/reader';
import { ChainError } from '../platform/chain/types';
import { startLocalChain, type LocalChain } from './index';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';

let chain: LocalChain;
let payer: KeyPairSigner;

const call = async (method: string, params: unknown[]) => {
  const res = await fetch(chain.url, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { error?: { code: number; message: string } }).error;
};

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, finalityLagSlots: 4 });
  payer = await fundedWallet(chain);
  await chain.finalizeAll();
});
afterAll(() => chain.close());

describe('getBlock refusals', () => {
  it('-32004 past the finalized tip; the reader reports it as unreachable (retry later)', async () => {
    const ahead = Number(chain.slot('finalized')) + 1;
    expect(await call('getBlock', [ahead])).toEqual({ code: -32004, message: `Block not available for slot ${ahead}` });
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    await expect(reader.getBlock(BigInt(ahead))).rejects.toMatchObject({ kind: 'unreachable' });
    await expect(reader.getBlock(BigInt(ahead))).rejects.toBeInstanceOf(ChainError);
  });

  it('-32007 for a skipped slot', async () => {
    await chain.advance(6); // the finalized tip is now a slot without a transaction
    chain.faults.set({ skipEmptySlots: true });
    try {
      const empty = Number(chain.slot('finalized'));
      expect(await call('getBlock', [empty])).toEqual({
        code: -32007,
        message: `Slot ${empty} was skipped, or missing due to ledger jump to recent snapshot`,
      });
    } finally {
      chain.faults.clear();
    }
  });

  it('-32015 for a block holding a v0 transaction when the client does not say it reads v0', async () => {
    const tx = await signedTransaction(
      chain,
      payer,
      [getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1n })],
      { version: 0 },
    );
    const { signature } = await chain.send(tx);
    await chain.finalizeAll();
    const slot = Number(
      (await chain.rpc
        .getTransaction(signature as never, { encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send())!.slot,
    );
    expect((await call('getBlock', [slot]))?.code).toBe(-32015);
    expect(await call('getBlock', [slot, { maxSupportedTransactionVersion: 0 }])).toBeUndefined();
  });

  it('-32602 for processed, a range too wide, and a negative slot', async () => {
    expect(await call('getBlock', [1, { commitment: 'processed' }])).toEqual({
      code: -32602,
      message: 'Method does not support commitment below `confirmed`',
    });
    expect(await call('getBlocks', [0, 600_000])).toBeUndefined(); // capped at the tip first, as a node does
    expect((await call('getBlocks', [-1]))?.code).toBe(-32602);
  });
});
