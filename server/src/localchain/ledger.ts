// The local chain's notion of time and history on top of LiteSVM (which has neither blocks nor commitments):
// slots and their block times, per-slot blockhashes, an account-version log so that reads at `confirmed` /
// `finalized` see the state of an older slot, and the transaction history the RPC methods serve.
import { sha256 } from '@noble/hashes/sha2.js';
import { getBase58Decoder, type Address, type Blockhash, type Signature } from '@solana/kit';
import { Clock, type LiteSVM } from 'litesvm';
import { SYSTEM_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { svmAccount, svmProgramAccounts, type AccountSnapshot } from './svm-reads';
import { writeGenerationOf, type WriteGeneration } from './svm-writes';

export type Commitment = 'processed' | 'confirmed' | 'finalized';
export const COMMITMENTS: readonly Commitment[] = ['processed', 'confirmed', 'finalized'];

/** Real clusters keep a blockhash usable for 150 blocks; we have one block per slot. */
export const BLOCKHASH_VALIDITY_SLOTS = 150n;
export const SLOTS_PER_EPOCH = 432_000n;

/** An account as stored (null = does not exist). */
export interface TokenBalance {
  accountIndex: number;
  mint: Address;
  owner: Address;
  programId: Address;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** A compiled instruction as the RPC reports it (indices into the transaction's account keys). */
export interface ReportedInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

/** Solana's JSON form of a TransactionError, e.g. "BlockhashNotFound" or {InstructionError: [0, {Custom: 1}]}. */
export type TransactionErrorJson = string | Record<string, unknown>;

export interface TransactionMeta {
  fee: bigint;
  err: TransactionErrorJson | null;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  innerInstructions: { index: number; instructions: ReportedInstruction[] }[];
  loadedAddresses: { writable: Address[]; readonly: Address[] };
  computeUnitsConsumed: bigint;
}

export interface TransactionRecord {
  signature: Signature;
  slot: bigint;
  blockTime: number;
  /** The transaction exactly as sent (wire format). */
  wire: Uint8Array;
  version: 'legacy' | 0;
  /** Static keys, then loaded writable, then loaded readonly: what meta indices refer to. */
  accountKeys: Address[];
  meta: TransactionMeta;
  /** Memo program texts, for getSignaturesForAddress's `memo` field. */
  memos: string[];
}

interface AccountVersion {
  slot: bigint;
  account: AccountSnapshot | null;
}

/** An account with its address, as accountsOwnedBy returns it. */
export interface OwnedAccount {
  address: Address;
  account: AccountSnapshot;
}

/** Reads cached within one write generation are dropped wholesale past this many addresses (bounded memory). */
const MAX_CACHED_ACCOUNTS = 20_000;
const MAX_CACHED_SCANS = 1_000;

export interface LedgerOptions {
  finalityLagSlots: number;
  slotMs: number;
  genesisHash: string;
}

const base58 = getBase58Decoder();

/** Runs tasks one at a time: transactions are atomic with respect to every RPC read. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => T | Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** The account as the SVM holds it now: a fresh copy the caller may keep (uncached; see Ledger.readAccount). */
export function snapshotOf(svm: LiteSVM, address: Address): AccountSnapshot | null {
  return svmAccount(svm, address);
}

/** Writes (or, with null, deletes) an account in the SVM. */
export function restoreAccount(svm: LiteSVM, address: Address, account: AccountSnapshot | null): void {
  const value = account ?? { lamports: 0n, owner: SYSTEM_PROGRAM_ADDRESS, data: new Uint8Array(), executable: false };
  svm.setAccount({
    address,
    lamports: value.lamports as never,
    programAddress: value.owner,
    data: value.data,
    executable: value.executable,
    space: BigInt(value.data.length),
  });
}

export class Ledger {
  readonly queue = new SerialQueue();
  private currentSlot = 0n;
  private readonly blockhashSlots = new Map<string, bigint>();
  private readonly blockhashesBySlot = new Map<bigint, Blockhash>();
  private readonly versions = new Map<Address, AccountVersion[]>();
  private readonly transactions = new Map<Signature, TransactionRecord>();
  /** Signatures per address, oldest first. */
  private readonly byAddress = new Map<Address, Signature[]>();
  /** Signatures per slot, in the order they landed (the block's transaction order). */
  private readonly bySlot = new Map<bigint, Signature[]>();
  private transactionCount = 0n;
  /** Unix seconds of each slot, by slot number. */
  private readonly slotTimes: number[] = [];
  /** How far the chain clock runs ahead of the wall clock (explicit advances move it; timer ticks do not). */
  private clockOffsetMs = 0;
  /**
   * Read caches, valid for one write generation only: any SVM write (see svm-writes.ts), recorded version or new
   * slot bumps the generation and the next read drops them wholesale. Cached snapshots are shared and frozen;
   * nobody may write into their data.
   */
  private readonly writes: WriteGeneration;
  private cacheGeneration = -1;
  private readonly currentAccounts = new Map<Address, AccountSnapshot | null>();
  private readonly owned = new Map<string, readonly OwnedAccount[]>();

  /** `svm` must be wrapped by trackWrites() (core.ts does). */
  constructor(
    readonly svm: LiteSVM,
    readonly options: LedgerOptions,
  ) {
    this.writes = writeGenerationOf(svm);
    this.enterSlot(0n);
  }

  /** Changes whenever anything a read may see changes (tests use it to check invalidation). */
  get generation(): number {
    return this.writes.value;
  }

  private freshCaches(): void {
    const generation = this.writes.value;
    if (generation === this.cacheGeneration) return;
    this.cacheGeneration = generation;
    this.currentAccounts.clear();
    this.owned.clear();
  }

  /** The account as the SVM holds it now (processed), cached for the current write generation. */
  private current(address: Address): AccountSnapshot | null {
    this.freshCaches();
    const hit = this.currentAccounts.get(address);
    if (hit !== undefined) return hit;
    const snapshot = snapshotOf(this.svm, address);
    if (snapshot) Object.freeze(snapshot);
    if (this.currentAccounts.size >= MAX_CACHED_ACCOUNTS) this.currentAccounts.clear();
    this.currentAccounts.set(address, snapshot);
    return snapshot;
  }

  get slot(): bigint {
    return this.currentSlot;
  }

  get finalityLagSlots(): bigint {
    return BigInt(this.options.finalityLagSlots);
  }

  get totalTransactions(): bigint {
    return this.transactionCount;
  }

  /** The slot a read at this commitment sees. */
  slotAt(commitment: Commitment): bigint {
    const lag = commitment === 'processed' ? 0n : commitment === 'confirmed' ? 1n : this.finalityLagSlots;
    return this.currentSlot > lag ? this.currentSlot - lag : 0n;
  }

  /**
   * The newest slot whose block is complete at this commitment. The current slot still takes transactions, so its
   * block is never served above processed: while the chain is still in slot 0, where every commitment's slot clamps,
   * there is no complete block yet (-1), and a reader that took block 0 then would miss what lands in it later.
   */
  completeSlotAt(commitment: Commitment): bigint {
    const settled = this.slotAt(commitment);
    return settled < this.currentSlot ? settled : this.currentSlot - 1n;
  }

  /** Status of something that landed in `slot`, as seen now. */
  statusOf(slot: bigint): Commitment {
    if (slot <= this.slotAt('finalized')) return 'finalized';
    if (slot <= this.slotAt('confirmed')) return 'confirmed';
    return 'processed';
  }

  /** Unix seconds of a slot that exists (the current one for later slots). */
  blockTime(slot: bigint): number {
    const index = Number(slot < this.currentSlot ? slot : this.currentSlot);
    return this.slotTimes[index]!;
  }

  /** The blockhash of any slot's block (derived, so it is known long after it stopped being usable). */
  blockhashAt(slot: bigint): Blockhash {
    return base58.decode(
      sha256(new TextEncoder().encode(`sigil-localchain:block:${this.options.genesisHash}:${slot}`)),
    ) as Blockhash;
  }

  blockhashOf(slot: bigint): Blockhash | undefined {
    return this.blockhashesBySlot.get(slot);
  }

  latestBlockhash(commitment: Commitment = 'finalized'): {
    blockhash: Blockhash;
    lastValidBlockHeight: bigint;
    slot: bigint;
  } {
    const slot = this.slotAt(commitment);
    return {
      blockhash: this.blockhashesBySlot.get(slot)!,
      lastValidBlockHeight: slot + BLOCKHASH_VALIDITY_SLOTS,
      slot,
    };
  }

  /** A blockhash is usable while its slot is at most 150 slots behind the current one. */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashSlots.get(blockhash);
    return slot !== undefined && this.currentSlot - slot <= BLOCKHASH_VALIDITY_SLOTS;
  }

  /**
   * Moves the chain forward by n slots (each slot = one block, with its own blockhash and block time).
   * Block time = wall clock + offset, never decreasing. With `moveClock` (explicit advances in tests) every slot
   * also pushes the offset by slotMs, so advancing 100 slots moves block time 40 s ahead deterministically; the
   * real-time ticker and the scenario seeding pass false and keep block time on the wall clock.
   */
  advance(n = 1, options: { moveClock?: boolean } = {}): bigint {
    for (let i = 0; i < n; i++) {
      if (options.moveClock ?? true) this.clockOffsetMs += this.options.slotMs;
      this.enterSlot(this.currentSlot + 1n);
    }
    return this.currentSlot;
  }

  /**
   * Enters one new slot whose block time is exactly `unix` (never earlier than the current one); later slots keep
   * running from there. Tests use it to hit rules at the second (an auction's anti-snipe window).
   */
  warpTo(unix: number): bigint {
    const previous = this.slotTimes[this.slotTimes.length - 1] ?? 0;
    if (!Number.isInteger(unix) || unix < previous) throw new Error(`cannot move block time back to ${unix}`);
    this.clockOffsetMs = unix * 1000 - Date.now();
    this.enterSlot(this.currentSlot + 1n, unix);
    return this.currentSlot;
  }

  private enterSlot(slot: bigint, at?: number): void {
    this.writes.bump(); // every commitment's view moves (setClock bumps too, being an SVM write)
    this.currentSlot = slot;
    const previous = this.slotTimes[this.slotTimes.length - 1] ?? 0;
    this.slotTimes.push(at ?? Math.max(previous, Math.floor((Date.now() + this.clockOffsetMs) / 1000)));
    const hash = this.blockhashAt(slot);
    this.blockhashSlots.set(hash, slot);
    this.blockhashesBySlot.set(slot, hash);
    // Forget blockhashes nobody may use any more, so a long-running chain does not grow without bound.
    const expired = slot - BLOCKHASH_VALIDITY_SLOTS - 1n;
    const old = this.blockhashesBySlot.get(expired);
    if (old) {
      this.blockhashesBySlot.delete(expired);
      this.blockhashSlots.delete(old);
    }
    const unix = BigInt(this.blockTime(slot));
    const epoch = slot / SLOTS_PER_EPOCH;
    const epochStart = BigInt(this.blockTime(epoch * SLOTS_PER_EPOCH));
    this.svm.setClock(new Clock(slot, epochStart, epoch, epoch + 1n, unix));
  }

  // ---- accounts -------------------------------------------------------------------------------------------------

  /** Records what a landed transaction wrote, so older commitments keep seeing the previous state. */
  recordWrites(
    slot: bigint,
    writes: { address: Address; before: AccountSnapshot | null; after: AccountSnapshot | null }[],
  ): void {
    this.writes.bump();
    for (const { address, before, after } of writes) {
      let log = this.versions.get(address);
      if (!log) {
        // The state before the first recorded write holds for every earlier slot.
        log = [{ slot: -1n, account: before }];
        this.versions.set(address, log);
      }
      const last = log[log.length - 1]!;
      if (last.slot === slot) last.account = after;
      else log.push({ slot, account: after });
    }
  }

  /**
   * The account as of the commitment's slot. Accounts never written by a transaction are read from the SVM.
   * The snapshot may be shared with other readers: do not modify it.
   */
  readAccount(address: Address, commitment: Commitment): AccountSnapshot | null {
    const log = this.versions.get(address);
    if (!log || commitment === 'processed') return this.current(address);
    const slot = this.slotAt(commitment);
    for (let i = log.length - 1; i >= 0; i--) {
      if (log[i]!.slot <= slot) return log[i]!.account;
    }
    return log[0]!.account;
  }

  /**
   * Every account owned by `owner` at the commitment, with its address: the SVM's accounts of that owner (in the
   * SVM's order), each as of the commitment, then the other versioned addresses whose state at the commitment the
   * owner held. Cached for the current write generation; the list and its snapshots are shared: do not modify.
   */
  accountsOwnedBy(owner: Address, commitment: Commitment): readonly OwnedAccount[] {
    this.freshCaches();
    const key = `${commitment}:${owner}`;
    const hit = this.owned.get(key);
    if (hit) return hit;
    const out: OwnedAccount[] = [];
    const seen = new Set<Address>();
    for (const { address, account: current } of svmProgramAccounts(this.svm, owner)) {
      if (seen.has(address)) continue;
      seen.add(address);
      // The SVM's current state, unless a version log says what the commitment sees.
      const account =
        commitment === 'processed' || !this.versions.has(address)
          ? Object.freeze(current)
          : this.readAccount(address, commitment);
      if (account && account.owner === owner) out.push(Object.freeze({ address, account }));
    }
    if (commitment !== 'processed') {
      for (const address of this.versions.keys()) {
        if (seen.has(address)) continue;
        const account = this.readAccount(address, commitment);
        if (account && account.owner === owner) out.push(Object.freeze({ address, account }));
      }
    }
    Object.freeze(out);
    if (this.owned.size >= MAX_CACHED_SCANS) this.owned.clear();
    this.owned.set(key, out);
    return out;
  }

  // ---- history --------------------------------------------------------------------------------------------------

  hasTransaction(signature: string): boolean {
    return this.transactions.has(signature as Signature);
  }

  recordTransaction(record: TransactionRecord): void {
    this.transactions.set(record.signature, record);
    this.transactionCount++;
    for (const address of new Set(record.accountKeys)) {
      let list = this.byAddress.get(address);
      if (!list) this.byAddress.set(address, (list = []));
      list.push(record.signature);
    }
    let block = this.bySlot.get(record.slot);
    if (!block) this.bySlot.set(record.slot, (block = []));
    block.push(record.signature);
  }

  /** The transactions of one slot's block, in the order they landed. */
  blockTransactions(slot: bigint): TransactionRecord[] {
    return (this.bySlot.get(slot) ?? []).map((signature) => this.transactions.get(signature)!);
  }

  /** The transaction if it is visible at the commitment. */
  getTransaction(signature: string, commitment: Commitment = 'processed'): TransactionRecord | null {
    const record = this.transactions.get(signature as Signature);
    if (!record || record.slot > this.slotAt(commitment)) return null;
    return record;
  }

  /** Signatures touching the address, newest first, visible at the commitment. */
  signaturesFor(address: Address, commitment: Commitment): TransactionRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const maxSlot = this.slotAt(commitment);
    const out: TransactionRecord[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const record = this.transactions.get(list[i]!)!;
      if (record.slot <= maxSlot) out.push(record);
    }
    return out;
  }
}
