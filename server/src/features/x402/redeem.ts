// The redeem path of authorize: a payment header → a VERIFIED payment, or a 402 rejection with its code. Nothing is
// consumed (settle.ts does that after the handler succeeded). Steps, in order: parse the header and match the
// network and bound payer; (1) find the reference the payment claims and check nothing is spent yet; (2) check
// the payer's signature over the redeem message; (3) check the finalized payment against the reference's quote.
// A payment by signature costs two store reads (is the signature spent; the references its transaction carries, each
// with whether it is spent), one getTransaction sent alongside the first read, one decode of that transaction.
import type { Address } from '@solana/kit';
import {
  X402_REDEEM_WINDOW_SECONDS,
  parsePaymentJson,
  redeemMessage,
  type X402ChallengeCode,
  type X402Payment,
} from '@sigil/contract/x402';
import { ChainError } from '../../platform/chain/types';
import { decodeSignature, verifyWalletMessage } from '../../platform/crypto/wallet-signature';
import type { RequestFacts, VerifiedPayment, X402Deps } from './deps';
import { challengeError } from './issue';
import {
  appendedTransferAccounts,
  checkPaymentTransaction,
  type PaymentCheckResult,
  type PaymentQuote,
  type PaymentTransactionResponse,
} from './payment-tx';
import { findReference, findReferences, type IssuedReference, type ReferenceState, signatureConsumed } from './queries';
import { guarded } from './store-guard';

/** How many finalized transactions listing a reference are examined (a fresh reference has one or two). */
const REFERENCE_SEARCH_LIMIT = 50;

/** Check results that mean "this transaction is not a payment for this request" when searching by reference. */
const NOT_A_PAYMENT: ReadonlySet<string> = new Set([
  'PAYMENT_LAYOUT_INVALID',
  'REFERENCE_MISSING',
  'REFERENCE_MISMATCH',
  'PAYMENT_WRONG_ASSET',
  'PAYMENT_WRONG_DESTINATION',
  'PAYER_MISMATCH',
  'MULTISIG_AUTHORITY_UNSUPPORTED',
  'PAYMENT_FAILED',
]);

/** Rejections after which the same payment (hence the same reference) may simply be presented again. */
const SAME_REFERENCE_RETRY: ReadonlySet<X402ChallengeCode> = new Set([
  'PAYMENT_NOT_FINALIZED',
  'VERIFIER_UNAVAILABLE',
  'REDEEM_SIGNATURE_REQUIRED',
  'REDEEM_SIGNATURE_INVALID',
]);

/** Searching by reference found no finalized transaction listing it yet. */
type NotFinalized = { ok: false; code: 'PAYMENT_NOT_FINALIZED'; message: string };

type Reject = (code: X402ChallengeCode, message: string, reuse?: IssuedReference) => Promise<never>;
type ChainRead = <T>(read: () => Promise<T>, reuse?: IssuedReference) => Promise<T>;

/** One redemption: the request it is for, the bound payer, and how it refuses. */
interface Redemption {
  deps: X402Deps;
  facts: RequestFacts;
  payer: string;
  /** Throws the 402 rejection; it names `reuse` as the reference when the same payment may simply be retried. */
  reject: Reject;
  /** A chain read: RPC down → VERIFIER_UNAVAILABLE (retryable), undecodable → PAYMENT_UNVERIFIABLE. */
  chainRead: ChainRead;
}

/** `header`: the payment header as decodeBase64Json decoded it (authorize decodes it once, for both rails). */
export async function redeem(deps: X402Deps, facts: RequestFacts, header: unknown): Promise<VerifiedPayment> {
  const reject: Reject = async (code, message, reuse) => {
    const keep = reuse && SAME_REFERENCE_RETRY.has(code) ? reuse : undefined;
    throw await challengeError(deps, facts, { code, message }, keep);
  };
  const parsed = parsePaymentJson(header);
  if (!parsed.ok) return reject(parsed.code, parsed.message);
  const payment: X402Payment = parsed.payment;
  const net = await deps.network();
  if (payment.network !== net) {
    return reject(
      'PAYMENT_NETWORK_UNSUPPORTED',
      `no rail serves network ${JSON.stringify(payment.network)}; this service accepts ${net}`,
    );
  }
  const payer = facts.payer;
  if (!payer) {
    return reject(
      'PAYER_REQUIRED',
      'bind the payer wallet with X-Payer (or the payer query parameter) on the redeeming request',
    );
  }
  const r: Redemption = { deps, facts, payer, reject, chainRead: chainReads(reject) };

  const { reference, tx } = await claimedReference(r, payment);
  await checkPayerSignature(r, payment, reference);
  const result = await checkPayment(r, reference, tx);
  if (!result.ok) {
    return reject(result.code, result.message, reference);
  }
  return {
    signature: result.signature,
    reference: reference.reference,
    payer,
    amount: result.amount,
    requestHash: facts.requestHash,
    network: net,
  };
}

function chainReads(reject: Reject): ChainRead {
  return async (read, reuse) => {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof ChainError)) throw err;
      if (err.kind === 'unreachable') {
        const why = 'the chain RPC did not answer; retry the identical request (nothing was consumed)';
        return reject('VERIFIER_UNAVAILABLE', why, reuse);
      }
      return reject('PAYMENT_UNVERIFIABLE', 'the chain returned a payment transaction that does not decode');
    }
  };
}

/**
 * Step 1: the reference this redemption claims (by `payload.reference`, or found on the transaction of
 * `payload.signature`), unexpired, with neither the payment nor the reference spent yet. With a signature, also
 * its finalized transaction.
 */
async function claimedReference(
  r: Redemption,
  payment: X402Payment,
): Promise<{ reference: IssuedReference; tx: PaymentTransactionResponse | null }> {
  const { deps, facts, payer, reject } = r;
  let row: ReferenceState | undefined;
  // The transaction is fetched while the store is asked about the signature: the read costs the request no time of
  // its own. Its failure is judged (chainRead) only if the redemption gets that far.
  const fetched =
    payment.signature === undefined ? undefined : deps.chain.getTransactionWire(payment.signature, 'finalized');
  fetched?.catch(() => undefined);
  if (payment.signature !== undefined) {
    if (await guarded(deps, () => signatureConsumed(deps.db, payment.signature!))) {
      return reject('PAYMENT_ALREADY_USED', 'this payment already bought a successful response; pay again');
    }
  }
  if (payment.reference !== undefined) {
    row = await guarded(deps, () => findReference(deps.db, payment.reference!));
    if (!row) return reject('REFERENCE_MISSING', 'payload.reference is not a reference this service issued');
    if (row.request_hash !== facts.requestHash || row.payer !== payer) {
      return reject('REFERENCE_MISMATCH', 'the reference was issued for a different request or payer');
    }
  }
  let tx: PaymentTransactionResponse | null = null;
  if (payment.signature !== undefined) {
    ({ tx, row } = await referenceOnTransaction(r, payment.signature, fetched!, row));
  }
  const reference = row!;
  if (deps.now() > reference.expires_at) {
    return reject(
      'REFERENCE_EXPIRED',
      `the reference's ${X402_REDEEM_WINDOW_SECONDS} s redeem window has passed; request a fresh challenge`,
    );
  }
  if (reference.spent) {
    return reject('REFERENCE_REUSED', 'this reference already bought a successful response; request a fresh challenge');
  }
  return { reference, tx };
}

/**
 * `payload.signature`: its finalized transaction (`fetched`: its getTransaction, already sent), and the reference
 * it carries that was issued for this request and payer (`row` when `payload.reference` named it already).
 */
async function referenceOnTransaction(
  r: Redemption,
  signature: string,
  fetched: Promise<PaymentTransactionResponse | null>,
  row: ReferenceState | undefined,
): Promise<{ tx: PaymentTransactionResponse; row: ReferenceState }> {
  const { deps, facts, payer, reject, chainRead } = r;
  const tx = await chainRead(() => fetched, row);
  const issuedOn = (t: PaymentTransactionResponse) =>
    guarded(deps, () => findReferences(deps.db, appendedTransferAccounts(t)));
  const forThisRequest = (issued: ReferenceState) =>
    issued.request_hash === facts.requestHash && issued.payer === payer;
  if (!tx) {
    // Landed but not final yet? Its reference (read at confirmed) lets the challenge keep pointing at it.
    const pending = row ? null : await chainRead(() => deps.chain.getTransactionWire(signature, 'confirmed'));
    const reuse = row ?? (pending ? (await issuedOn(pending)).filter(forThisRequest)[0] : undefined);
    return reject('PAYMENT_NOT_FINALIZED', 'the payment is not finalized yet; retry the identical request', reuse);
  }
  if (row) return { tx, row };
  const issued = await issuedOn(tx);
  const found = issued.find(forThisRequest);
  if (found) return { tx, row: found };
  return issued.length > 0
    ? reject('REFERENCE_MISMATCH', 'the payment carries a reference issued for a different request or payer')
    : reject('REFERENCE_MISSING', 'the payment does not carry a reference issued for this request');
}

/** Step 2: the payer's signature over the redeem message proves the redeemer is the payer (before any RPC work). */
async function checkPayerSignature(r: Redemption, payment: X402Payment, reference: IssuedReference): Promise<void> {
  if (payment.payerSig === undefined) {
    return r.reject(
      'REDEEM_SIGNATURE_REQUIRED',
      'sign extra.redeemMessage with the paying wallet and send it as payload.payerSig',
      reference,
    );
  }
  const sig = decodeSignature(payment.payerSig);
  const message = redeemMessage(r.deps.settings.domainTag, reference.reference);
  const verdict = sig.ok
    ? verifyWalletMessage({ message, signature: sig.bytes, signer: r.payer })
    : { ok: false as const };
  if (!verdict.ok) {
    const why = "payload.payerSig is not the payer's signature over the redeem message";
    return r.reject('REDEEM_SIGNATURE_INVALID', why, reference);
  }
}

/** Step 3: the payment itself, finalized, against the quote the reference was issued with. */
async function checkPayment(
  r: Redemption,
  reference: IssuedReference,
  tx: PaymentTransactionResponse | null,
): Promise<PaymentCheckResult | NotFinalized> {
  const { settings } = r.deps;
  const quote: PaymentQuote = {
    payTo: settings.payTo as Address,
    asset: settings.asset as Address,
    amount: BigInt(reference.amount),
    reference: reference.reference as Address,
    payer: r.payer as Address,
    ...(settings.tokenProgram ? { tokenProgram: settings.tokenProgram as Address } : {}),
    issuedAt: Math.floor(reference.issued_at / 1000),
  };
  const nowSeconds = Math.floor(r.deps.now() / 1000);
  if (tx) return checkPaymentTransaction(tx, quote, { now: nowSeconds });
  return findPaymentByReference(r, quote, nowSeconds, reference);
}

/**
 * `payload.reference`: every finalized transaction listing the reference, oldest first; the first valid payment
 * wins; transactions that are not payments for this request are skipped. None at all → not finalized yet.
 */
async function findPaymentByReference(
  r: Redemption,
  quote: PaymentQuote,
  nowSeconds: number,
  row: IssuedReference,
): Promise<PaymentCheckResult | NotFinalized> {
  const { chain } = r.deps;
  const listed = await r.chainRead(
    () => chain.getSignaturesForAddress(quote.reference, { limit: REFERENCE_SEARCH_LIMIT }, 'finalized'),
    row,
  );
  let firstProblem: PaymentCheckResult | undefined;
  let lastSkipped: PaymentCheckResult | undefined;
  for (const entry of [...listed].reverse()) {
    const tx = await r.chainRead(() => chain.getTransactionWire(entry.signature, 'finalized'), row);
    if (!tx) continue;
    const result = await checkPaymentTransaction(tx, quote, { now: nowSeconds });
    if (result.ok) return result;
    if (NOT_A_PAYMENT.has(result.code)) lastSkipped = result;
    else firstProblem ??= result;
  }
  return (
    firstProblem ??
    lastSkipped ?? {
      ok: false,
      code: 'PAYMENT_NOT_FINALIZED',
      message: 'no finalized transaction lists the reference yet; retry the identical request',
    }
  );
}
