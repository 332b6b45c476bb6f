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
  type X402AcceptEntry,
  type X402Challenge,
  type X402FacilitatorEntry,
  type X402SettlementReceipt,
} from '@sigil/contract/x402';

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
  return getSignatureFromTransaction(signed);
}

/** Step 3: polls until the transaction is finalized (throws when it failed or the time runs out). */
export async function waitForFinalized(
  rpc: SolanaRpc,
  signature: Signature,
  options: { timeoutMs?: number; pollMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.confirmationStatus === 'finalized') return;
    if (Date.now() > deadline) throw new Error(`transaction ${signature} not finalized in time`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 400));
  }
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

/** Step 5: the identical request again, with X-Payer and the payment header (v2 `accepted` form). */
export async function redeem(
  req: RequestSpec,
  payment: { network: string; payer: Address; payerSig: string; signature?: string; reference?: string },
  fetchImpl: FetchLike = fetch,
): Promise<RedeemResult> {
  const header = encodePaymentHeader({
    network: payment.network,
    signature: payment.signature,
    reference: payment.reference,
    payerSig: payment.payerSig,
  });
  const response = await send(fetchImpl, req, { [X402_HEADERS.payer]: payment.payer, [X402_HEADERS.payment]: header });
  const receiptHeader = response.headers.get(X402_HEADERS.response);
  return { response, receipt: receiptHeader ? decodeSettlementReceipt(receiptHeader) : null };
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

export interface PayResult extends RedeemResult {
  /** The payment transaction, when one was sent. */
  signature?: Signature;
  challenge: X402Challenge | null;
}

/** The whole flow for one request. A response that is not a 402 challenge is returned as it is. */
export async function payAndFetch(req: RequestSpec, options: PayOptions): Promise<PayResult> {
  const fetchImpl = options.fetch ?? fetch;
  const first = await requestChallenge(req, options.payer.address, fetchImpl);
  if (options.rail === 'facilitator') return payThroughFacilitator(req, options, first, fetchImpl);
  if (!first.entry) return { response: first.response, receipt: null, challenge: first.challenge };
  const entry = first.entry;
  const signature = await sendInstructions(
    options.rpc,
    options.payer,
    await paymentInstructions(options.rpc, entry, options.payer, options),
  );
  await (options.waitForFinality ?? ((s) => waitForFinalized(options.rpc, s)))(signature);
  const payerSig = await signRedeemMessage(options.payer, buildRedeemMessage(entry));
  const byReference = options.redeemBy === 'reference';
  const result = await redeem(
    req,
    {
      network: entry.network,
      payer: options.payer.address,
      payerSig,
      ...(byReference ? { reference: entry.extra.reference } : { signature }),
    },
    fetchImpl,
  );
  return { ...result, signature, challenge: first.challenge };
}

/**
 * A `fetch` that buys metered answers, like the x402 ecosystem's fetch wrappers: every request carries X-Payer; a
 * 402 challenge is paid with the fixed payment shape, the payment awaited to finality, `redeemMessage` signed, and
 * the identical request repeated with the payment header; any other answer is returned as it is. Give it to
 * `createSigilClient({ fetch })` (without an API key) to pay per call. The Request's own signal is not applied to
 * the flow: finality takes longer than one request's deadline (`waitForFinality` / `waitForFinalized` bound it).
 */
export function createX402Fetch(
  options: PayOptions,
): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const bytes = ['GET', 'HEAD'].includes(request.method) ? null : new Uint8Array(await request.arrayBuffer());
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const spec: RequestSpec = { url: request.url, method: request.method, headers };
    if (bytes && bytes.length > 0) spec.body = bytes;
    return (await payAndFetch(spec, options)).response;
  };
}

/**
 * The facilitator rail: the challenge's facilitator entry paid with a transaction whose fee payer is the
 * facilitator (`extra.feePayer`): SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked to payTo's account,
 * signed by the payer only, sent in PAYMENT-SIGNATURE (x402 version 2). The server settles it before answering.
 */
async function payThroughFacilitator(
  req: RequestSpec,
  options: PayOptions,
  first: ChallengeResult,
  fetchImpl: FetchLike,
): Promise<PayResult> {
  const challenge = first.challenge;
  const entry = challenge?.accepts.find((e): e is X402FacilitatorEntry => !isNativeEntry(e));
  if (!entry) return { response: first.response, receipt: null, challenge };
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
    ...(challenge!.resource && { resource: challenge!.resource }),
    accepted: entry,
    payload: { transaction },
  });
  const response = await send(fetchImpl, req, { [X402_HEADERS.payment]: header });
  const receiptHeader = response.headers.get(X402_HEADERS.response);
  return { response, receipt: receiptHeader ? decodeSettlementReceipt(receiptHeader) : null, challenge };
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
