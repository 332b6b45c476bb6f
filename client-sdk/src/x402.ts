// The x402 payer helper: buys one metered response with an on-chain payment, with @solana/kit.
//   challenge (402 with X-Payer) → build and send the payment of the fixed shape → wait for finality →
//   sign redeemMessage → redeem (the identical request with PAYMENT-SIGNATURE) → 200 + PAYMENT-RESPONSE.
// Each step is exported on its own so that callers (and tests) can change one step and keep the others.
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase58Decoder,
  getBase64Encoder,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type TransactionSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintDecoder,
  getSyncNativeInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  X402_HEADERS,
  decodeChallengeHeader,
  nativeEntryOf,
  decodeSettlementReceipt,
  encodeBase64Json,
  encodePaymentHeader,
  redeemMessage,
  isNativeEntry,
  x402ChallengeSchema,
  X402_REDEEM_PREFIX,
  X402_REDEEM_WINDOW_SECONDS,
  canonicalRequest,
  type X402AcceptEntry,
  type X402Challenge,
  type X402FacilitatorEntry,
  type X402SettlementReceipt,
} from '@sigil/contract/x402';
import { RETRYABLE_X402_CODES } from './retryable';

export const WRAPPED_NATIVE_MINT = address('So11111111111111111111111111111111111111112');
/** A TransferChecked needs ~6,000 compute units; the service refuses a limit above 40,000. */
export const DEFAULT_COMPUTE_UNIT_LIMIT = 20_000;
/** Micro-lamports per compute unit (the service's cap is 5,000,000). */
export const DEFAULT_COMPUTE_UNIT_PRICE = 1n;

type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;
type SolanaRpc = Rpc<SolanaRpcApi>;

export interface RequestSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Exact body bytes or text: the redeeming request must repeat them byte for byte. */
  body?: string | Uint8Array;
}

function send(fetchImpl: FetchLike, req: RequestSpec, extraHeaders: Record<string, string>): Promise<Response> {
  return fetchImpl(req.url, {
    method: req.method ?? 'GET',
    headers: { ...req.headers, ...extraHeaders },
    body: req.body as BodyInit | undefined,
  });
}

export interface ChallengeResult {
  response: Response;
  /** Null when the response was not a 402 challenge (e.g. it was served for free). */
  challenge: X402Challenge | null;
  entry: X402AcceptEntry | null;
}

/** Step 1: the request with X-Payer; a 402 answers with the challenge (PAYMENT-REQUIRED header, else the body). */
export async function requestChallenge(
  req: RequestSpec,
  payer: Address,
  fetchImpl: FetchLike = fetch,
): Promise<ChallengeResult> {
  const response = await send(fetchImpl, req, { [X402_HEADERS.payer]: payer });
  if (response.status !== 402) return { response, challenge: null, entry: null };
  const header = response.headers.get(X402_HEADERS.required);
  let challenge = header ? decodeChallengeHeader(header) : null;
  if (!challenge) {
    const parsed = x402ChallengeSchema.safeParse(
      await response
        .clone()
        .json()
        .catch(() => null),
    );
    challenge = parsed.success ? parsed.data : null;
  }
  return { response, challenge, entry: (challenge && nativeEntryOf(challenge)) ?? null };
}

export interface PaymentShapeOptions {
  computeUnitLimit?: number;
  computeUnitPrice?: bigint;
  /** The asset's token program and decimals; read from the mint account when absent. */
  mint?: { tokenProgram: Address; decimals: number };
}

/** The asset's token program (the mint's owner) and decimals, read from the chain. */
export async function readMint(rpc: SolanaRpc, mint: Address): Promise<{ tokenProgram: Address; decimals: number }> {
  const { value } = await rpc.getAccountInfo(mint, { encoding: 'base64', commitment: 'confirmed' }).send();
  if (!value) throw new Error(`mint ${mint} does not exist`);
  const bytes = new Uint8Array(getBase64Encoder().encode(value.data[0]));
  // The base mint layout (82 bytes) is the same for SPL Token and Token-2022.
  return { tokenProgram: value.owner, decimals: getMintDecoder().decode(bytes.subarray(0, 82)).decimals };
}

/**
 * Step 2a: the three instructions of the fixed shape for a challenge entry: SetComputeUnitLimit,
 * SetComputeUnitPrice, TransferChecked of `amount` from the payer's associated token account to payTo's, signed
 * by the payer, with `extra.reference` appended read-only.
 */
export async function paymentInstructions(
  rpc: SolanaRpc,
  entry: X402AcceptEntry,
  payer: KeyPairSigner,
  options: PaymentShapeOptions = {},
): Promise<Instruction[]> {
  const mint = options.mint ?? (await readMint(rpc, address(entry.asset)));
  return buildPaymentInstructions(entry, payer, { ...options, mint });
}

/**
 * The fixed shape without any read: the caller knows the asset's token program and decimals. `payer` may be any
 * signer, e.g. kit's `createNoopSigner(address)` to build a transaction someone else signs (the MCP tool server's
 * prepare_x402_payment, which holds no keys, builds it this way).
 */
export async function buildPaymentInstructions(
  entry: X402AcceptEntry,
  payer: TransactionSigner,
  options: PaymentShapeOptions & { mint: { tokenProgram: Address; decimals: number } },
): Promise<Instruction[]> {
  const reference = entry.extra.reference;
  if (!reference) throw new Error('the challenge has no reference: send X-Payer to get one');
  const mint = address(entry.asset);
  const { tokenProgram, decimals } = options.mint;
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram });
  const [destination] = await findAssociatedTokenPda({ owner: address(entry.payTo), mint, tokenProgram });
  const transfer = getTransferCheckedInstruction(
    { source, mint, destination, authority: payer, amount: BigInt(entry.amount), decimals },
    { programAddress: tokenProgram },
  );
  return [
    getSetComputeUnitLimitInstruction({ units: options.computeUnitLimit ?? DEFAULT_COMPUTE_UNIT_LIMIT }),
    getSetComputeUnitPriceInstruction({ microLamports: options.computeUnitPrice ?? DEFAULT_COMPUTE_UNIT_PRICE }),
    { ...transfer, accounts: [...transfer.accounts, { address: address(reference), role: AccountRole.READONLY }] },
  ];
}

/** Signs `instructions` with the payer (fee payer) and any other signers they name, and sends them. */
export async function sendInstructions(
  rpc: SolanaRpc,
  payer: KeyPairSigner,
  instructions: Instruction[],
  options: { skipPreflight?: boolean } = {},
): Promise<Signature> {
  return (await sendInstructionsWithLifetime(rpc, payer, instructions, options)).signature;
}

export interface SentTransaction {
  signature: Signature;
  /** The last block height at which the transaction can land (its blockhash's): past it, one not seen never will. */
  lastValidBlockHeight: bigint;
}

/** sendInstructions, also answering how long the transaction can land, so that a dropped one can be told apart. */
export async function sendInstructionsWithLifetime(
  rpc: SolanaRpc,
  payer: KeyPairSigner,
  instructions: Instruction[],
  options: { skipPreflight?: boolean } = {},
): Promise<SentTransaction> {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await rpc
    .sendTransaction(getBase64EncodedWireTransaction(signed), {
      encoding: 'base64',
      preflightCommitment: 'confirmed',
      skipPreflight: options.skipPreflight ?? false,
    })
    .send();
  return { signature: getSignatureFromTransaction(signed), lastValidBlockHeight: latest.lastValidBlockHeight };
}

/** Step 3: polls until the transaction is finalized (throws when it failed on chain or the time runs out). */
export async function waitForFinalized(
  rpc: SolanaRpc,
  signature: Signature,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    // A transaction that ran and failed stays failed (its signature cannot run again): waiting longer gains nothing.
    if (status?.err) throw new Error(`transaction ${signature} failed on chain: ${jsonOf(status.err)}`);
    if (status?.confirmationStatus === 'finalized') return;
    if (Date.now() > deadline) throw new Error(`transaction ${signature} not finalized in time`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 400));
  }
}

/** A transaction error as JSON (the RPC client reads its integers as bigints, which JSON.stringify refuses). */
function jsonOf(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}

/**
 * Whether a transaction landed without an error, or may still land (its blockhash is valid). The block height is read
 * before the status: a transaction that lands in between is then seen as landed, not judged by its blockhash.
 */
async function transactionMayStillSucceed(
  rpc: SolanaRpc,
  signature: Signature,
  lastValidBlockHeight: bigint,
): Promise<boolean> {
  const height = await rpc.getBlockHeight({ commitment: 'confirmed' }).send();
  // The history search finds a transaction older than the RPC's recent status cache (a long custom finality wait).
  const { value } = await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send();
  const status = value[0];
  return status ? status.err === null : height <= lastValidBlockHeight;
}

/**
 * The redeem message of a challenge entry, built here rather than taken on trust: `sigil-x402-redeem:v1|<domainTag>`
 * LF `reference:<extra.reference>`, with the service's domain tag read from the offered message. The entry's
 * `extra.redeemMessage` must be exactly that string, so a wallet never signs bytes other than the redemption of
 * this challenge's reference (a tampered or foreign message throws before any signature).
 */
export function buildRedeemMessage(entry: X402AcceptEntry): string {
  const { reference, redeemMessage: offered } = entry.extra;
  if (!reference || !offered) throw new Error('the challenge has no reference: send X-Payer to get one');
  const tag = offered.startsWith(X402_REDEEM_PREFIX) ? offered.slice(X402_REDEEM_PREFIX.length).split('\n')[0] : null;
  if (tag === null || redeemMessage(tag, reference) !== offered) {
    throw new Error('the challenge redeemMessage is not a v1 redemption of its own reference');
  }
  return offered;
}

/** Step 4: the payer's base58 ed25519 signature over the raw UTF-8 redeem message. */
export async function signRedeemMessage(payer: KeyPairSigner, redeemMessage: string): Promise<string> {
  const signature = await signBytes(payer.keyPair.privateKey, new TextEncoder().encode(redeemMessage));
  return getBase58Decoder().decode(signature);
}

export interface RedeemResult {
  response: Response;
  /** The settlement receipt from PAYMENT-RESPONSE, when the redemption succeeded. */
  receipt: X402SettlementReceipt | null;
}

export interface RedeemInput {
  network: string;
  payer: Address;
  payerSig: string;
  signature?: string;
  reference?: string;
}

/** The headers that redeem a native-rail payment: X-Payer and the payment header (v2 `accepted` form). */
function redeemHeaders(payment: RedeemInput): Record<string, string> {
  const header = encodePaymentHeader({
    network: payment.network,
    signature: payment.signature,
    reference: payment.reference,
    payerSig: payment.payerSig,
  });
  return { [X402_HEADERS.payer]: payment.payer, [X402_HEADERS.payment]: header };
}

/** The identical request again with payment headers, and the receipt of a success. */
async function sendPaid(
  req: RequestSpec,
  headers: Record<string, string>,
  fetchImpl: FetchLike,
): Promise<RedeemResult> {
  const response = await send(fetchImpl, req, headers);
  const receiptHeader = response.headers.get(X402_HEADERS.response);
  return { response, receipt: receiptHeader ? decodeSettlementReceipt(receiptHeader) : null };
}

/** Step 5: the identical request again, with X-Payer and the payment header (v2 `accepted` form). */
export function redeem(req: RequestSpec, payment: RedeemInput, fetchImpl: FetchLike = fetch): Promise<RedeemResult> {
  return sendPaid(req, redeemHeaders(payment), fetchImpl);
}

export interface PayOptions extends PaymentShapeOptions {
  rpc: SolanaRpc;
  payer: KeyPairSigner;
  fetch?: FetchLike;
  /** Replaces the default polling (e.g. a test that advances its local chain). */
  waitForFinality?: (signature: Signature) => Promise<void>;
  /** Redeem by `payload.reference` (the server finds the payment) instead of `payload.signature`. */
  redeemBy?: 'signature' | 'reference';
  /**
   * `facilitator`: pay the challenge's facilitator-rail entry instead (x402's SVM `exact` scheme: a partially signed
   * transaction the facilitator pays the fee of and settles; no finality wait, no redeem signature).
   */
  rail?: 'native' | 'facilitator';
}

/**
 * A payment made for one request: what redeems it. Redeeming sends these headers with the identical request and
 * never pays; the spec's answers that leave a payment unconsumed (PAYMENT_NOT_FINALIZED, VERIFIER_UNAVAILABLE,
 * METERING_UNAVAILABLE, a 502, a failure of the handler) are answered by redeeming the same payment again.
 */
export interface Payment {
  /** The payment headers sent with the identical request (native rail: X-Payer and PAYMENT-SIGNATURE). */
  headers: Record<string, string>;
  challenge: X402Challenge;
  /** Native rail: the payment transaction, redeemed once finalized. The facilitator rail has none to wait for. */
  signature?: Signature;
  /** Native rail: the last block height at which the payment transaction can land (SentTransaction). */
  lastValidBlockHeight?: bigint;
  /** Whether the transaction is known to be finalized, so redeeming need not wait (set once a wait succeeded). */
  finalized: boolean;
  /** When it was paid (ms): the service redeems a reference within X402_REDEEM_WINDOW_SECONDS of its challenge. */
  paidAt: number;
}

export interface PayResult extends RedeemResult {
  /** The payment transaction, when one was sent. */
  signature?: Signature;
  challenge: X402Challenge | null;
  /** The payment, when one was made: `redeemPayment(req, payment, options)` redeems it again without paying. */
  payment?: Payment;
}

/**
 * Steps 2 to 4 for a challenge: pays it on the chosen rail and returns what redeems the payment, or null when the
 * answer offers nothing to pay on that rail (not a 402 challenge, or no entry for the rail). Does not wait for
 * finality (redeemPayment does), so that a caller can keep the payment before anything else can fail.
 */
export function payChallenge(first: ChallengeResult, options: PayOptions): Promise<Payment | null> {
  return options.rail === 'facilitator' ? payThroughFacilitator(first, options) : payNative(first, options);
}

async function payNative(first: ChallengeResult, options: PayOptions): Promise<Payment | null> {
  const entry = first.entry;
  if (!entry || !first.challenge) return null;
  // Signed before paying: a challenge whose redeem message is not its own reference's is refused before money moves.
  const payerSig = await signRedeemMessage(options.payer, buildRedeemMessage(entry));
  const { signature, lastValidBlockHeight } = await sendInstructionsWithLifetime(
    options.rpc,
    options.payer,
    await paymentInstructions(options.rpc, entry, options.payer, options),
  );
  const proof = options.redeemBy === 'reference' ? { reference: entry.extra.reference } : { signature };
  const headers = redeemHeaders({ network: entry.network, payer: options.payer.address, payerSig, ...proof });
  return { headers, challenge: first.challenge, signature, lastValidBlockHeight, finalized: false, paidAt: Date.now() };
}

/** Step 5 for a payment made: waits for its finality (once), then sends the identical request with it. Never pays. */
export async function redeemPayment(
  req: RequestSpec,
  payment: Payment,
  options: Pick<PayOptions, 'rpc' | 'fetch' | 'waitForFinality'>,
): Promise<PayResult> {
  if (payment.signature && !payment.finalized) {
    await (options.waitForFinality ?? ((s) => waitForFinalized(options.rpc, s)))(payment.signature);
    payment.finalized = true;
  }
  const result = await sendPaid(req, payment.headers, options.fetch ?? fetch);
  return { ...result, signature: payment.signature, challenge: payment.challenge, payment };
}

/**
 * The whole flow for one request: challenge, pay, redeem. A response that is not a 402 challenge is returned as it
 * is. The result carries the payment, so that an answer saying it was not consumed can be redeemed again.
 */
export async function payAndFetch(req: RequestSpec, options: PayOptions): Promise<PayResult> {
  const first = await requestChallenge(req, options.payer.address, options.fetch ?? fetch);
  const payment = await payChallenge(first, options);
  if (!payment) return { response: first.response, receipt: null, challenge: first.challenge };
  return redeemPayment(req, payment, options);
}

/**
 * Whether a payment whose redemption threw may still buy a response. A finalized one may (the request got no answer).
 * One whose finality wait failed may only while its transaction landed without an error or may still land: kept
 * otherwise, every identical call would wait for it again and throw, never paying anew. When the RPC cannot tell
 * (it may be what failed the wait), the payment is kept: dropping one that lands would pay twice.
 */
async function mayStillBuy(rpc: SolanaRpc, payment: Payment): Promise<boolean> {
  if (payment.finalized || !payment.signature || payment.lastValidBlockHeight === undefined) return true;
  return transactionMayStillSucceed(rpc, payment.signature, payment.lastValidBlockHeight).catch(() => true);
}

/** Refusals that mean the payment already bought a response (409: a concurrent redemption of it won). */
const CONSUMED_CODES = new Set(['PAYMENT_ALREADY_USED', 'REFERENCE_REUSED']);

/**
 * Whether the answer to a redemption leaves the payment redeemable by the identical request: not a success (that
 * consumed it) and not a refusal of the payment itself (a 402 other than the retryable codes: used, failed, stale,
 * mismatched…; a 409 naming a concurrent redemption). The retryable codes, a 502, a 503 and any failure of the
 * handler (404, 409 AMBIGUOUS…) consume nothing, as the spec says.
 */
async function leavesPaymentRedeemable(response: Response): Promise<boolean> {
  if (response.ok) return false;
  if (response.status !== 402 && response.status !== 409) return true;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  const code = typeof body?.code === 'string' ? body.code : '';
  return response.status === 402 ? RETRYABLE_X402_CODES.has(code) : !CONSUMED_CODES.has(code);
}

/**
 * The payments one createX402Fetch made that have not bought a response yet, by the request they were made for
 * (origin and canonical request: what the service binds a reference to). One is taken while a request redeems it,
 * so two identical requests in flight never send the same payment; it is put back when the answer left it
 * unconsumed, and dropped once past the service's redeem window (it could only be refused then).
 */
function unconsumedPayments() {
  const byRequest = new Map<string, Payment[]>();
  const live = (payment: Payment) => Date.now() - payment.paidAt < X402_REDEEM_WINDOW_SECONDS * 1000;
  // Every kept entry is money spent, so there are few; dropping the expired ones everywhere keeps the map bounded.
  const prune = () => {
    for (const [key, payments] of byRequest) {
      const kept = payments.filter(live);
      if (kept.length > 0) byRequest.set(key, kept);
      else byRequest.delete(key);
    }
  };
  return {
    take(key: string): Payment | undefined {
      prune();
      const payment = byRequest.get(key)?.shift();
      if (byRequest.get(key)?.length === 0) byRequest.delete(key);
      return payment;
    },
    keep(key: string, payment: Payment): void {
      prune();
      byRequest.set(key, [...(byRequest.get(key) ?? []), payment]);
    },
  };
}

/** The identity of a request for its payment: the origin and the canonical request (method, path, query, body). */
function requestKey(req: RequestSpec): string {
  const url = new URL(req.url);
  const body = typeof req.body === 'string' ? new TextEncoder().encode(req.body) : req.body;
  const canonical = canonicalRequest({
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.search.slice(1),
    body,
  });
  return `${url.origin}\n${canonical}`;
}

/** The Request as a RequestSpec: the redeeming request must repeat its exact body bytes. */
async function specOf(request: Request): Promise<RequestSpec> {
  const bytes = ['GET', 'HEAD'].includes(request.method) ? null : new Uint8Array(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const spec: RequestSpec = { url: request.url, method: request.method, headers };
  if (bytes && bytes.length > 0) spec.body = bytes;
  return spec;
}

/**
 * A `fetch` that buys metered answers, like the x402 ecosystem's fetch wrappers: every request carries X-Payer; a
 * 402 challenge is paid with the fixed payment shape, the payment awaited to finality, `redeemMessage` signed, and
 * the identical request repeated with the payment header; any other answer is returned as it is. Give it to
 * `createSigilClient({ fetch })` (without an API key) to pay per call. The Request's own signal is not applied to
 * the flow: finality takes longer than one request's deadline (`waitForFinality` / `waitForFinalized` bound it).
 *
 * A payment is made once per call, whoever repeats the request: when the service answers that it consumed nothing
 * (a retryable code, a 502, a handler failure) or no answer arrives, the payment is kept, and the identical request
 * sent again through this fetch (the client's retry, or the caller's own) redeems it instead of paying anew. When its
 * finality wait fails, it is kept only while its transaction may still succeed: one that failed on chain, or was
 * dropped (never seen, its blockhash expired), is forgotten, and the next identical call pays anew.
 */
export function createX402Fetch(
  options: PayOptions,
): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  const unconsumed = unconsumedPayments();
  return async (input, init) => {
    const req = await specOf(new Request(input, init));
    const key = requestKey(req);
    let payment = unconsumed.take(key);
    if (!payment) {
      const first = await requestChallenge(req, options.payer.address, options.fetch ?? fetch);
      const paid = await payChallenge(first, options);
      if (!paid) return first.response;
      payment = paid;
    }
    try {
      const { response } = await redeemPayment(req, payment, options);
      if (await leavesPaymentRedeemable(response)) unconsumed.keep(key, payment);
      return response;
    } catch (error) {
      // No answer, or no finality: the payment bought nothing so far, and is kept while it may still buy something.
      if (await mayStillBuy(options.rpc, payment)) unconsumed.keep(key, payment);
      throw error;
    }
  };
}

/**
 * The facilitator rail: the challenge's facilitator entry paid with a transaction whose fee payer is the
 * facilitator (`extra.feePayer`): SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked to payTo's account,
 * signed by the payer only, sent in PAYMENT-SIGNATURE (x402 version 2). The server settles it before answering, and
 * settles a payment once: sent again after a timeout it is resumed, not charged twice (docs/x402.md).
 */
async function payThroughFacilitator(first: ChallengeResult, options: PayOptions): Promise<Payment | null> {
  const challenge = first.challenge;
  const entry = challenge?.accepts.find((e): e is X402FacilitatorEntry => !isNativeEntry(e));
  if (!challenge || !entry) return null;
  const mint = address(entry.asset);
  const { tokenProgram, decimals } = options.mint ?? (await readMint(options.rpc, mint));
  const [source] = await findAssociatedTokenPda({ owner: options.payer.address, mint, tokenProgram });
  const [destination] = await findAssociatedTokenPda({ owner: address(entry.payTo), mint, tokenProgram });
  const amount = BigInt(entry.amount ?? entry.maxAmountRequired);
  const { value: latest } = await options.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(entry.extra.feePayer), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: options.computeUnitLimit ?? DEFAULT_COMPUTE_UNIT_LIMIT }),
          getSetComputeUnitPriceInstruction({ microLamports: options.computeUnitPrice ?? DEFAULT_COMPUTE_UNIT_PRICE }),
          getTransferCheckedInstruction(
            { source, mint, destination, authority: options.payer, amount, decimals },
            { programAddress: tokenProgram },
          ),
        ],
        m,
      ),
  );
  const transaction = getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
  const header = encodeBase64Json({
    x402Version: 2,
    ...(challenge.resource && { resource: challenge.resource }),
    accepted: entry,
    payload: { transaction },
  });
  return { headers: { [X402_HEADERS.payment]: header }, challenge, finalized: true, paidAt: Date.now() };
}

/**
 * Wrapping (an earlier transaction, as the spec says): moves `lamports` into the payer's wrapped-native
 * associated token account (created if needed) and syncs its token balance.
 */
export function wrapNativeInstructions(payer: KeyPairSigner, ata: Address, lamports: bigint): Instruction[] {
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: payer.address, mint: WRAPPED_NATIVE_MINT }),
    getTransferSolInstruction({ source: payer, destination: ata, amount: lamports }),
    getSyncNativeInstruction({ account: ata }),
  ];
}

/** The payer's wrapped-native associated token account. */
export async function wrappedNativeAccount(owner: Address): Promise<Address> {
  return (
    await findAssociatedTokenPda({
      owner,
      mint: WRAPPED_NATIVE_MINT,
      tokenProgram: address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
    })
  )[0];
}
