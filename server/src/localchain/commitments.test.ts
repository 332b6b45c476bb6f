// processed / confirmed / finalized are kept apart: reads at a commitment see the state of that commitment's slot,
// and a transaction moves processed → confirmed (1 slot later) → finalized (finalityLagSlots later).
import { address, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { startLocalChain, type LocalChain } from './index';
import { fundedWallet, signedTransaction } from '@sigil/test/support/localchain-wallets';

const LAG = 3;
const BASE = 1_000_000_000n;
let chain: LocalChain;
let payer: KeyPairSigner;
const target = address('5ZWj7a1f8tWkjBESHKgrLmXshuXxqeY9SYcfbshpAqPG');

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false, finalityLagSlots: LAG });
  payer = await fundedWallet(chain);
  await chain.airdrop(target, BASE); // rent-exempt, so small transfers to it are valid
  await chain.finalizeAll();
});
afterAll(() => chain.close());

/** Balance of `target` above its initial funding, at a commitment. */
const balance = async (commitment: 'processed' | 'confirmed' | 'finalized') =>
  (await chain.rpc.getBalance(target, { commitment }).send()).value - BASE;
const status = async (sig: string) => (await chain.rpc.getSignatureStatuses([sig as never]).send()).value[0];

describe('commitment levels', () => {
  it('a transfer is processed, then confirmed one slot later, then finalized after the lag', async () => {
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: target, amount: 1234n }),
    ]);
    const { signature } = await chain.send(tx);

    expect(await balance('processed')).toBe(1234n);
    expect(await balance('confirmed')).toBe(0n);
    expect(await balance('finalized')).toBe(0n);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'processed', confirmations: 0n });
    expect(
      await chain.rpc
        .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send(),
    ).toBeNull();
    expect(
      (await chain.rpc.getSignaturesForAddress(target, { commitment: 'confirmed' }).send()).map((s) => s.signature),
    ).not.toContain(signature);

    await chain.advance(1);
    expect(await balance('confirmed')).toBe(1234n);
    expect(await balance('finalized')).toBe(0n);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'confirmed', confirmations: 1n });
    expect(
      await chain.rpc
        .getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send(),
    ).not.toBeNull();
    expect(
      await chain.rpc
        .getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send(),
    ).toBeNull();
    expect((await chain.rpc.getSignaturesForAddress(target, { commitment: 'confirmed' }).send())[0]).toMatchObject({
      signature,
      confirmationStatus: 'confirmed',
    });

    await chain.advance(LAG - 2);
    expect(await balance('finalized')).toBe(0n); // lag not yet reached
    await chain.advance(1);
    expect(await balance('finalized')).toBe(1234n);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'finalized', confirmations: null });
    expect(
      await chain.rpc
        .getTransaction(signature, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 })
        .send(),
    ).not.toBeNull();
  });

  it('each commitment sees the account version of its own slot across several writes', async () => {
    const send = async (amount: bigint) => {
      const tx = await signedTransaction(chain, payer, [
        getTransferSolInstruction({ source: payer, destination: target, amount }),
      ]);
      await chain.send(tx);
      await chain.advance(1);
    };
    await chain.finalizeAll();
    const base = await balance('finalized');
    await send(1n); // slot s
    await send(10n); // slot s+1
    await send(100n); // slot s+2; now processed = s+3
    expect(await balance('processed')).toBe(base + 111n);
    expect(await balance('confirmed')).toBe(base + 111n);
    // finalized = s+3-LAG = s: only the first write
    expect(await balance('finalized')).toBe(base + 1n);
  });

  it('getProgramAccounts at finalized does not see an account created since', async () => {
    const fresh = await fundedWallet(chain, 5_000_000n); // new system account, processed only
    const owned = async (commitment: 'processed' | 'finalized') =>
      (
        await chain.rpc
          .getProgramAccounts(SYSTEM_PROGRAM_ADDRESS, { commitment, encoding: 'base64', filters: [{ dataSize: 0n }] })
          .send()
      ).map((a) => a.pubkey);
    expect(await owned('processed')).toContain(fresh.address);
    expect(await owned('finalized')).not.toContain(fresh.address);
    await chain.finalizeAll();
    expect(await owned('finalized')).toContain(fresh.address);
  });

  it('waitForFinalized advances a manual chain until the transaction is finalized', async () => {
    const tx = await signedTransaction(chain, payer, [
      getTransferSolInstruction({ source: payer, destination: target, amount: 2n }),
    ]);
    const { signature } = await chain.send(tx);
    const landed = chain.slot();
    await chain.waitForFinalized(signature);
    expect(chain.slot('finalized')).toBe(landed);
    expect(await status(signature)).toMatchObject({ confirmationStatus: 'finalized' });
  });

  it('history methods refuse commitment processed, as a node does', async () => {
    await expect(
      chain.rpc.getSignaturesForAddress(target, { commitment: 'processed' as never }).send(),
    ).rejects.toThrow(/commitment below `confirmed`/);
  });

  it('autoAdvance moves slots on a timer', async () => {
    const auto = await startLocalChain({ scenario: false, slotMs: 20 });
    try {
      const first = auto.slot();
      await new Promise((r) => setTimeout(r, 150));
      expect(auto.slot()).toBeGreaterThan(first + 2n);
    } finally {
      await auto.close();
    }
  });
});
