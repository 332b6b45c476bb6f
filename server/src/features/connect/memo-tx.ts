// /v1/auth/verify-tx: the proof is a signed, never-broadcast transaction whose only instruction is a memo
// carrying this challenge's audience-bound memo. Some wallets refuse (or mangle) arbitrary message signing
// but will sign a transaction; this path serves them. Pure: decodes and checks, never sends anything.
//
// Rules (spec "verify-tx rules", docs/connect.md):
//   legacy or v0 message (v1 messages carry compute-budget config in their header: refused)
//   no address lookup tables; no durable nonce (first instruction AdvanceNonceAccount); no ComputeBudget
//   instruction; exactly one instruction, on an accepted memo program, whose data is exactly the memo bytes;
//   the memo instruction references no account but the wallet; the wallet is the fee payer and the only
//   signer, and its signature verifies over the message bytes.

import { getCompiledTransactionMessageDecoder, getTransactionDecoder, type Address } from '@solana/kit';
import { memoString } from '@sigil/contract/connect';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  PINOCCHIO_MEMO_PROGRAM_ADDRESS,
  SPL_MEMO_PROGRAM_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
} from '../../platform/chain/programs';
import { decodeAddress, verifyEd25519 } from '../../platform/crypto/wallet-signature';
import { decodeBase64 } from './siws';

/**
 * Memo programs whose instruction we accept. The signature proves the same thing whichever memo program id
 * the transaction names (it is never executed), so we accept the canonical SPL Memo that every validator and
 * the local chain load, and the id that the current `@solana-program/memo` client uses by default, so that
 * integrators building with that client's defaults are not refused. The deprecated v1 memo program is not.
 */
export const ACCEPTED_MEMO_PROGRAMS: readonly string[] = [SPL_MEMO_PROGRAM_ADDRESS, PINOCCHIO_MEMO_PROGRAM_ADDRESS];

/** System program instruction index of AdvanceNonceAccount (u32 LE). */
const ADVANCE_NONCE_ACCOUNT = 4;

export type MemoTxFailureReason =
  | 'undecodable' // not base64, not a transaction, or trailing bytes
  | 'unsupported-version' // not legacy or v0
  | 'lookup-tables'
  | 'durable-nonce'
  | 'compute-budget'
  | 'instruction-count' // not exactly one instruction
  | 'fee-payer-mismatch'
  | 'extra-signer'
  | 'not-memo-program'
  | 'memo-unbound-v1' // `sigil-verify:<nonce>`: the old unbound memo
  | 'memo-other-audience' // `sigil-verify:<other audience>:<nonce>`
  | 'memo-mismatch'
  | 'unexpected-accounts'
  | 'signature-missing'
  | 'signature-invalid';

export type MemoTxResult =
  { ok: true; version: 'legacy' | 0; memoProgram: string } | { ok: false; reason: MemoTxFailureReason; detail: string };

export interface MemoTxExpectation {
  /** base64 wire transaction, as sent in `signedTransaction`. */
  signedTransaction: string;
  /** The challenged wallet (base58). */
  wallet: string;
  /** The presenting key's audience and the challenge nonce: the memo is re-derived from them. */
  audience: string;
  nonce: string;
}

const fail = (reason: MemoTxFailureReason, detail: string): MemoTxResult => ({ ok: false, reason, detail });

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function classifyWrongMemo(data: Uint8Array, nonce: string): MemoTxResult {
  const text = new TextDecoder().decode(data);
  if (text === `sigil-verify:${nonce}`) {
    return fail('memo-unbound-v1', 'the unbound v1 memo is no longer accepted; sign `sigil-verify:<audience>:<nonce>`');
  }
  if (text.startsWith('sigil-verify:') && text.endsWith(`:${nonce}`)) {
    return fail('memo-other-audience', 'the memo is bound to another audience');
  }
  return fail('memo-mismatch', "the memo is not this challenge's memo");
}

/** Decodes and checks a verify-tx proof. Never broadcasts. */
export function verifyMemoTransaction(expect: MemoTxExpectation): MemoTxResult {
  const wire = decodeBase64(expect.signedTransaction.trim());
  if (!wire || wire.length === 0) return fail('undecodable', 'signedTransaction is not base64');
  const walletKey = decodeAddress(expect.wallet);
  if (!walletKey) return fail('fee-payer-mismatch', 'the challenged wallet is not a valid address');

  let messageBytes: Uint8Array;
  let signatures: Readonly<Record<string, Uint8Array | null>>;
  let compiled: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  try {
    const [transaction, end] = getTransactionDecoder().read(wire, 0);
    if (end !== wire.length) return fail('undecodable', 'trailing bytes after the transaction');
    messageBytes = new Uint8Array(transaction.messageBytes);
    signatures = transaction.signatures;
    const [message, messageEnd] = getCompiledTransactionMessageDecoder().read(messageBytes, 0);
    if (messageEnd !== messageBytes.length) return fail('undecodable', 'trailing bytes after the message');
    compiled = message;
  } catch {
    return fail('undecodable', 'signedTransaction is not a serialized transaction');
  }

  if (compiled.version !== 'legacy' && compiled.version !== 0) {
    return fail(
      'unsupported-version',
      `transaction version ${String(compiled.version)} is not accepted; use legacy or v0`,
    );
  }
  if (compiled.version === 0 && (compiled.addressTableLookups?.length ?? 0) > 0) {
    return fail('lookup-tables', 'address lookup tables are not allowed');
  }
  const accounts = compiled.staticAccounts;
  const instructions = compiled.instructions;
  const programOf = (index: number): string | undefined => accounts[index];
  if (instructions.some((ix) => programOf(ix.programAddressIndex) === undefined)) {
    return fail('undecodable', 'an instruction names a program outside the static accounts');
  }

  const first = instructions[0];
  if (
    first &&
    programOf(first.programAddressIndex) === SYSTEM_PROGRAM_ADDRESS &&
    first.data?.length === 4 &&
    new DataView(first.data.buffer, first.data.byteOffset, 4).getUint32(0, true) === ADVANCE_NONCE_ACCOUNT
  ) {
    return fail('durable-nonce', 'durable-nonce transactions are not allowed; use a recent blockhash');
  }
  if (instructions.some((ix) => programOf(ix.programAddressIndex) === COMPUTE_BUDGET_PROGRAM_ADDRESS)) {
    return fail('compute-budget', 'ComputeBudget instructions are not allowed');
  }
  if (instructions.length !== 1) {
    return fail('instruction-count', `exactly one memo instruction is required (got ${instructions.length})`);
  }

  if (accounts[0] !== expect.wallet) return fail('fee-payer-mismatch', 'the fee payer must be the challenged wallet');
  if (compiled.header.numSignerAccounts !== 1) {
    return fail('extra-signer', 'the challenged wallet must be the only signer');
  }

  const memo = instructions[0]!;
  const memoProgram = programOf(memo.programAddressIndex)!;
  if (!ACCEPTED_MEMO_PROGRAMS.includes(memoProgram)) return fail('not-memo-program', 'the instruction is not a memo');
  const expected = new TextEncoder().encode(memoString(expect.audience, expect.nonce));
  const data = memo.data ? new Uint8Array(memo.data) : new Uint8Array(0);
  if (!bytesEqual(data, expected)) return classifyWrongMemo(data, expect.nonce);
  if (
    (memo.accountIndices ?? []).some((i) => i !== 0) ||
    accounts.some((a) => a !== expect.wallet && a !== memoProgram)
  ) {
    return fail('unexpected-accounts', 'the transaction may reference only the wallet and the memo program');
  }

  const signature = signatures[expect.wallet as Address];
  if (!signature) return fail('signature-missing', 'the transaction is not signed by the wallet');
  if (!verifyEd25519(signature, messageBytes, walletKey)) {
    return fail('signature-invalid', "the wallet's signature does not verify over the message");
  }
  return { ok: true, version: compiled.version, memoProgram };
}
