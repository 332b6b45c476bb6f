import { beforeAll, describe, expect, it } from 'vitest';
import { base58, base64 } from '@scure/base';
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Nonce,
} from '@solana/kit';
import { getAddMemoInstruction } from '@solana-program/memo';
import { getSetComputeUnitLimitInstruction } from '@solana-program/compute-budget';
import { verifyMemoTransaction, type MemoTxResult } from './memo-tx';

const SPL_MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const AUDIENCE = 'key_01HZXAUD';
const NONCE = 'n_Tx7Qp2';
const MEMO = 'sigil-verify:key_01HZXAUD:n_Tx7Qp2';
const BLOCKHASH = blockhash(base58.encode(new Uint8Array(32).fill(7)));

let alice: KeyPairSigner;
let bob: KeyPairSigner;
beforeAll(async () => {
  alice = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(11));
  bob = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(12));
});

const memoIx = (memo = MEMO, programAddress: Address = SPL_MEMO, signers: KeyPairSigner[] = []) =>
  getAddMemoInstruction({ memo, signers }, { programAddress });

async function signedTx(options: {
  version?: 'legacy' | 0 | 1;
  feePayer?: KeyPairSigner;
  instructions?: Instruction[];
}): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version: (options.version ?? 0) as 0 }),
    (m) => setTransactionMessageFeePayerSigner(options.feePayer ?? alice, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstructions(options.instructions ?? [memoIx()], m),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
}

const check = (signedTransaction: string, wallet = alice.address): MemoTxResult =>
  verifyMemoTransaction({ signedTransaction, wallet, audience: AUDIENCE, nonce: NONCE });
const reasonOf = (r: MemoTxResult) => (r.ok ? 'ok' : r.reason);

describe('verifyMemoTransaction: accepted', () => {
  it('legacy transaction with the exact memo', async () => {
    expect(check(await signedTx({ version: 'legacy' }))).toEqual({
      ok: true,
      version: 'legacy',
      memoProgram: SPL_MEMO,
    });
  });
  it('v0 transaction with the exact memo', async () => {
    expect(check(await signedTx({ version: 0 }))).toEqual({ ok: true, version: 0, memoProgram: SPL_MEMO });
  });
  it('the wallet listed as the memo signer (what some wallets do)', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(MEMO, SPL_MEMO, [alice])] })))).toBe('ok');
  });
  it("the @solana-program/memo client's default program id", async () => {
    const ix = getAddMemoInstruction({ memo: MEMO });
    expect(ix.programAddress).toBe('Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH');
    expect(reasonOf(check(await signedTx({ instructions: [ix] })))).toBe('ok');
  });
});

describe('verifyMemoTransaction: refused', () => {
  it('wrong memo', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx('hello')] })))).toBe('memo-mismatch');
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(MEMO + ' ')] })))).toBe('memo-mismatch');
  });
  it('the unbound v1 memo sigil-verify:<nonce>', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(`sigil-verify:${NONCE}`)] })))).toBe(
      'memo-unbound-v1',
    );
  });
  it('a memo bound to another audience', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(`sigil-verify:key_OTHER:${NONCE}`)] })))).toBe(
      'memo-other-audience',
    );
  });
  it('a v1 transaction (its header carries compute-budget configuration)', async () => {
    expect(check(await signedTx({ version: 1 }))).toEqual({
      ok: false,
      reason: 'unsupported-version',
      detail: 'transaction version 1 is not accepted; use legacy or v0',
    });
  });
  it('two instructions', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(), memoIx()] })))).toBe('instruction-count');
    expect(reasonOf(check(await signedTx({ instructions: [] })))).toBe('instruction-count');
  });
  it('a ComputeBudget instruction added', async () => {
    const cu = getSetComputeUnitLimitInstruction({ units: 50_000 });
    expect(reasonOf(check(await signedTx({ instructions: [cu, memoIx()] })))).toBe('compute-budget');
  });
  it('an address lookup table', async () => {
    const lookedUp = address(base58.encode(new Uint8Array(32).fill(21)));
    const lut = address(base58.encode(new Uint8Array(32).fill(22)));
    const ix = { ...memoIx(), accounts: [{ address: lookedUp, role: AccountRole.READONLY }] };
    const message = compressTransactionMessageUsingAddressLookupTables(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(alice, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, m),
        (m) => appendTransactionMessageInstruction(ix, m),
      ),
      { [lut]: [lookedUp] },
    );
    const wire = getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
    expect(reasonOf(check(wire))).toBe('lookup-tables');
  });
  it('a durable nonce', async () => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(alice, m),
      (m) =>
        setTransactionMessageLifetimeUsingDurableNonce(
          {
            nonce: base58.encode(new Uint8Array(32).fill(31)) as Nonce,
            nonceAccountAddress: address(base58.encode(new Uint8Array(32).fill(32))),
            nonceAuthorityAddress: alice.address,
          },
          m,
        ),
      (m) => appendTransactionMessageInstruction(memoIx(), m),
    );
    const wire = getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message));
    expect(reasonOf(check(wire))).toBe('durable-nonce');
  });
  it('an extra signer', async () => {
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(MEMO, SPL_MEMO, [bob])] })))).toBe('extra-signer');
  });
  it('a different fee payer', async () => {
    expect(reasonOf(check(await signedTx({ feePayer: bob })))).toBe('fee-payer-mismatch');
    expect(reasonOf(check(await signedTx({ feePayer: bob, instructions: [memoIx(MEMO, SPL_MEMO, [alice])] })))).toBe(
      'fee-payer-mismatch',
    );
  });
  it('a non-memo program', async () => {
    const other = address('Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'); // deprecated v1 memo: not accepted
    expect(reasonOf(check(await signedTx({ instructions: [memoIx(MEMO, other)] })))).toBe('not-memo-program');
  });
  it('a memo referencing another (non-signer) account', async () => {
    const ix = {
      ...memoIx(),
      accounts: [{ address: address(base58.encode(new Uint8Array(32).fill(41))), role: AccountRole.READONLY }],
    };
    expect(reasonOf(check(await signedTx({ instructions: [ix] })))).toBe('unexpected-accounts');
  });
  it('a bad signature', async () => {
    const wire = base64.decode(await signedTx({}));
    wire[5] ^= 0x01; // inside the first (only) signature
    expect(check(base64.encode(wire))).toEqual({
      ok: false,
      reason: 'signature-invalid',
      detail: "the wallet's signature does not verify over the message",
    });
  });
  it("another transaction's signature", async () => {
    const good = base64.decode(await signedTx({}));
    const other = base64.decode(await signedTx({ version: 'legacy' }));
    other.set(good.subarray(1, 65), 1);
    expect(reasonOf(check(base64.encode(other)))).toBe('signature-invalid');
  });
  it('an unsigned transaction', async () => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(alice.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, m),
      (m) => appendTransactionMessageInstruction(memoIx(), m),
    );
    expect(reasonOf(check(getBase64EncodedWireTransaction(compileTransaction(message))))).toBe('signature-missing');
  });
  it('a transaction for another wallet', async () => {
    expect(reasonOf(check(await signedTx({}), bob.address))).toBe('fee-payer-mismatch');
  });
  it('garbage base64, non-transactions and trailing bytes', async () => {
    expect(reasonOf(check('!!!not base64!!!'))).toBe('undecodable');
    expect(reasonOf(check(''))).toBe('undecodable');
    expect(reasonOf(check('AAAA'))).toBe('undecodable');
    expect(reasonOf(check(base64.encode(new Uint8Array(300).fill(0xab))))).toBe('undecodable');
    const wire = base64.decode(await signedTx({}));
    expect(reasonOf(check(base64.encode(new Uint8Array([...wire, 0]))))).toBe('undecodable');
    expect(reasonOf(check(base64.encode(wire.subarray(0, wire.length - 3))))).toBe('undecodable');
  });
});
