// Pure checks of a finalized x402 payment transaction against its quote (no I/O: the caller fetches the
// transaction with getTransaction(signature, {encoding: 'base64', maxSupportedTransactionVersion: 0,
// commitment: 'finalized'}) and hands the answer here). Every rule and its code are in docs/x402.md.
import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getInstructionsFromCompiledTransactionMessage,
  getSignatureFromTransaction,
  getTransactionDecoder,
  getU32Decoder,
  getU64Decoder,
  isSignerRole,
  isWritableRole,
  type AccountMeta,
  type Address,
  type CompiledTransactionMessage,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from '../../platform/chain/programs';
import {
  X402_COMPUTE_UNIT_LIMIT_MAX,
  X402_COMPUTE_UNIT_PRICE_MAX,
  X402_REDEEM_WINDOW_SECONDS,
} from '@sigil/contract/x402';

// Instruction discriminators (first data byte) and exact data lengths of the fixed payment shape.
const SET_COMPUTE_UNIT_LIMIT = 2; // [2, u32 units]
const SET_COMPUTE_UNIT_PRICE = 3; // [3, u64 micro-lamports]
const TRANSFER_CHECKED = 12; // [12, u64 amount, u8 decimals]

/** What the challenge quoted; the payment must match it. */
export interface PaymentQuote {
  payTo: Address;
  /** The mint. */
  asset: Address;
  /** Smallest units. */
  amount: bigint;
  reference: Address;
  /** The payer bound with X-Payer. */
  payer: Address;
  /** The asset's token program, when the deployment knows it; otherwise the transfer's program is used. */
  tokenProgram?: Address;
  /** Unix seconds when the reference was issued; when given, the reference's own 600 s window is checked. */
  issuedAt?: number;
}

interface TokenBalanceLike {
  readonly accountIndex: number;
  readonly mint: string;
  readonly uiTokenAmount: { readonly amount: string };
}

/** The parts of a getTransaction answer (kit types) that the checks read. */
export interface PaymentTransactionResponse {
  readonly blockTime: bigint | number | null;
  readonly meta: {
    readonly err: unknown;
    readonly preTokenBalances?: readonly TokenBalanceLike[];
    readonly postTokenBalances?: readonly TokenBalanceLike[];
    readonly loadedAddresses?: { readonly readonly: readonly Address[]; readonly writable: readonly Address[] };
  } | null;
  readonly transaction: readonly [string, 'base64'];
  readonly version?: 'legacy' | 0 | 1;
}

export type PaymentTxErrorCode =
  | 'PAYMENT_FAILED'
  | 'PAYMENT_STALE'
  | 'PAYMENT_WRONG_ASSET'
  | 'PAYMENT_WRONG_DESTINATION'
  | 'PAYMENT_AMOUNT_TOO_LOW'
  | 'PAYER_MISMATCH'
  | 'PAYMENT_LAYOUT_INVALID'
  | 'REFERENCE_MISSING'
  | 'REFERENCE_MISMATCH'
  | 'REFERENCE_EXPIRED'
  | 'MULTISIG_AUTHORITY_UNSUPPORTED'
  | 'PAYMENT_UNVERIFIABLE';

export type PaymentCheckResult =
  | { ok: true; amount: bigint; credited: bigint; payer: Address; signature: Signature }
  | { ok: false; code: PaymentTxErrorCode; message: string };

export interface PaymentCheckOptions {
  /** Unix seconds; defaults to the wall clock. */
  now?: number;
}

type PaymentFailure = Extract<PaymentCheckResult, { ok: false }>;

function fail(code: PaymentTxErrorCode, message: string): PaymentFailure {
  return { ok: false, code, message };
}

const u32 = getU32Decoder();
const u64 = getU64Decoder();

/** Decimal string of a token amount → bigint, or null when the RPC gave something unreadable. */
function readTokenAmount(balance: TokenBalanceLike | undefined): bigint | null {
  const amount = balance?.uiTokenAmount?.amount;
  return typeof amount === 'string' && /^[0-9]{1,20}$/.test(amount) ? BigInt(amount) : null;
}

/**
 * Checks a finalized payment transaction against its quote. Order (the first failing rule answers):
 * reference window → decode → on-chain failure → layout (lookup tables, exactly
 * SetComputeUnitLimit + SetComputeUnitPrice + TransferChecked, caps) → multisig → payer → asset →
 * destination → reference → instruction amount → credited amount → payment age.
 */
export async function checkPaymentTransaction(
  tx: PaymentTransactionResponse,
  quote: PaymentQuote,
  options: PaymentCheckOptions = {},
): Promise<PaymentCheckResult> {
  const now = options.now ?? Math.floor(Date.now() / 1000);

  // A dead reference cannot be redeemed whatever the payment looks like: the client needs a fresh challenge.
  if (quote.issuedAt !== undefined && now - quote.issuedAt > X402_REDEEM_WINDOW_SECONDS) {
    return fail('REFERENCE_EXPIRED', `reference was issued more than ${X402_REDEEM_WINDOW_SECONDS} s ago`);
  }
  const opened = openPayment(tx);
  if (!opened.ok) return opened;
  const { meta, staticAccounts, signature, instructions, transfer, tokenProgram } = opened;

  const [, mint, destination, authority, ...trailing] = transfer.accounts;
  const parties = { mint: mint!, destination: destination!, authority: authority!, trailing };
  const partiesProblem = await checkParties(quote, parties, tokenProgram);
  if (partiesProblem) return partiesProblem;
  const referenceProblem = checkReference(instructions, transfer, trailing, quote.reference);
  if (referenceProblem) return referenceProblem;
  const paid = checkAmounts(quote, transfer, meta, staticAccounts.indexOf(destination!.address));
  if (!paid.ok) return paid;

  if (tx.blockTime === null || tx.blockTime === undefined) {
    return fail('PAYMENT_UNVERIFIABLE', 'payment has no block time');
  }
  if (now - Number(tx.blockTime) > X402_REDEEM_WINDOW_SECONDS) {
    return fail('PAYMENT_STALE', `payment is older than ${X402_REDEEM_WINDOW_SECONDS} s; pay again`);
  }
  return { ok: true, amount: paid.amount, credited: paid.credited, payer: authority!.address, signature };
}

interface OpenedPayment {
  ok: true;
  meta: NonNullable<PaymentTransactionResponse['meta']>;
  staticAccounts: readonly Address[];
  signature: Signature;
  instructions: readonly ResolvedInstruction[];
  transfer: TransferInstruction;
  tokenProgram: Address;
}

interface DecodedAnswer {
  message: CompiledTransactionMessage;
  /** Null when the transaction carries no fee-payer signature. */
  signature: Signature | null;
  /** Null when they do not decode, and for version 1 messages (refused before their instructions matter). */
  instructions: ResolvedInstruction[] | null;
}

/**
 * getTransaction answers decoded, per answer object: redemption by signature reads the references a transaction
 * carries (appendedTransferAccounts) and then judges the same answer (checkPaymentTransaction), and the decode
 * (base58 of every account, the message, its instructions) is the largest part of both. Weak: an answer is
 * forgotten with the request that read it.
 */
const decodedAnswers = new WeakMap<PaymentTransactionResponse, DecodedAnswer | null>();

// What kit's decodeTransactionFromRpcResponse does for a base64 answer, with its decoders built once: it builds
// them on every call, about a quarter of the cost of a decode (measured on the bench's payments).
const base64Bytes = getBase64Encoder();
const wireDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

function decodeAnswer(tx: PaymentTransactionResponse): DecodedAnswer | null {
  if (decodedAnswers.has(tx)) return decodedAnswers.get(tx)!;
  let answer: DecodedAnswer | null = null;
  try {
    if (!Array.isArray(tx.transaction) || tx.transaction[1] !== 'base64') throw new Error('not base64');
    const transaction = wireDecoder.decode(base64Bytes.encode(tx.transaction[0]));
    const message = messageDecoder.decode(transaction.messageBytes);
    answer = { message, signature: signatureOf(transaction), instructions: instructionsOf(message) };
  } catch {
    answer = null;
  }
  decodedAnswers.set(tx, answer);
  return answer;
}

function signatureOf(transaction: Transaction): Signature | null {
  try {
    return getSignatureFromTransaction(transaction);
  } catch {
    return null;
  }
}

function instructionsOf(message: CompiledTransactionMessage): ResolvedInstruction[] | null {
  if (message.version === 1) return null;
  try {
    return getInstructionsFromCompiledTransactionMessage(message);
  } catch {
    return null;
  }
}

/** Checks what comes before the parties of a decoded transaction: on-chain success and the fixed layout. */
function openPayment(tx: PaymentTransactionResponse): OpenedPayment | PaymentFailure {
  const decoded = decodeAnswer(tx);
  if (!decoded?.signature) return fail('PAYMENT_UNVERIFIABLE', 'payment transaction does not decode');
  const meta = tx.meta;
  if (!meta) return fail('PAYMENT_UNVERIFIABLE', 'payment transaction has no status metadata');
  if (meta.err !== null && meta.err !== undefined) {
    return fail('PAYMENT_FAILED', 'payment transaction failed on chain; pay again');
  }

  const { message, signature, instructions } = decoded;
  // v1 messages carry their own compute configuration: not the fixed shape.
  if (message.version === 1) return fail('PAYMENT_LAYOUT_INVALID', 'version 1 transactions are not accepted');
  const loaded = meta.loadedAddresses;
  if (
    (message.version === 0 && (message.addressTableLookups?.length ?? 0) > 0) ||
    (loaded !== undefined && loaded.readonly.length + loaded.writable.length > 0)
  ) {
    return fail('PAYMENT_LAYOUT_INVALID', 'address lookup tables are not accepted');
  }

  if (!instructions) return fail('PAYMENT_UNVERIFIABLE', 'payment transaction instructions do not decode');
  const layout = checkLayout(instructions);
  if (typeof layout === 'string') return fail('PAYMENT_LAYOUT_INVALID', layout);
  return { ok: true, meta, staticAccounts: message.staticAccounts, signature, instructions, ...layout };
}

/** Entries kept by associatedTokenAccount; more means the quotes come from many challenges (the MCP tool's). */
const TOKEN_ACCOUNTS_KEPT = 64;
const tokenAccounts = new Map<string, Promise<Address>>();

/**
 * payTo's associated token account for a mint and token program. The same three give the same account forever,
 * and the derivation (SHA-256 rounds, each checked off the curve) cost as much as the rest of the rules together,
 * so it is derived once per triple (a service has one or two: its payTo, its asset).
 */
function associatedTokenAccount(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  const key = `${owner} ${mint} ${tokenProgram}`;
  let account = tokenAccounts.get(key);
  if (!account) {
    if (tokenAccounts.size >= TOKEN_ACCOUNTS_KEPT) tokenAccounts.clear();
    account = findAssociatedTokenPda({ owner, mint, tokenProgram }).then(([address]) => address);
    tokenAccounts.set(key, account);
    account.catch(() => tokenAccounts.delete(key));
  }
  return account;
}

/**
 * Who pays, what and to whom: a single-owner authority that is the bound payer, the quoted token program and
 * mint, and payTo's associated token account as the destination. Null when all hold.
 */
async function checkParties(
  quote: PaymentQuote,
  accounts: { mint: AccountMeta; destination: AccountMeta; authority: AccountMeta; trailing: readonly AccountMeta[] },
  tokenProgram: Address,
): Promise<PaymentFailure | null> {
  const { mint, destination, authority, trailing } = accounts;
  // A single-owner authority must sign; a successful transfer whose authority did not sign was authorised by
  // the signers that follow it, i.e. a multisig.
  if (!isSignerRole(authority.role) || trailing.some((a) => isSignerRole(a.role) && a.address !== quote.reference)) {
    return fail('MULTISIG_AUTHORITY_UNSUPPORTED', 'multisig transfer authorities are not supported');
  }
  if (authority.address !== quote.payer) {
    return fail('PAYER_MISMATCH', 'payment is not signed by the wallet bound with X-Payer');
  }
  if (quote.tokenProgram !== undefined && tokenProgram !== quote.tokenProgram) {
    return fail('PAYMENT_WRONG_ASSET', 'payment uses a different token program than the quoted asset');
  }
  if (mint.address !== quote.asset) return fail('PAYMENT_WRONG_ASSET', 'payment transfers a different mint');
  if (destination.address !== (await associatedTokenAccount(quote.payTo, quote.asset, tokenProgram))) {
    return fail('PAYMENT_WRONG_DESTINATION', 'payment is not to the associated token account of payTo');
  }
  return null;
}

/**
 * The instruction's amount, and the balance actually credited to payTo (at `destinationIndex` of the static
 * accounts): a transfer-fee mint can leave payTo short of the instruction amount.
 */
function checkAmounts(
  quote: PaymentQuote,
  transfer: TransferInstruction,
  meta: OpenedPayment['meta'],
  destinationIndex: number,
): { ok: true; amount: bigint; credited: bigint } | PaymentFailure {
  const amount = u64.decode(transfer.data, 1);
  if (amount < quote.amount) {
    return fail('PAYMENT_AMOUNT_TOO_LOW', `payment transfers ${amount}, ${quote.amount} required`);
  }
  const byIndex = (list: readonly TokenBalanceLike[] | undefined) =>
    list?.find((b) => b.accountIndex === destinationIndex && b.mint === quote.asset);
  const pre = readTokenAmount(byIndex(meta.preTokenBalances));
  const post = readTokenAmount(byIndex(meta.postTokenBalances));
  if (pre === null || post === null) {
    return fail('PAYMENT_UNVERIFIABLE', "payTo's token balance change is not readable");
  }
  const credited = post - pre;
  if (credited < quote.amount) {
    const why = `payTo was credited ${credited}, ${quote.amount} required (transfer fees count)`;
    return fail('PAYMENT_AMOUNT_TOO_LOW', why);
  }
  return { ok: true, amount, credited };
}

type ResolvedInstruction = ReturnType<typeof getInstructionsFromCompiledTransactionMessage>[number];
type TransferInstruction = ResolvedInstruction & { accounts: readonly AccountMeta[]; data: Uint8Array };

/** The fixed shape, or a message saying why not. */
function checkLayout(
  instructions: readonly ResolvedInstruction[],
): string | { transfer: TransferInstruction; tokenProgram: Address } {
  const programs = instructions.map((ix) => ix.programAddress);
  const isToken = (p: Address) => p === TOKEN_PROGRAM_ADDRESS || p === TOKEN_2022_PROGRAM_ADDRESS;
  const foreign = programs.find((p) => p !== COMPUTE_BUDGET_PROGRAM_ADDRESS && !isToken(p));
  if (foreign) return `only compute-budget and token instructions are allowed; found program ${foreign}`;
  if (instructions.length !== 3) {
    return `expected exactly 3 instructions (SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked), found ${instructions.length}`;
  }
  const [limitIx, priceIx, transferIx] = instructions as [
    ResolvedInstruction,
    ResolvedInstruction,
    ResolvedInstruction,
  ];

  const limitData = limitIx.data;
  if (
    limitIx.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS ||
    limitData?.length !== 5 ||
    limitData[0] !== SET_COMPUTE_UNIT_LIMIT
  ) {
    return 'instruction 1 must be SetComputeUnitLimit';
  }
  const units = u32.decode(limitData, 1);
  if (units > X402_COMPUTE_UNIT_LIMIT_MAX) return `compute-unit limit ${units} is above ${X402_COMPUTE_UNIT_LIMIT_MAX}`;

  const priceData = priceIx.data;
  if (
    priceIx.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS ||
    priceData?.length !== 9 ||
    priceData[0] !== SET_COMPUTE_UNIT_PRICE
  ) {
    return 'instruction 2 must be SetComputeUnitPrice';
  }
  const price = u64.decode(priceData, 1);
  if (price > X402_COMPUTE_UNIT_PRICE_MAX) {
    return `compute-unit price ${price} micro-lamports is above ${X402_COMPUTE_UNIT_PRICE_MAX}`;
  }

  const transferData = transferIx.data;
  if (!isToken(transferIx.programAddress) || transferData?.length !== 10 || transferData[0] !== TRANSFER_CHECKED) {
    return 'instruction 3 must be a token TransferChecked';
  }
  if ((transferIx.accounts?.length ?? 0) < 4) return 'TransferChecked has too few accounts';
  return { transfer: transferIx as TransferInstruction, tokenProgram: transferIx.programAddress };
}

/**
 * The reference must be appended exactly once to the transfer, read-only and not a signer, and appear in no
 * other instruction. Missing / writable / signer / repeated / elsewhere → REFERENCE_MISSING; another account
 * in its place or beside it (a different reference, or more than one) → REFERENCE_MISMATCH.
 */
function checkReference(
  instructions: readonly ResolvedInstruction[],
  transfer: ResolvedInstruction,
  trailing: readonly AccountMeta[],
  reference: Address,
): PaymentCheckResult | null {
  const mine = trailing.filter((a) => a.address === reference);
  const others = trailing.filter((a) => a.address !== reference);
  if (mine.length === 0) {
    return others.length > 0
      ? fail('REFERENCE_MISMATCH', 'payment carries a reference issued for a different request')
      : fail('REFERENCE_MISSING', 'payment does not carry the issued reference on its transfer');
  }
  if (mine.length > 1) return fail('REFERENCE_MISSING', 'reference is appended more than once');
  const meta = mine[0]!;
  if (isWritableRole(meta.role)) return fail('REFERENCE_MISSING', 'reference must be read-only');
  if (isSignerRole(meta.role)) return fail('REFERENCE_MISSING', 'reference must not be a signer');
  if (instructions.some((ix) => ix !== transfer && ix.accounts?.some((a) => a.address === reference))) {
    return fail('REFERENCE_MISSING', 'reference appears in another instruction');
  }
  if (others.length > 0) return fail('REFERENCE_MISMATCH', 'payment carries more than one reference');
  return null;
}

/**
 * The accounts appended after the authority of the transaction's token TransferChecked instructions: where a
 * reference must be. Redemption by `payload.signature` uses them to learn which issued reference the payment
 * claims (then checkPaymentTransaction judges it). Empty when the transaction does not decode.
 */
export function appendedTransferAccounts(tx: PaymentTransactionResponse): Address[] {
  const out: Address[] = [];
  for (const ix of decodeAnswer(tx)?.instructions ?? []) {
    const isToken = ix.programAddress === TOKEN_PROGRAM_ADDRESS || ix.programAddress === TOKEN_2022_PROGRAM_ADDRESS;
    if (isToken && ix.data?.[0] === TRANSFER_CHECKED) {
      for (const meta of ix.accounts?.slice(4) ?? []) if (!out.includes(meta.address)) out.push(meta.address);
    }
  }
  return out;
}
