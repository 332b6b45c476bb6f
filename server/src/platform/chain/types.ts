// The chain reader's contract: what the rest of the service may ask of the chain.
// Implemented once (reader.ts) over Solana JSON-RPC; features depend on this interface only.
import type { Address } from '@solana/kit';
import type { MarketAccountData, MarketAccountName } from './registry/market';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Default commitment per read; see docs/chain-reads.md for why. */
export const DEFAULT_COMMITMENT = {
  resolution: 'confirmed',
  payments: 'finalized',
} as const satisfies Record<string, Commitment>;

/** Why a chain read failed. `unreachable`: transport or RPC error (retryable). `malformed`: data does not decode. */
export class ChainError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'malformed',
    message: string,
    readonly account?: string,
  ) {
    super(message);
    this.name = 'ChainError';
  }
}

export interface HandleAccount {
  address: Address; // the Handle PDA
  name: string;
  owner: Address;
  handleType: number; // 3 = Agent
  tokenized: boolean;
  mint: Address | null;
  registrationEpoch: bigint;
  registeredAt: number; // unix seconds
  registeredSlot: bigint;
}

/** Who controls a handle right now: the owner, or the holder of the NFT in its associated token account. */
export interface HandleAuthority {
  authority: Address | null; // null: released, or tokenized and the NFT is not held in an associated token account
  source: 'owner' | 'nft-holder';
  /** Why authority is null: released (owner zeroed), NFT burned (no holder), or NFT held outside the holder's ATA. */
  reason?: 'released' | 'nft-burned' | 'nft-not-in-ata';
}

export interface PrimaryPointerAccount {
  address: Address;
  wallet: Address;
  handle: Address;
  handleEpoch: bigint;
  setAt: number;
  setSlot: bigint;
}

export interface RecordAccount {
  address: Address;
  handle: Address;
  kind: 'address' | 'text';
  key: string;
  value: string;
  authority: Address;
  handleEpoch: bigint;
  verified: boolean; // as stored; see trust-rules.ts for staleness
  verifiedAt: number;
  updatedAt: number;
  updatedSlot: bigint;
}

export interface AttestationAccount {
  address: Address;
  handle: Address;
  issuer: Address;
  platform: string;
  subject: string;
  issuedAt: number;
  expiresAt: number; // 0 = never
  revoked: boolean;
}

export interface NamespaceAccount {
  address: Address; // the Namespace PDA
  authority: Address;
  active: boolean;
  createdAt: number;
  tld: string;
}

export interface DomainAccount {
  address: Address;
  namespace: Address;
  label: string;
  tld: string;
  owner: Address;
  tokenized: boolean;
  mint: Address | null;
  registeredAt: number;
  registeredSlot: bigint;
}

export interface InvoiceAccount {
  address: Address;
  payee: Address;
  paidBy: Address | null;
  mint: Address | null; // null = native
  amount: bigint;
  fee: bigint;
  expiresAt: number;
  status: 0 | 1 | 2; // Open, Paid, Cancelled
  boundHandle: Address | null;
  createdAt: number;
  createdSlot: bigint;
  paidAt: number;
  id: bigint;
  memo: string;
}

/** One JSON-RPC call, reported to `onRpcCall` (the HTTP layer turns it into Prometheus metrics). */
export interface RpcCallEvent {
  method: string;
  durationMs: number;
  /** Absent on success; `unreachable` (transport, timeout, RPC error) or `malformed` (undecodable answer). */
  error?: 'unreachable' | 'malformed';
}

/** Per-entry results of a multi-account read: the account, null when absent, or why that one entry failed. */
export type Many<T> = (T | null | ChainError)[];

/** A record's identity under its handle (its address derives from these). */
export interface RecordKey {
  kind: 'address' | 'text';
  key: string;
}

/** Options of the multi-account reads: the commitment, and the oldest slot the answer may be read at. */
export interface ManyAccountsOptions {
  commitment?: Commitment;
  /** Passed as the RPC's `minContextSlot`: a node behind it answers an error (unreachable) instead of older state. */
  minContextSlot?: bigint;
}

/** A value together with the slot the RPC answered at. */
export interface AtSlot<T> {
  value: T;
  slot: bigint;
}

/** A whole-registry scan: what decoded, and the addresses of the accounts that did not. */
export interface RegistryScan<T> {
  accounts: T[];
  undecodable: Address[];
}

/** One entry of getSignaturesForAddress (newest first). */
export interface SignatureInfo {
  signature: string;
  slot: bigint;
  /** The transaction error (JSON form) or null when it succeeded. */
  err: unknown;
  blockTime: number | null;
}

/** A compiled instruction with its accounts and program resolved to addresses. */
export interface TransactionInstruction {
  programId: Address;
  accounts: Address[];
  data: Uint8Array;
}

/** A token balance entry of a transaction's meta (pre or post). */
export interface TransactionTokenBalance {
  accountIndex: number;
  account: Address;
  mint: Address;
  owner: Address | null;
  programId: Address | null;
  amount: bigint;
}

/** A landed transaction, decoded for the payment indexer (json encoding, v0 supported). */
export interface ChainTransaction {
  signature: string;
  slot: bigint;
  blockTime: number | null;
  err: unknown;
  /** Static keys, then loaded writable, then loaded readonly (what instruction indices refer to). */
  accountKeys: Address[];
  /** The transaction's signers (the first numRequiredSignatures static keys). */
  signers: Address[];
  /** Top-level instructions, each with its inner (CPI) instructions in order. */
  instructions: (TransactionInstruction & { inner: TransactionInstruction[] })[];
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TransactionTokenBalance[];
  postTokenBalances: TransactionTokenBalance[];
}

/** One block as the reads return it: its transactions in block order (failed ones included, `err` set). */
export interface ChainBlock {
  slot: bigint;
  blockTime: number | null;
  transactions: ChainTransaction[];
}

/** getTransaction with `encoding: 'base64'`, as the RPC answers it (u64 values as kit decodes them: bigint). */
export interface WireTransaction {
  slot: bigint;
  blockTime: bigint | number | null;
  meta: {
    err: unknown;
    preTokenBalances?: readonly { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
    postTokenBalances?: readonly { accountIndex: number; mint: string; uiTokenAmount: { amount: string } }[];
    loadedAddresses?: { readonly: readonly Address[]; writable: readonly Address[] };
  } | null;
  transaction: readonly [string, 'base64'];
  version?: 'legacy' | 0 | 1;
}

/** A mint's token program (its owner: SPL Token or Token-2022) and decimals. */
export interface MintInfo {
  address: Address;
  tokenProgram: Address;
  decimals: number;
}

/** A recent blockhash: the lifetime of a transaction built now. */
export interface RecentBlockhash {
  blockhash: string;
  lastValidBlockHeight: bigint;
}

/** A token account (SPL Token or Token-2022) and its owner. */
export interface TokenAccountRef {
  address: Address;
  mint: Address;
  owner: Address;
  programId: Address;
}

export interface ChainReader {
  readonly rpcUrl: string;
  readonly programId: Address;
  /** Handle by normalized name; null when no account exists. Throws ChainError. */
  getHandle(name: string, commitment?: Commitment): Promise<AtSlot<HandleAccount | null>>;
  getHandleByAddress(handle: Address, commitment?: Commitment): Promise<HandleAccount | null>;
  getHandleAuthority(handle: HandleAccount, commitment?: Commitment): Promise<HandleAuthority>;
  getPrimary(wallet: Address, commitment?: Commitment): Promise<PrimaryPointerAccount | null>;
  /**
   * The primary pointers of up to 100 wallets in ONE getMultipleAccounts, in input order, with the slot of the
   * answer. An entry that does not decode is its ChainError (the others still count); a failed call throws.
   */
  getPrimaries(
    wallets: readonly Address[],
    options?: ManyAccountsOptions,
  ): Promise<AtSlot<Many<PrimaryPointerAccount>>>;
  /**
   * Handles by normalized name, up to 100 in ONE getMultipleAccounts (a batch resolve): each entry as getHandle would
   * answer it (null when absent; its ChainError when it does not decode or stores another name), one slot for all.
   */
  getHandles(names: readonly string[], options?: ManyAccountsOptions): Promise<AtSlot<Many<HandleAccount>>>;
  /** Handles by account address, up to 100 in ONE getMultipleAccounts; same per-entry rule as getPrimaries. */
  getHandlesByAddress(handles: readonly Address[], options?: ManyAccountsOptions): Promise<AtSlot<Many<HandleAccount>>>;
  /**
   * Records (by kind and key) and attestations (by platform) of one handle, by their derived addresses, in ONE
   * getMultipleAccounts: every answer at one slot. Same per-entry rule as getPrimaries; absent → null.
   */
  getHandleAccounts(
    handle: Address,
    wanted: { records: readonly RecordKey[]; attestations: readonly string[] },
    options?: ManyAccountsOptions,
  ): Promise<AtSlot<{ records: Many<RecordAccount>; attestations: Many<AttestationAccount> }>>;
  /**
   * The sum of `owner`'s token accounts of `mint` (SPL Token and Token-2022, any account, not only the associated
   * one), with the lowest slot of the two program scans. Throws ChainError.
   */
  getTokenBalance(owner: Address, mint: Address, options?: ManyAccountsOptions): Promise<AtSlot<bigint>>;
  getRecords(handle: Address, commitment?: Commitment): Promise<RecordAccount[]>;
  getAttestations(handle: Address, commitment?: Commitment): Promise<AttestationAccount[]>;
  /**
   * getHandle and getAttestations of that handle (sorted by platform) in ONE JSON-RPC batch (sign-in reads both).
   * The handle part throws ChainError as getHandle does; the attestations part never fails the call: an RPC error
   * or an undecodable list gives `attestations: null`.
   */
  getHandleWithAttestations(
    name: string,
    commitment?: Commitment,
  ): Promise<{ handle: AtSlot<HandleAccount | null>; attestations: AttestationAccount[] | null }>;
  getDomain(label: string, tld: string, commitment?: Commitment): Promise<AtSlot<DomainAccount | null>>;
  /**
   * Every Handle account of the registry (one getProgramAccounts scan; the handle index). An account that does not
   * decode is listed in `undecodable` instead of failing the scan: one bad account must not hide all the others.
   */
  scanHandles(commitment?: Commitment): Promise<RegistryScan<HandleAccount>>;
  /** Every text Record with exactly this key, of any handle (one getProgramAccounts scan); same `undecodable` rule. */
  scanTextRecords(key: string, commitment?: Commitment): Promise<RegistryScan<RecordAccount>>;
  getInvoice(invoice: Address, commitment?: Commitment): Promise<InvoiceAccount | null>;
  /** A market account (docs/registry-program.md § Market) by address; null when absent; default `confirmed`. */
  getMarketAccount<N extends MarketAccountName>(
    name: N,
    account: Address,
    commitment?: Commitment,
  ): Promise<MarketAccountData<N> | null>;
  getSlot(commitment?: Commitment): Promise<bigint>;
  getGenesisHash(): Promise<string>;
  /** Node version string, for /version. */
  getVersion(): Promise<{ 'solana-core': string; 'feature-set'?: number }>;
  /** Payments (pay indexer): signatures touching `address`, newest first; default `finalized`. */
  getSignaturesForAddress(
    address: Address,
    options?: { before?: string; until?: string; limit?: number },
    commitment?: Commitment,
  ): Promise<SignatureInfo[]>;
  /** Payments: a landed transaction with its meta, or null when unknown at that commitment; default `finalized`. */
  getTransaction(signature: string, commitment?: Commitment): Promise<ChainTransaction | null>;
  /**
   * x402: a landed transaction in the RPC's base64 wire form plus meta (what payment checks decode with kit,
   * keeping account roles), or null when unknown at that commitment; default `finalized`.
   */
  getTransactionWire(signature: string, commitment?: Commitment): Promise<WireTransaction | null>;
  /**
   * Ingestion: the slots that have a block in [startSlot, endSlot] (skipped slots absent), capped at the
   * commitment's tip; default `finalized`.
   */
  getBlocks(startSlot: bigint, endSlot: bigint, commitment?: Commitment): Promise<bigint[]>;
  /**
   * Ingestion: one block with every transaction in full (json, v0 supported, no rewards); null when the slot was
   * skipped (-32007 / -32009). A slot past the commitment's tip is an RPC error (unreachable); default `finalized`.
   */
  getBlock(slot: bigint, commitment?: Commitment): Promise<ChainBlock | null>;
  /** Payments: the token accounts (SPL Token and Token-2022) owned by `owner`; default `finalized`. */
  getTokenAccountsByOwner(owner: Address, commitment?: Commitment): Promise<TokenAccountRef[]>;
  /** Payments: a mint's token program and decimals (what a TransferChecked needs); null when absent; `confirmed`. */
  getMint(mint: Address, commitment?: Commitment): Promise<MintInfo | null>;
  /** Building unsigned transactions (MCP prepare_* tools): the latest blockhash; default `confirmed`. */
  getLatestBlockhash(commitment?: Commitment): Promise<RecentBlockhash>;
  /**
   * Prepared transactions (MCP prepare_* tools): simulates base64 wire bytes without checking signatures, against
   * the latest blockhash; `err` is the JSON TransactionError (null on success); default `confirmed`.
   */
  simulateTransaction(base64Wire: string, commitment?: Commitment): Promise<SimulationResult>;
}

export interface SimulationResult {
  err: unknown;
  logs: string[];
}
