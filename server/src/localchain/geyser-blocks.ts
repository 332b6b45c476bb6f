// The local chain's ledger in the Geyser wire form (geyser.proto): a slot's block with its transactions, each
// transaction with its message and status meta. Plain objects as @grpc/proto-loader encodes them (u64 as decimal
// strings, bytes as Uint8Array), so the gRPC layer only serializes.
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { base58ToBytes } from './base58';
import type { Ledger, ReportedInstruction, TokenBalance, TransactionErrorJson, TransactionRecord } from './ledger';

const messageDecoder = getCompiledTransactionMessageDecoder();
const transactionDecoder = getTransactionDecoder();

// Variant order of Solana's `TransactionError` and `InstructionError` enums: bincode writes a variant as its index
// (u32, little-endian), which is how the Geyser protocol carries a transaction error.
const TRANSACTION_ERROR_VARIANTS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'InstructionError',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'DuplicateInstruction',
  'InsufficientFundsForRent',
  'MaxLoadedAccountsDataSizeExceeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'ResanitizationNeeded',
  'ProgramExecutionTemporarilyRestricted',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

const INSTRUCTION_ERROR_VARIANTS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'Custom',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'BorshIoError',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
] as const;

const u32 = (n: number) => {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, true);
  return out;
};

function variantIndex(table: readonly string[], name: string): number {
  const index = table.indexOf(name);
  if (index < 0) throw new Error(`no bincode variant for error ${name}`);
  return index;
}

/** The variant name and payload of an enum value in Solana's JSON form ("Name" or {Name: payload}). */
function variantOf(value: unknown): [string, unknown] {
  if (typeof value === 'string') return [value, undefined];
  const [entry] = Object.entries(value as Record<string, unknown>);
  if (!entry) throw new Error('empty error object');
  return entry;
}

function instructionErrorBytes(value: unknown): Uint8Array[] {
  const [name, payload] = variantOf(value);
  const head = u32(variantIndex(INSTRUCTION_ERROR_VARIANTS, name));
  // BorshIoError carries no message in current Solana (older ones had a string); the message cannot travel.
  return name === 'Custom' ? [head, u32(payload as number)] : [head];
}

/** Solana's JSON TransactionError → its bincode bytes (what SubscribeUpdate's TransactionError.err holds). */
export function transactionErrorBytes(err: TransactionErrorJson): Uint8Array {
  const [name, payload] = variantOf(err);
  const parts: Uint8Array[] = [u32(variantIndex(TRANSACTION_ERROR_VARIANTS, name))];
  if (name === 'InstructionError') {
    const [index, inner] = payload as [number, unknown];
    parts.push(Uint8Array.of(index), ...instructionErrorBytes(inner));
  } else if (name === 'DuplicateInstruction') {
    parts.push(Uint8Array.of(payload as number));
  } else if (name === 'InsufficientFundsForRent' || name === 'ProgramExecutionTemporarilyRestricted') {
    parts.push(Uint8Array.of((payload as { account_index: number }).account_index));
  }
  return Uint8Array.from(parts.flatMap((part) => [...part]));
}

const keyBytes = (keys: readonly string[]) => keys.map(base58ToBytes);

const instructionWire = (ix: ReportedInstruction) => ({
  programIdIndex: ix.programIdIndex,
  accounts: Uint8Array.from(ix.accounts),
  data: ix.data,
  ...(ix.stackHeight === null ? {} : { stackHeight: ix.stackHeight }),
});

const tokenBalanceWire = (balance: TokenBalance) => ({
  accountIndex: balance.accountIndex,
  mint: balance.mint,
  owner: balance.owner,
  programId: balance.programId,
  uiTokenAmount: {
    amount: balance.uiTokenAmount.amount,
    decimals: balance.uiTokenAmount.decimals,
    uiAmount: balance.uiTokenAmount.uiAmount ?? 0,
    uiAmountString: balance.uiTokenAmount.uiAmountString,
  },
});

/** One landed transaction as SubscribeUpdateTransactionInfo; `index` is its position in the block. */
export function transactionInfo(record: TransactionRecord, index: number) {
  const transaction = transactionDecoder.decode(record.wire);
  const message = messageDecoder.decode(transaction.messageBytes);
  // The ledger takes legacy and v0 transactions only (as the JSON-RPC methods rely on too).
  if (message.version === 1) throw new Error(`transaction ${record.signature}: version 1 is not stored`);
  const { meta } = record;
  const signatures = Object.values(transaction.signatures).map((s) => s ?? new Uint8Array(64));
  return {
    signature: base58ToBytes(record.signature),
    isVote: false,
    transaction: {
      signatures,
      message: {
        header: {
          numRequiredSignatures: message.header.numSignerAccounts,
          numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
          numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
        },
        accountKeys: keyBytes(message.staticAccounts),
        recentBlockhash: base58ToBytes(message.lifetimeToken),
        instructions: message.instructions.map((ix) => ({
          programIdIndex: ix.programAddressIndex,
          accounts: Uint8Array.from(ix.accountIndices ?? []),
          data: ix.data ?? new Uint8Array(),
        })),
        versioned: message.version !== 'legacy',
        addressTableLookups:
          message.version === 0
            ? (message.addressTableLookups ?? []).map((l) => ({
                accountKey: base58ToBytes(l.lookupTableAddress),
                writableIndexes: Uint8Array.from(l.writableIndexes),
                readonlyIndexes: Uint8Array.from(l.readonlyIndexes),
              }))
            : [],
      },
    },
    meta: {
      ...(meta.err === null ? {} : { err: { err: transactionErrorBytes(meta.err) } }),
      fee: meta.fee.toString(),
      preBalances: meta.preBalances.map(String),
      postBalances: meta.postBalances.map(String),
      innerInstructions: meta.innerInstructions.map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map(instructionWire),
      })),
      logMessages: meta.logMessages,
      preTokenBalances: meta.preTokenBalances.map(tokenBalanceWire),
      postTokenBalances: meta.postTokenBalances.map(tokenBalanceWire),
      loadedWritableAddresses: keyBytes(meta.loadedAddresses.writable),
      loadedReadonlyAddresses: keyBytes(meta.loadedAddresses.readonly),
      returnDataNone: true,
      computeUnitsConsumed: meta.computeUnitsConsumed.toString(),
    },
    index: String(index),
  };
}

export type TransactionInfo = ReturnType<typeof transactionInfo>;

/** A slot's block as SubscribeUpdateBlock carrying the given transactions (those its filter kept, in block order). */
export function blockUpdate(ledger: Ledger, slot: bigint, transactions: readonly TransactionInfo[]) {
  const parent = slot > 0n ? slot - 1n : 0n;
  return {
    slot: slot.toString(),
    blockhash: ledger.blockhashAt(slot),
    rewards: { rewards: [] },
    blockTime: { timestamp: String(ledger.blockTime(slot)) },
    // One block per slot since genesis: the height is the slot.
    blockHeight: { blockHeight: slot.toString() },
    parentSlot: parent.toString(),
    parentBlockhash: ledger.blockhashAt(parent),
    executedTransactionCount: String(ledger.blockTransactions(slot).length),
    transactions,
    updatedAccountCount: '0',
    entriesCount: '0',
  };
}
