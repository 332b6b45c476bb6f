// Transaction pipeline of the local chain: decode the wire bytes, verify every signature ourselves, check the
// blockhash and duplicates, execute (LiteSVM for real programs, the registry emulator for transactions that
// carry registry instructions), compute meta (fee, balances, token balances, logs, inner instructions) and record
// the result in the ledger. Everything here runs inside the ledger's serial queue.
import {
  getAddressDecoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  verifySignature,
  type Address,
  type Signature,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import {
  getSetComputeUnitLimitInstructionDataDecoder,
  getSetComputeUnitPriceInstructionDataDecoder,
} from '@solana-program/compute-budget';
import type { FailedTransactionMetadata, LiteSVM, TransactionMetadata } from 'litesvm';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  SPL_MEMO_PROGRAM_ADDRESS,
} from '../platform/chain/programs';
import {
  restoreAccount,
  snapshotOf,
  type Ledger,
  type ReportedInstruction,
  type TokenBalance,
  type TransactionErrorJson,
  type TransactionMeta,
  type TransactionRecord,
} from './ledger';
import type { AccountSnapshot } from './svm-reads';
import { readMintDecimals, readTokenAccount, uiTokenAmount } from './tokens';
import { landsOnChain, litesvmErrorJson } from './tx-errors';

export const LAMPORTS_PER_SIGNATURE = 5000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;
const ADDRESS_LOOKUP_TABLE_META_SIZE = 56;

export interface DecodedInstruction {
  programId: Address;
  programIdIndex: number;
  accountIndices: number[];
  data: Uint8Array;
}

/** A transaction decoded and resolved (lookup tables loaded) — what executors work on. */
export interface DecodedTransaction {
  wire: Uint8Array;
  transaction: Transaction;
  signature: Signature;
  signatures: (SignatureBytes | null)[];
  version: 'legacy' | 0;
  blockhash: string;
  accountKeys: Address[];
  loaded: { writable: Address[]; readonly: Address[] };
  numSigners: number;
  isSigner: (index: number) => boolean;
  isWritable: (index: number) => boolean;
  instructions: DecodedInstruction[];
}

/** The result of running a transaction's instructions (before meta is assembled). */
export interface ExecutionOutcome {
  err: TransactionErrorJson | null;
  logs: string[];
  innerInstructions: { index: number; instructions: ReportedInstruction[] }[];
  computeUnits: bigint;
}

/** Executes transactions for a program whose binary we do not have. */
export interface ProgramEmulator {
  readonly programId: Address;
  /** Runs every instruction of the transaction (the fee is already charged); may leave partial writes on error. */
  execute(tx: DecodedTransaction): Promise<ExecutionOutcome>;
  /**
   * For a transaction that carries none of the program's instructions: the failure the program's state imposes on
   * it anyway (a listed handle NFT is frozen), or null to let the runtime execute it.
   */
  screen(tx: DecodedTransaction): ExecutionOutcome | null;
}

/** A request the RPC must refuse before execution (maps to a JSON-RPC error). */
export class TransactionRejected extends Error {
  constructor(
    readonly reason: 'decode' | 'signature' | 'unsupported-version',
    message: string,
  ) {
    super(message);
  }
}

export interface ProcessResult {
  signature: Signature;
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  landed: boolean;
  innerInstructions: { index: number; instructions: ReportedInstruction[] }[];
  fee: bigint;
  accountKeys: Address[];
  postAccounts: (AccountSnapshot | null)[];
}

const base58 = getBase58Decoder();
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();
const addressDecoder = getAddressDecoder();
const unitLimitDecoder = getSetComputeUnitLimitInstructionDataDecoder();
const unitPriceDecoder = getSetComputeUnitPriceInstructionDataDecoder();

export class TransactionProcessor {
  constructor(
    private readonly svm: LiteSVM,
    private readonly ledger: Ledger,
    private readonly emulator: ProgramEmulator | null,
  ) {}

  /** Decodes wire bytes and resolves address lookup tables. Throws TransactionRejected. */
  decode(wire: Uint8Array): DecodedTransaction {
    let transaction: Transaction;
    let compiled: ReturnType<typeof messageDecoder.decode>;
    try {
      transaction = transactionDecoder.decode(wire);
      compiled = messageDecoder.decode(transaction.messageBytes);
    } catch (err) {
      throw new TransactionRejected('decode', `failed to deserialize transaction: ${(err as Error).message}`);
    }
    if (compiled.version !== 'legacy' && compiled.version !== 0) {
      throw new TransactionRejected('unsupported-version', `transaction version ${compiled.version} is not supported`);
    }
    const { header, staticAccounts } = compiled;
    const loaded = { writable: [] as Address[], readonly: [] as Address[] };
    const lookups = compiled.version === 0 ? (compiled.addressTableLookups ?? []) : [];
    for (const lookup of lookups) {
      const table = this.svm.getAccount(lookup.lookupTableAddress);
      if (!table.exists)
        throw new TransactionRejected('decode', `address lookup table ${lookup.lookupTableAddress} not found`);
      const addresses = (index: number) => {
        const start = ADDRESS_LOOKUP_TABLE_META_SIZE + index * 32;
        if (start + 32 > table.data.length)
          throw new TransactionRejected('decode', 'invalid address lookup table index');
        return addressDecoder.decode(table.data.subarray(start, start + 32));
      };
      loaded.writable.push(...lookup.writableIndexes.map(addresses));
      loaded.readonly.push(...lookup.readonlyIndexes.map(addresses));
    }
    const accountKeys = [...staticAccounts, ...loaded.writable, ...loaded.readonly];
    const numStatic = staticAccounts.length;
    const numSigners = header.numSignerAccounts;
    const isSigner = (i: number) => i < numSigners;
    const isWritable = (i: number) => {
      if (i < numSigners) return i < numSigners - header.numReadonlySignerAccounts;
      if (i < numStatic) return i < numStatic - header.numReadonlyNonSignerAccounts;
      return i < numStatic + loaded.writable.length;
    };
    const instructions = compiled.instructions.map((ix) => {
      const programId = accountKeys[ix.programAddressIndex];
      const accountIndices = ix.accountIndices ?? [];
      if (!programId || accountIndices.some((i) => i >= accountKeys.length)) {
        throw new TransactionRejected('decode', 'instruction refers to an account index out of range');
      }
      return { programId, programIdIndex: ix.programAddressIndex, accountIndices, data: new Uint8Array(ix.data ?? []) };
    });
    const signatures = Object.values(transaction.signatures) as (SignatureBytes | null)[];
    if (signatures.length !== numSigners || numSigners === 0) {
      throw new TransactionRejected('decode', 'signature count does not match the message header');
    }
    const first = signatures[0];
    return {
      wire,
      transaction,
      signature: base58.decode(first ?? new Uint8Array(64)) as Signature,
      signatures,
      version: compiled.version,
      blockhash: compiled.lifetimeToken,
      accountKeys,
      loaded,
      numSigners,
      isSigner,
      isWritable,
      instructions,
    };
  }

  /** Verifies every required signature over the message bytes (ed25519, via kit's WebCrypto implementation). */
  async verifySignatures(tx: DecodedTransaction): Promise<boolean> {
    const signers = tx.accountKeys.slice(0, tx.numSigners);
    const results = await Promise.all(
      signers.map(async (signer, i) => {
        const signature = tx.signatures[i];
        if (!signature) return false;
        try {
          const key = await getPublicKeyFromAddress(signer);
          return await verifySignature(key, signature, tx.transaction.messageBytes);
        } catch {
          return false;
        }
      }),
    );
    return results.every(Boolean);
  }

  /** 5000 lamports per signature plus the prioritization fee set through compute-budget instructions. */
  fee(tx: DecodedTransaction): bigint {
    let unitLimit: bigint | null = null;
    let microLamports = 0n;
    let otherInstructions = 0n;
    for (const ix of tx.instructions) {
      if (ix.programId !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
        otherInstructions++;
        continue;
      }
      try {
        if (ix.data[0] === 2) unitLimit = BigInt(unitLimitDecoder.decode(ix.data).units);
        if (ix.data[0] === 3) microLamports = BigInt(unitPriceDecoder.decode(ix.data).microLamports);
      } catch {
        // A malformed compute-budget instruction fails at execution; it sets no price here.
      }
    }
    const limit = unitLimit ?? minBig(otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION, MAX_COMPUTE_UNITS);
    const priority = (microLamports * limit + 999_999n) / 1_000_000n;
    return LAMPORTS_PER_SIGNATURE * BigInt(tx.numSigners) + priority;
  }

  /**
   * Executes a decoded, signature-checked transaction. `commit: 'always'` records a transaction that lands (success
   * or an instruction error, fee charged) in the current slot; `'on-success'` (preflight) records it only when it
   * succeeds; `'never'` (simulation) restores every account it touched.
   */
  async execute(
    tx: DecodedTransaction,
    options: { commit: 'always' | 'on-success' | 'never'; checkBlockhash: boolean },
  ): Promise<ProcessResult> {
    const keys = tx.accountKeys;
    const pre = keys.map((k) => snapshotOf(this.svm, k));
    const preTokenBalances = this.tokenBalances(keys, pre);
    const fee = this.fee(tx);

    let outcome: ExecutionOutcome;
    let feeCharged = false;
    const early = this.precheck(tx, options.checkBlockhash, fee);
    const emulated = this.emulator !== null && tx.instructions.some((ix) => ix.programId === this.emulator!.programId);
    const refused = early || emulated ? null : (this.emulator?.screen(tx) ?? null);
    if (early) {
      outcome = { err: early, logs: [], innerInstructions: [], computeUnits: 0n };
    } else if (refused) {
      this.chargeFee(keys[0]!, fee);
      outcome = refused;
      feeCharged = true;
    } else if (emulated) {
      this.chargeFee(keys[0]!, fee);
      outcome = await this.emulator!.execute(tx);
      feeCharged = true;
      if (outcome.err !== null) {
        // Atomic: undo every write, then keep only the fee (as the runtime does for a failed transaction).
        keys.forEach((k, i) => restoreAccount(this.svm, k, pre[i]!));
        this.chargeFee(keys[0]!, fee);
      }
    } else {
      outcome = this.runInSvm(tx);
      feeCharged = true;
    }

    const commit = options.commit === 'always' || (options.commit === 'on-success' && outcome.err === null);
    const landed = feeCharged && landsOnChain(outcome.err);
    if (!landed && feeCharged) keys.forEach((k, i) => restoreAccount(this.svm, k, pre[i]!));
    const post = keys.map((k) => snapshotOf(this.svm, k));
    const result: ProcessResult = {
      signature: tx.signature,
      err: outcome.err,
      logs: outcome.logs,
      unitsConsumed: outcome.computeUnits,
      landed: landed && commit,
      innerInstructions: outcome.innerInstructions,
      fee,
      accountKeys: keys,
      postAccounts: post,
    };
    if (!commit || !landed) {
      if (landed) keys.forEach((k, i) => restoreAccount(this.svm, k, pre[i]!));
      return result;
    }

    const slot = this.ledger.slot;
    const meta: TransactionMeta = {
      fee,
      err: outcome.err,
      preBalances: pre.map((a) => a?.lamports ?? 0n),
      postBalances: post.map((a) => a?.lamports ?? 0n),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys, post),
      logMessages: outcome.logs,
      innerInstructions: outcome.innerInstructions,
      loadedAddresses: tx.loaded,
      computeUnitsConsumed: outcome.computeUnits,
    };
    const record: TransactionRecord = {
      signature: tx.signature,
      slot,
      blockTime: this.ledger.blockTime(slot),
      wire: tx.wire,
      version: tx.version,
      accountKeys: keys,
      meta,
      memos: tx.instructions
        .filter((ix) => ix.programId === SPL_MEMO_PROGRAM_ADDRESS || ix.programId === MEMO_V1_PROGRAM_ADDRESS)
        .map((ix) => new TextDecoder().decode(ix.data)),
    };
    this.ledger.recordWrites(
      slot,
      keys.flatMap((address, i) =>
        sameAccount(pre[i]!, post[i]!) ? [] : [{ address, before: pre[i]!, after: post[i]! }],
      ),
    );
    this.ledger.recordTransaction(record);
    return result;
  }

  /** Failures that drop a transaction before execution (no fee, not recorded). */
  private precheck(tx: DecodedTransaction, checkBlockhash: boolean, fee: bigint): TransactionErrorJson | null {
    if (this.ledger.hasTransaction(tx.signature)) return 'AlreadyProcessed';
    if (checkBlockhash && !this.ledger.isBlockhashValid(tx.blockhash)) return 'BlockhashNotFound';
    const payer = snapshotOf(this.svm, tx.accountKeys[0]!);
    if (!payer) return 'AccountNotFound';
    if (payer.lamports < fee) return 'InsufficientFundsForFee';
    return null;
  }

  private chargeFee(payer: Address, fee: bigint): void {
    const account = snapshotOf(this.svm, payer)!;
    restoreAccount(this.svm, payer, { ...account, lamports: account.lamports - fee });
  }

  private runInSvm(tx: DecodedTransaction): ExecutionOutcome {
    const result = this.svm.sendTransaction(tx.transaction);
    const failed = 'err' in result ? (result as FailedTransactionMetadata) : null;
    const meta: TransactionMetadata = failed ? failed.meta() : (result as TransactionMetadata);
    return {
      err: failed ? litesvmErrorJson(failed) : null,
      logs: meta.logs(),
      innerInstructions: reportInnerInstructions(meta, (i) => i),
      computeUnits: meta.computeUnitsConsumed(),
    };
  }

  tokenBalances(keys: Address[], accounts: (AccountSnapshot | null)[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accounts.forEach((account, accountIndex) => {
      const token = readTokenAccount(account);
      if (!token) return;
      const mintIndex = keys.indexOf(token.mint);
      const mint = mintIndex >= 0 ? accounts[mintIndex]! : snapshotOf(this.svm, token.mint);
      const decimals = readMintDecimals(mint) ?? 0;
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: token.programId,
        uiTokenAmount: uiTokenAmount(token.amount, decimals),
      });
    });
    return out;
  }
}

/**
 * LiteSVM's inner instructions → the RPC's form. `mapIndex` translates an account index of the executed message
 * into the reported transaction's account list (returns -1 when the account is not there: such entries are
 * dropped). `stackOffset` shifts stack heights when a sub-transaction stands for a CPI.
 */
export function reportInnerInstructions(
  meta: TransactionMetadata,
  mapIndex: (index: number) => number,
  options: {
    stackOffset?: number;
    topLevel?: { index: number; programIdIndex: number; accounts: number[]; data: Uint8Array }[];
  } = {},
): { index: number; instructions: ReportedInstruction[] }[] {
  const offset = options.stackOffset ?? 0;
  const out: { index: number; instructions: ReportedInstruction[] }[] = [];
  meta.innerInstructions().forEach((list, index) => {
    const instructions: ReportedInstruction[] = [];
    for (const inner of list) {
      const ix = inner.instruction();
      const programIdIndex = mapIndex(ix.programIdIndex());
      const accounts = Array.from(ix.accounts(), mapIndex);
      if (programIdIndex < 0 || accounts.some((a) => a < 0)) continue;
      instructions.push({
        programIdIndex,
        accounts,
        data: new Uint8Array(ix.data()),
        stackHeight: inner.stackHeight() + offset,
      });
    }
    if (instructions.length > 0) out.push({ index, instructions });
  });
  return out;
}

function sameAccount(a: AccountSnapshot | null, b: AccountSnapshot | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.lamports !== b.lamports || a.owner !== b.owner || a.executable !== b.executable) return false;
  if (a.data.length !== b.data.length) return false;
  for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return false;
  return true;
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
