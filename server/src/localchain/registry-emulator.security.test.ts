// The registry emulator: instructions take effect with the service's layouts, signatures are verified (forgeries
// never land), authority/PDA/state rules hold, and mixed transactions are atomic.
import { sha256 } from '@noble/hashes/sha2.js';
import {
  generateKeyPairSigner,
  getBase64Encoder,
  getSignatureFromTransaction,
  signBytes,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getAddMemoInstruction } from '@solana-program/memo';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeHandle,
  decodeInvoice,
  decodePrimaryPointer,
  decodeRecord,
  findHandlePda,
  findInvoicePda,
  findPrimaryPointerPda,
  findRecordPda,
  getCreateInvoiceInstruction,
  getPayInvoiceInstruction,
  getRegisterInstruction,
  getReleaseInstruction,
  getSetPrimaryInstruction,
  getSetRecordInstruction,
  getTokenizeInstruction,
  getVerifyRecordInstruction,
  SYSVAR_INSTRUCTIONS_ADDRESS,
} from '../platform/chain/registry';
import { SECP256K1_PROGRAM_ADDRESS, SPL_MEMO_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { REGISTRY_ERRORS, startLocalChain, type LocalChain } from './index';
import { secp256k1Addresses, secp256k1ProofData, verifyRecordMessage } from './secp256k1';
import { fundedWallet, rawSendTransaction, signedTransaction } from '@sigil/test/support/localchain-wallets';

let chain: LocalChain;
let programId: Address;
let alice: KeyPairSigner;
let bob: KeyPairSigner;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false, scenario: false });
  programId = chain.programId;
  alice = await fundedWallet(chain);
  bob = await fundedWallet(chain);
});
afterAll(() => chain.close());

const handlePda = async (name: string) => (await findHandlePda(programId, name))[0];

const rpcSend = (tx: Transaction, skipPreflight = false) => rawSendTransaction(chain, tx, { skipPreflight });

async function account(address: Address) {
  const info = await chain.rpc.getAccountInfo(address, { encoding: 'base64', commitment: 'processed' }).send();
  return info.value ? new Uint8Array(getBase64Encoder().encode(info.value.data[0])) : null;
}

async function register(owner: KeyPairSigner, name: string, handleType = 0) {
  const handle = await handlePda(name);
  const tx = await signedTransaction(chain, owner, [
    getRegisterInstruction({ programId, payer: owner.address, owner: owner.address, handle, name, handleType }),
  ]);
  const res = await rpcSend(tx);
  expect(res.error).toBeUndefined();
  await chain.advance(1);
  return handle;
}

const customError = (index: number, name: keyof typeof REGISTRY_ERRORS) => ({
  InstructionError: [index, { Custom: REGISTRY_ERRORS[name] }],
});

describe('registry instructions through sendTransaction', () => {
  it('register + set_primary write the layouts the service decodes, with history and meta', async () => {
    const handle = await register(alice, 'emu_alice');
    const [primary] = await findPrimaryPointerPda(programId, alice.address);
    const tx = await signedTransaction(chain, alice, [
      getSetPrimaryInstruction({ programId, wallet: alice.address, handle, primary }),
    ]);
    const res = await rpcSend(tx);
    expect(res.error).toBeUndefined();

    const decoded = decodeHandle(handle, (await account(handle))!);
    expect(decoded).toMatchObject({
      name: 'emu_alice',
      owner: alice.address,
      handleType: 0,
      tokenized: false,
      registrationEpoch: 1n,
    });
    expect(decoded.registeredAt).toBe(chain.ledger.blockTime(decoded.registeredSlot));
    const pointer = decodePrimaryPointer(primary, (await account(primary))!);
    expect(pointer).toMatchObject({ wallet: alice.address, handle, handleEpoch: 1n, setSlot: chain.slot() });

    await chain.advance(1);
    const sigs = await chain.rpc.getSignaturesForAddress(handle, { commitment: 'confirmed' }).send();
    expect(sigs.map((s) => s.signature)).toEqual([res.result, expect.any(String)]);
    const got = await chain.rpc
      .getTransaction(res.result as never, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(got!.meta!.fee).toBe(5000n);
    expect(got!.meta!.logMessages).toEqual([
      `Program ${programId} invoke [1]`,
      'Program log: Instruction: SetPrimary',
      `Program ${programId} consumed 5000 of 200000 compute units`,
      `Program ${programId} success`,
    ]);
    const keys = got!.transaction.message.accountKeys;
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(97n).send();
    expect(got!.meta!.postBalances[keys.indexOf(primary)]).toBe(rent);
    expect(got!.meta!.preBalances[keys.indexOf(primary)]).toBe(0n);
    // Fee payer paid the fee and the pointer's rent.
    expect(got!.meta!.preBalances[0]! - got!.meta!.postBalances[0]!).toBe(5000n + rent);
  });

  it('a fee payer that is not the signer sponsors the rent: set_primary signed by the owner, paid by another', async () => {
    const owner = await fundedWallet(chain);
    const handle = await register(owner, 'emu_sponsored');
    const [primary] = await findPrimaryPointerPda(programId, owner.address);
    const tx = await signedTransaction(
      chain,
      bob,
      [getSetPrimaryInstruction({ programId, wallet: owner.address, handle, primary })],
      { others: [owner] },
    );
    const res = await rpcSend(tx);
    expect(res.error).toBeUndefined();
    await chain.advance(1);
    const got = await chain.rpc
      .getTransaction(res.result as never, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(got!.meta!.err).toBeNull();
    const keys = got!.transaction.message.accountKeys;
    expect(keys[0]).toBe(bob.address);
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(97n).send();
    // The fee payer paid the fee (two signatures) and the pointer's rent; the owner paid nothing.
    expect(got!.meta!.fee).toBe(10_000n);
    expect(got!.meta!.preBalances[0]! - got!.meta!.postBalances[0]!).toBe(10_000n + rent);
    const o = keys.indexOf(owner.address);
    expect(got!.meta!.preBalances[o]).toBe(got!.meta!.postBalances[o]);
    expect(decodePrimaryPointer(primary, (await account(primary))!)).toMatchObject({ wallet: owner.address, handle });
  });

  it('a forged signature is rejected before execution and never lands', async () => {
    const name = 'forged_owner';
    const handle = await handlePda(name);
    // bob pays and signs; alice is named as owner but the signature in her slot is bob's, over the same message.
    const ix = getRegisterInstruction({
      programId,
      payer: bob.address,
      owner: alice.address,
      handle,
      name,
      handleType: 0,
    });
    const honest = await signedTransaction(chain, bob, [ix], { others: [alice] });
    const forgedSignature = (await signBytes(
      bob.keyPair.privateKey,
      honest.messageBytes as unknown as Uint8Array,
    )) as SignatureBytes;
    const forged: Transaction = {
      ...honest,
      signatures: { ...honest.signatures, [alice.address]: forgedSignature },
    } as Transaction;

    const res = await rpcSend(forged, true); // even without preflight
    expect(res.error).toEqual({ code: -32003, message: 'Transaction signature verification failure' });
    expect(await account(handle)).toBeNull();
    // nothing was recorded under the transaction's signature either
    const status = await chain.rpc.getSignatureStatuses([getSignatureFromTransaction(forged)]).send();
    expect(status.value[0]).toBeNull();

    // Missing signature (zeros) is refused as well; the honest transaction then lands.
    const unsigned = {
      ...honest,
      signatures: { ...honest.signatures, [alice.address]: new Uint8Array(64) },
    } as Transaction;
    expect((await rpcSend(unsigned)).error?.code).toBe(-32003);
    expect((await rpcSend(honest)).error).toBeUndefined();
    expect(decodeHandle(handle, (await account(handle))!).owner).toBe(alice.address);
  });

  it('only the authority can write records; failures are atomic and still charge the fee', async () => {
    const handle = await handlePda('emu_alice');
    const [record] = await findRecordPda(programId, handle, 'text', 'url');
    const bystander = (await generateKeyPairSigner()).address;
    const tx = await signedTransaction(chain, bob, [
      getTransferSolInstruction({ source: bob, destination: bystander, amount: 1_000_000_000n }),
      getSetRecordInstruction({
        programId,
        authority: bob.address,
        handle,
        record,
        kind: 'text',
        key: 'url',
        value: 'https://evil.example',
      }),
    ]);
    const refused = await rpcSend(tx);
    expect(refused.error?.code).toBe(-32002);
    expect(refused.error?.data?.err).toEqual(customError(1, 'NotAuthority'));

    const bobBefore = (await chain.rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value;
    const landed = await rpcSend(tx, true);
    expect(landed.result).toBeDefined();
    expect(await account(record)).toBeNull();
    expect((await chain.rpc.getBalance(bystander, { commitment: 'processed' }).send()).value).toBe(0n); // transfer undone
    expect((await chain.rpc.getBalance(bob.address, { commitment: 'processed' }).send()).value).toBe(bobBefore - 5000n);
  });

  it('wrong PDA, bad names and duplicate registration fail with the documented codes', async () => {
    const wrong = await handlePda('someone_else');
    const tx1 = await signedTransaction(chain, bob, [
      getRegisterInstruction({
        programId,
        payer: bob.address,
        owner: bob.address,
        handle: wrong,
        name: 'emu_bob',
        handleType: 0,
      }),
    ]);
    expect((await rpcSend(tx1)).error?.data?.err).toEqual(customError(0, 'InvalidPda'));

    const upper = await handlePda('Emu_Bob');
    const tx2 = await signedTransaction(chain, bob, [
      getRegisterInstruction({
        programId,
        payer: bob.address,
        owner: bob.address,
        handle: upper,
        name: 'Emu_Bob',
        handleType: 0,
      }),
    ]);
    expect((await rpcSend(tx2)).error?.data?.err).toEqual(customError(0, 'InvalidName'));

    const taken = await handlePda('emu_alice');
    const tx3 = await signedTransaction(chain, bob, [
      getRegisterInstruction({
        programId,
        payer: bob.address,
        owner: bob.address,
        handle: taken,
        name: 'emu_alice',
        handleType: 0,
      }),
    ]);
    expect((await rpcSend(tx3)).error?.data?.err).toEqual(customError(0, 'AlreadyRegistered'));
  });

  it('release and re-register bump the epoch; an Agent handle stays an Agent', async () => {
    const handle = await register(bob, 'emu_agent', 3);
    await chain.send(
      await signedTransaction(chain, bob, [getReleaseInstruction({ programId, owner: bob.address, handle })]),
    );
    expect(decodeHandle(handle, (await account(handle))!).owner).toBe('11111111111111111111111111111111');
    const asPlain = await signedTransaction(chain, alice, [
      getRegisterInstruction({
        programId,
        payer: alice.address,
        owner: alice.address,
        handle,
        name: 'emu_agent',
        handleType: 0,
      }),
    ]);
    expect((await rpcSend(asPlain)).error?.data?.err).toEqual(customError(0, 'HandleTypeImmutable'));
    await register(alice, 'emu_agent', 3);
    expect(decodeHandle(handle, (await account(handle))!)).toMatchObject({
      owner: alice.address,
      registrationEpoch: 2n,
      handleType: 3,
    });
  });

  it('tokenize mints a real NFT; authority follows the holder of the NFT in its ATA', async () => {
    const owner = await fundedWallet(chain);
    const holder = await fundedWallet(chain);
    const handle = await register(owner, 'emu_nft');
    const mint = await generateKeyPairSigner();
    const ownerAta = (
      await findAssociatedTokenPda({ owner: owner.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    )[0];
    const sig = await chain.sendAndConfirm(
      await signedTransaction(
        chain,
        owner,
        [
          getTokenizeInstruction({
            programId,
            owner: owner.address,
            handle,
            mint: mint.address,
            ownerTokenAccount: ownerAta,
          }),
        ],
        {
          others: [mint],
        },
      ),
    );
    expect(decodeHandle(handle, (await account(handle))!)).toMatchObject({ tokenized: true, mint: mint.address });
    const got = await chain.rpc
      .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(got!.meta!.postTokenBalances).toEqual([
      expect.objectContaining({
        mint: mint.address,
        owner: owner.address,
        uiTokenAmount: { amount: '1', decimals: 0, uiAmount: 1, uiAmountString: '1' },
      }),
    ]);
    expect(got!.meta!.innerInstructions![0]!.instructions.length).toBeGreaterThan(0);
    const supply = await chain.rpc.getTokenLargestAccounts(mint.address, { commitment: 'confirmed' }).send();
    expect(supply.value.map((v) => v.amount)).toEqual(['1']);

    const holderAta = (
      await findAssociatedTokenPda({ owner: holder.address, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS })
    )[0];
    await chain.send(
      await signedTransaction(chain, owner, [
        getCreateAssociatedTokenIdempotentInstruction({
          payer: owner,
          ata: holderAta,
          owner: holder.address,
          mint: mint.address,
        }),
        getTransferCheckedInstruction({
          source: ownerAta,
          mint: mint.address,
          destination: holderAta,
          authority: owner,
          amount: 1n,
          decimals: 0,
        }),
      ]),
    );
    const setPrimary = async (wallet: KeyPairSigner) => {
      const [primary] = await findPrimaryPointerPda(programId, wallet.address);
      return rpcSend(
        await signedTransaction(chain, wallet, [
          getSetPrimaryInstruction({ programId, wallet: wallet.address, handle, primary }),
        ]),
      );
    };
    expect((await setPrimary(owner)).error?.data?.err).toEqual(customError(0, 'NotAuthority'));
    expect((await setPrimary(holder)).error).toBeUndefined();
  });

  it('pay_invoice moves lamports through a System CPI, visible as an inner instruction', async () => {
    const payer = await fundedWallet(chain);
    const [invoice] = await findInvoicePda(programId, alice.address, 77n);
    await chain.send(
      await signedTransaction(chain, alice, [
        getCreateInvoiceInstruction({
          programId,
          payee: alice.address,
          invoice,
          mint: null,
          handle: null,
          id: 77n,
          amount: 300_000_000n,
          expiresAt: 0,
          memo: 'test',
        }),
      ]),
    );
    const sig = await chain.sendAndConfirm(
      await signedTransaction(chain, payer, [
        getPayInvoiceInstruction({ programId, kind: 'native', payer: payer.address, invoice, payee: alice.address }),
      ]),
    );
    expect(decodeInvoice(invoice, (await account(invoice))!)).toMatchObject({
      status: 1,
      paidBy: payer.address,
      amount: 300_000_000n,
    });
    const got = await chain.rpc
      .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    const keys = got!.transaction.message.accountKeys;
    const payee = keys.indexOf(alice.address);
    expect(got!.meta!.postBalances[payee]! - got!.meta!.preBalances[payee]!).toBe(300_000_000n);
    expect(got!.meta!.innerInstructions).toEqual([
      {
        index: 0,
        instructions: [
          expect.objectContaining({
            programIdIndex: keys.indexOf('11111111111111111111111111111111' as Address),
            stackHeight: 2,
          }),
        ],
      },
    ]);
    expect(got!.meta!.logMessages).toContain('Program 11111111111111111111111111111111 invoke [2]');

    const again = await rpcSend(
      await signedTransaction(chain, payer, [
        getPayInvoiceInstruction({ programId, kind: 'native', payer: payer.address, invoice, payee: alice.address }),
      ]),
    );
    expect(again.error?.data?.err).toEqual(customError(0, 'InvoiceNotOpen'));
  });

  it('verify_record: ed25519 needs the recorded address as signer; ETH needs a valid secp256k1 proof', async () => {
    const handle = await handlePda('emu_alice');
    const sol = await generateKeyPairSigner();
    const [solRecord] = await findRecordPda(programId, handle, 'address', 'SOL');
    await chain.send(
      await signedTransaction(chain, alice, [
        getSetRecordInstruction({
          programId,
          authority: alice.address,
          handle,
          record: solRecord,
          kind: 'address',
          key: 'SOL',
          value: sol.address,
        }),
      ]),
    );
    const impostor = await generateKeyPairSigner();
    const wrongVerifier = await signedTransaction(
      chain,
      alice,
      [
        getVerifyRecordInstruction({
          programId,
          authority: alice.address,
          handle,
          record: solRecord,
          verifier: impostor.address,
        }),
      ],
      { others: [impostor] },
    );
    expect((await rpcSend(wrongVerifier)).error?.data?.err).toEqual(customError(0, 'VerificationFailed'));
    const good = await signedTransaction(
      chain,
      alice,
      [
        getVerifyRecordInstruction({
          programId,
          authority: alice.address,
          handle,
          record: solRecord,
          verifier: sol.address,
        }),
      ],
      { others: [sol] },
    );
    expect((await rpcSend(good)).error).toBeUndefined();
    expect(decodeRecord(solRecord, (await account(solRecord))!)).toMatchObject({ verified: true, value: sol.address });

    const ethKey = sha256(new TextEncoder().encode('test-eth-key'));
    const otherKey = sha256(new TextEncoder().encode('other-eth-key'));
    const { eth } = secp256k1Addresses(ethKey);
    const [ethRecord] = await findRecordPda(programId, handle, 'address', 'ETH');
    await chain.send(
      await signedTransaction(chain, alice, [
        getSetRecordInstruction({
          programId,
          authority: alice.address,
          handle,
          record: ethRecord,
          kind: 'address',
          key: 'ETH',
          value: eth,
        }),
      ]),
    );
    const proveWith = async (key: Uint8Array): Promise<Instruction[]> => [
      {
        programAddress: SECP256K1_PROGRAM_ADDRESS,
        data: secp256k1ProofData(key, new TextEncoder().encode(verifyRecordMessage(ethRecord)), 0),
      },
      getVerifyRecordInstruction({
        programId,
        authority: alice.address,
        handle,
        record: ethRecord,
        verifier: SYSVAR_INSTRUCTIONS_ADDRESS,
      }),
    ];
    expect((await rpcSend(await signedTransaction(chain, alice, await proveWith(otherKey)))).error?.data?.err).toEqual(
      customError(1, 'VerificationFailed'),
    );
    expect((await rpcSend(await signedTransaction(chain, alice, await proveWith(ethKey)))).error).toBeUndefined();
    expect(decodeRecord(ethRecord, (await account(ethRecord))!).verified).toBe(true);
  });

  it('a mixed transaction (compute budget + memo + registry) runs every part and charges exactly the reported fee', async () => {
    const handle = await handlePda('emu_alice');
    const [record] = await findRecordPda(programId, handle, 'text', 'bio');
    const sig = await chain.sendAndConfirm(
      await signedTransaction(chain, alice, [
        getSetComputeUnitPriceInstruction({ microLamports: 1_000_000n }),
        getSetComputeUnitLimitInstruction({ units: 50_000 }),
        getAddMemoInstruction({ memo: 'set bio' }, { programAddress: SPL_MEMO_PROGRAM_ADDRESS }),
        getSetRecordInstruction({
          programId,
          authority: alice.address,
          handle,
          record,
          kind: 'text',
          key: 'bio',
          value: 'builder',
        }),
      ]),
    );
    const got = await chain.rpc
      .getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    expect(got!.meta!.fee).toBe(5000n + 50_000n); // 50k CU × 1 lamport
    const rent = got!.meta!.postBalances[got!.transaction.message.accountKeys.indexOf(record)]!;
    expect(got!.meta!.preBalances[0]! - got!.meta!.postBalances[0]!).toBe(got!.meta!.fee + rent);
    expect(got!.meta!.logMessages).toEqual(
      expect.arrayContaining(['Program log: set bio', 'Program log: Instruction: SetRecord']),
    );
    expect(decodeRecord(record, (await account(record))!).value).toBe('builder');
    const listed = await chain.rpc.getSignaturesForAddress(record, { commitment: 'confirmed' }).send();
    expect(listed[0]!.memo).toBe('[7] set bio');
  });

  it('undecodable registry instruction data fails with InvalidInstructionData', async () => {
    const tx = await signedTransaction(chain, alice, [
      { programAddress: programId, data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]) },
    ]);
    expect((await rpcSend(tx)).error?.data?.err).toEqual({ InstructionError: [0, 'InvalidInstructionData'] });
  });
});
