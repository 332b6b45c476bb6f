// Runs real program instructions (system, SPL Token, ATA, memo, precompiles…) through LiteSVM on behalf of
// signers whose signatures the caller has ALREADY verified: the emulated registry program's CPIs, and the
// non-registry instructions of a transaction that also carries registry instructions. LiteSVM runs with sigverify
// off, so the sub-transaction carries placeholder signatures; the fee LiteSVM charges for it is refunded, because
// the outer transaction pays the only fee.
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  compileTransactionMessage,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
} from '@solana/kit';
import type { FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm';
import { restoreAccount, snapshotOf, type ReportedInstruction } from './ledger';
import { LAMPORTS_PER_SIGNATURE, reportInnerInstructions } from './processor';
import { litesvmErrorJson } from './tx-errors';

export interface InvokeResult {
  /** The failing instruction's error (the inner part of InstructionError), or null. */
  error: unknown | null;
  /** Index (within `instructions`) of the failing instruction. */
  failedIndex: number;
  logs: string[];
  /** Every executed instruction as an inner instruction of the outer transaction (indices into `outerKeys`). */
  inner: ReportedInstruction[];
  computeUnits: bigint;
}

/**
 * Executes `instructions` atomically as one LiteSVM transaction paid by `feePayer`.
 * `depth` = the stack height the instructions run at in the outer transaction (1 = top level, 2 = CPI).
 */
export function invokeInSvm(
  svm: LiteSVM,
  feePayer: Address,
  instructions: Instruction[],
  outerKeys: readonly Address[],
  depth: number,
): InvokeResult {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 0n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransactionMessage(message);
  const transaction = compileTransaction(message);
  const subKeys = compiled.staticAccounts;
  const mapIndex = (i: number) => outerKeys.indexOf(subKeys[i]!);

  const payerBefore = snapshotOf(svm, feePayer);
  const result = svm.sendTransaction(transaction);
  // Refund the sub-transaction's signature fee: the outer transaction already paid.
  const payerAfter = snapshotOf(svm, feePayer);
  if (payerBefore && payerAfter) {
    const fee = LAMPORTS_PER_SIGNATURE * BigInt(compiled.header.numSignerAccounts);
    restoreAccount(svm, feePayer, { ...payerAfter, lamports: payerAfter.lamports + fee });
  }

  const failed = 'err' in result ? (result as FailedTransactionMetadata) : null;
  const meta: TransactionMetadata = failed ? failed.meta() : (result as TransactionMetadata);
  const shift = depth - 1;
  const logs = meta
    .logs()
    .map((line) => line.replace(/ invoke \[(\d+)\]$/, (_, n: string) => ` invoke [${Number(n) + shift}]`));

  const inner: ReportedInstruction[] = [];
  if (depth > 1) {
    const nested = reportInnerInstructions(meta, mapIndex, { stackOffset: shift });
    compiled.instructions.forEach((ix, index) => {
      const programIdIndex = mapIndex(ix.programAddressIndex);
      const accounts = (ix.accountIndices ?? []).map(mapIndex);
      if (programIdIndex >= 0 && accounts.every((a) => a >= 0)) {
        inner.push({ programIdIndex, accounts, data: new Uint8Array(ix.data ?? []), stackHeight: depth });
      }
      inner.push(...(nested.find((n) => n.index === index)?.instructions ?? []));
    });
  } else {
    for (const n of reportInnerInstructions(meta, mapIndex)) inner.push(...n.instructions);
  }

  let error: unknown = null;
  let failedIndex = -1;
  if (failed) {
    const json = litesvmErrorJson(failed);
    if (typeof json === 'object' && 'InstructionError' in json) {
      [failedIndex, error] = json.InstructionError as [number, unknown];
    } else {
      error = 'GenericError';
      failedIndex = 0;
    }
  }
  return { error, failedIndex, logs, inner, computeUnits: meta.computeUnitsConsumed() };
}
