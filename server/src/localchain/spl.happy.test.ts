// Real program execution through LiteSVM: SPL Token and Token-2022 transfers with token balances in meta,
// compute-budget priority fees, failed transactions (preflight refusal vs. landing with err), blockhash rules.
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';
import {
  base64Wire,
  fundedWallet,
  rawSendTransaction,
  signedTransaction,
} from '@sigil/test/support/localchain-wallets';
import { TOKEN_2022_PROGRAM_ADDRESS } from '../platform/chain/programs';

let chain: LocalChain;
let alice: KeyPairSigner;
let bob: KeyPairSigner;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  alice = await fundedWallet(chain);
  bob = await fundedWallet(chain);
});
afterAll(() => chain.close());

async function createMint(tokenProgram: Address, decimals: number) {
  const mint = await generateKeyPairSigner();
  const tx = await signedTransaction(
    chain,
    alice,
    [
      getCreateAccountInstruction({
        payer: alice,
        newAccount: mint,
        lamports: await chain.rpc.getMinimumBalanceForRentExemption(82n).send(),
        space: 82n,
        programAddress: tokenProgram,
      }),
      getInitializeMint2Instruction(
        { mint: mint.address, decimals, mintAuthority: alice.address, freezeAuthority: null },
        { programAddress: tokenProgram },
      ),
    ],
    { others: [mint] },
  );
  await chain.send(tx);
  return mint.address;
}

async function ataOf(owner: Address, mint: Address, tokenProgram: Address) {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];
}

describe.each([
  ['SPL Token', TOKEN_PROGRAM_ADDRESS],
  ['Token-2022', TOKEN_2022_PROGRAM_ADDRESS],
])('%s', (_name, tokenProgram) => {
  it('mints and transfers with pre/post token balances in the transaction meta', async () => {
    const mint = await createMint(tokenProgram, 6);
    const aliceAta = await ataOf(alice.address, mint, tokenProgram);
    const bobAta = await ataOf(bob.address, mint, tokenProgram);
    await chain.send(
      await signedTransaction(chain, alice, [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: alice,
          ata: aliceAta,
          owner: alice.address,
          mint,
          tokenProgram,
        }),
        getMintToInstruction(
          { mint, token: aliceAta, mintAuthority: alice, amount: 5_000_000n },
          { programAddress: tokenProgram },
        ),
      ]),
    );
    const sig = await chain.sendAndConfirm(
      await signedTransaction(chain, alice, [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: alice,
          ata: bobAta,
          owner: bob.address,
          mint,
          tokenProgram,
        }),
        getTransferCheckedInstruction(
          { source: aliceAta, mint, destination: bobAta, authority: alice, amount: 1_250_000n, decimals: 6 },
          { programAddress: tokenProgram },
        ),
      ]),
    );
    const tx = await chain.rpc
      .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    const keys = tx!.transaction.message.accountKeys;
    const pre = tx!.meta!.preTokenBalances!;
    const post = tx!.meta!.postTokenBalances!;
    expect(pre).toEqual([
      {
        accountIndex: keys.indexOf(aliceAta),
        mint,
        owner: alice.address,
        programId: tokenProgram,
        uiTokenAmount: { amount: '5000000', decimals: 6, uiAmount: 5, uiAmountString: '5' },
      },
    ]);
    expect(post).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          accountIndex: keys.indexOf(aliceAta),
          uiTokenAmount: { amount: '3750000', decimals: 6, uiAmount: 3.75, uiAmountString: '3.75' },
        }),
        expect.objectContaining({
          accountIndex: keys.indexOf(bobAta),
          owner: bob.address,
          uiTokenAmount: { amount: '1250000', decimals: 6, uiAmount: 1.25, uiAmountString: '1.25' },
        }),
      ]),
    );
    // The ATA program created bob's account through CPIs: they appear as inner instructions.
    expect(tx!.meta!.innerInstructions!.length).toBeGreaterThan(0);
    expect((await chain.rpc.getTokenAccountBalance(bobAta, { commitment: 'confirmed' }).send()).value.amount).toBe(
      '1250000',
    );
  });
});

describe('fees and failures', () => {
  it('charges 5000 per signature plus the compute-budget priority fee', async () => {
    const target = (await generateKeyPairSigner()).address;
    const before = (await chain.rpc.getBalance(alice.address, { commitment: 'processed' }).send()).value;
    const result = await chain.send(
      await signedTransaction(chain, alice, [
        getSetComputeUnitLimitInstruction({ units: 100_000 }),
        getSetComputeUnitPriceInstruction({ microLamports: 50_000n }),
        getTransferSolInstruction({ source: alice, destination: target, amount: 1_000_000_000n }),
      ]),
    );
    expect(result.fee).toBe(5000n + 5000n); // 100k CU × 0.05 lamports
    const after = (await chain.rpc.getBalance(alice.address, { commitment: 'processed' }).send()).value;
    expect(before - after).toBe(1_000_000_000n + 10_000n); // LiteSVM charged exactly the fee we report
  });

  it('preflight refuses a failing transaction; skipPreflight lands it with err and charges the fee', async () => {
    const poor = await fundedWallet(chain, 1_000_000_000n);
    const build = async () =>
      signedTransaction(chain, poor, [
        getTransferSolInstruction({ source: poor, destination: bob.address, amount: 5_000_000_000n }),
      ]);
    const { error } = await rawSendTransaction(chain, await build());
    expect(error?.code).toBe(-32002);
    expect(error?.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    expect(error?.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(error?.data?.logs.length).toBeGreaterThan(0);

    await chain.advance(1); // a new blockhash, so the next transaction has a new signature
    const tx = await build();
    const sig = await chain.rpc.sendTransaction(base64Wire(tx), { encoding: 'base64', skipPreflight: true }).send();
    await chain.advance(1);
    const landed = await chain.rpc
      .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    // kit turns every JSON number into a bigint
    expect(landed!.meta!.err).toEqual({ InstructionError: [0n, { Custom: 1n }] });
    expect(landed!.meta!.status).toEqual({ Err: { InstructionError: [0n, { Custom: 1n }] } });
    expect(landed!.meta!.preBalances[0]! - landed!.meta!.postBalances[0]!).toBe(5000n);
    const listed = await chain.rpc.getSignaturesForAddress(poor.address, { commitment: 'confirmed', limit: 1 }).send();
    expect(listed[0]).toMatchObject({ signature: sig, err: { InstructionError: [0n, { Custom: 1n }] } });
  });

  it('rejects a duplicate and an unknown or expired blockhash', async () => {
    const tx = await signedTransaction(chain, alice, [
      getTransferSolInstruction({ source: alice, destination: bob.address, amount: 1n }),
    ]);
    await chain.send(tx);
    await expect(chain.send(tx)).rejects.toThrow(/already been processed/);

    const bogus = await signedTransaction(
      chain,
      alice,
      [getTransferSolInstruction({ source: alice, destination: bob.address, amount: 2n })],
      {
        blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N',
      },
    );
    await expect(chain.send(bogus)).rejects.toThrow(/Blockhash not found/);

    const old = await signedTransaction(chain, alice, [
      getTransferSolInstruction({ source: alice, destination: bob.address, amount: 3n }),
    ]);
    await chain.advance(151);
    await expect(chain.send(old)).rejects.toThrow(/Blockhash not found/);
  });
});
