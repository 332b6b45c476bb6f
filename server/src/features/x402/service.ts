// x402 pay-per-call for keyless requests on metered procedures (docs/x402.md):
//   authorize(request) → a 402 challenge (issuing a request-bound reference when a payer is bound), a rejection
//                        with its code, or a VERIFIED payment — nothing is consumed yet;
//   settle(payment)    → after the handler succeeded: consume payment + reference in one atomic statement and
//                        return the settlement receipt; a concurrent loser gets 409, a store failure 503.
// A handler that fails, a bad payerSig, a payment not yet finalized: nothing is consumed; the payment can be retried.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Kysely } from 'kysely';
import type { Address } from '@solana/kit';
import {
  X402_HEADERS,
  X402_REDEEM_WINDOW_SECONDS,
  caip2FromGenesisHash,
  canonicalRequest,
  deriveReference,
  encodeSettlementReceipt,
  parsePaymentHeader,
  redeemMessage,
  requestHash as hashOfCanonical,
  type X402ChallengeCode,
  type X402Payment,
} from '@sigil/contract/x402';
import { RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import { isBase58Address } from '@sigil/contract/names';
import type { Database } from '../../platform/db/index';
import { ChainError, type ChainReader } from '../../platform/chain/types';
import { decodeSignature, verifyWalletMessage } from '../../platform/crypto/wallet-signature';
import type { Logger } from '../../platform/log';
import type { PriceClass, X402Settings } from '../../platform/config';
import { buildChallenge, paymentRequired, X402Error } from './challenge';
import { IpLimiter } from './ip-limiter';
import { appendedTransferAccounts, checkPaymentTransaction, type PaymentCheckResult, type PaymentTransactionResponse } from './payment-tx';
import { consumedPayments, consumePayment, findReference, findReferences, insertReference, type IssuedReference } from './store';

/** What x402 needs to know about a keyless request (taken from the wire: raw URL, exact body bytes). */
export interface MeteredRequest {
  method: string;
  /** The raw request target (path and query exactly as received). */
  url: string;
  rawBody?: Uint8Array;
  headers: IncomingHttpHeaders;
  clientIp: string;
  priceClass: PriceClass;
}

/** A payment checked against the request and the chain, not yet consumed. */
export interface VerifiedPayment {
  signature: string;
  reference: string;
  payer: string;
  /** Smallest units the payment instruction transferred. */
  amount: bigint;
  requestHash: string;
  network: string;
}

export interface X402Service {
  readonly settings: X402Settings;
  /** The CAIP-2 id of the chain the RPC serves (from its genesis hash, cached). Throws ChainError. */
  network(): Promise<string>;
  /** Throws X402Error (402 challenge or rejection, 400, 429, 502, 503) unless the request carries a good payment. */
  authorize(request: MeteredRequest): Promise<VerifiedPayment>;
  /** Consumes the payment after the handler succeeded; returns the base64 receipt for PAYMENT-RESPONSE. */
  settle(payment: VerifiedPayment): Promise<string>;
}

/** kv key of the generated nonce secret when SIGIL_X402_NONCE_SECRET is unset (local mode). */
export const NONCE_SECRET_KV_KEY = 'x402.nonce_secret';
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

interface RequestFacts {
  canonical: string;
  requestHash: string;
  payer?: string;
  amount: bigint;
  priceClass: PriceClass;
}

/** A valid base58 payer from X-Payer, else from the first `payer` query parameter; malformed ones are ignored. */
export function boundPayer(headers: IncomingHttpHeaders, query: string): string | undefined {
  const header = headers[X402_HEADERS.payer.toLowerCase()];
  const fromHeader = typeof header === 'string' ? header.trim() : undefined;
  if (fromHeader && isBase58Address(fromHeader)) return fromHeader;
  let fromQuery: string | null = null;
  try {
    fromQuery = new URLSearchParams(query).get('payer');
  } catch {
    return undefined;
  }
  return fromQuery && isBase58Address(fromQuery.trim()) ? fromQuery.trim() : undefined;
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

class StoreDown extends Error {}

/** Searching by reference found no finalized transaction listing it yet. */
type NotFinalized = { ok: false; code: 'PAYMENT_NOT_FINALIZED'; message: string };

export function createX402Service(deps: {
  settings: X402Settings;
  chain: ChainReader;
  db: Kysely<Database>;
  log?: Logger;
  now?: () => number;
}): X402Service {
  const { settings, chain, db } = deps;
  // Read through Date.now at each call (not a captured reference), so a test can move the clock.
  const now = deps.now ?? (() => Date.now());
  const limiter = new IpLimiter(settings.ipLimitPerMinute);

  let networkPromise: Promise<string> | undefined;
  function network(): Promise<string> {
    if (!networkPromise) {
      networkPromise = chain.getGenesisHash().then(caip2FromGenesisHash);
      // A failed read is not cached: the next request asks again.
      networkPromise.catch(() => (networkPromise = undefined));
    }
    return networkPromise;
  }

  let secretPromise: Promise<string> | undefined;
  /** The configured secret, or one generated once and kept in kv so replicas and restarts agree. */
  function nonceSecret(): Promise<string> {
    if (settings.nonceSecret) return Promise.resolve(settings.nonceSecret);
    if (secretPromise) return secretPromise;
    secretPromise = (async () => {
      await db
        .insertInto('kv')
        .values({ key: NONCE_SECRET_KV_KEY, value: randomBytes(32).toString('base64url'), updated_at: now() })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      const row = await db.selectFrom('kv').select('value').where('key', '=', NONCE_SECRET_KV_KEY).executeTakeFirstOrThrow();
      return row.value;
    })();
    secretPromise.catch(() => (secretPromise = undefined));
    return secretPromise;
  }

  async function store<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      deps.log?.error({ err }, 'x402 payment store failed');
      throw new StoreDown();
    }
  }

  /** Issues a fresh reference for this request and payer (nonce = HMAC(secret, 16 random bytes), never sent). */
  async function issue(facts: RequestFacts & { payer: string }): Promise<string> {
    const secret = await store(nonceSecret);
    const nonce = createHmac('sha256', secret).update(randomBytes(16)).digest('base64url');
    const reference = deriveReference({ domainTag: settings.domainTag, canonical: facts.canonical, nonce, payer: facts.payer });
    const issuedAt = now();
    await store(() =>
      insertReference(db, {
        reference,
        request_hash: facts.requestHash,
        payer: facts.payer,
        nonce,
        route: facts.priceClass,
        amount: facts.amount.toString(),
        issued_at: issuedAt,
        expires_at: issuedAt + X402_REDEEM_WINDOW_SECONDS * 1000,
      }),
    );
    return reference;
  }

  /** The 402: plain, or a rejection; its reference is `reuse` when given, else a fresh one when a payer is bound. */
  async function challengeError(
    facts: RequestFacts,
    rejection?: { code: X402ChallengeCode; message: string },
    reuse?: IssuedReference,
  ): Promise<X402Error> {
    const net = await network();
    let reference: string | undefined;
    let amount = facts.amount;
    if (facts.payer && reuse) {
      reference = reuse.reference;
      amount = BigInt(reuse.amount);
    } else if (facts.payer) {
      reference = await issue({ ...facts, payer: facts.payer });
    }
    return paymentRequired(
      buildChallenge(
        {
          network: net,
          asset: settings.asset,
          payTo: settings.payTo,
          amount,
          requestHash: facts.requestHash,
          domainTag: settings.domainTag,
          payer: facts.payer,
          reference,
        },
        rejection,
      ),
    );
  }

  async function authorize(request: MeteredRequest): Promise<VerifiedPayment> {
    const preferred = singleHeader(request.headers[X402_HEADERS.payment.toLowerCase()]);
    const legacy = singleHeader(request.headers[X402_HEADERS.legacyPayment.toLowerCase()]);
    if (preferred !== undefined && legacy !== undefined && preferred.trim() !== legacy.trim()) {
      throw new X402Error('PAYMENT_HEADER_CONFLICT', 'PAYMENT-SIGNATURE and X-PAYMENT are both present and differ: send one');
    }
    const verdict = limiter.limit(request.clientIp, now());
    if (!verdict.passed) {
      throw new X402Error('RATE_LIMITED', `too many unauthenticated payment requests from this address; retry after ${verdict.retryAfterSeconds} s`, {
        headers: { [RETRY_AFTER_HEADER.toLowerCase()]: String(verdict.retryAfterSeconds) },
      });
    }
    try {
      await network();
    } catch {
      throw new X402Error('X402_UNAVAILABLE', 'pay-per-call is not available now (the chain RPC did not answer); retry, or send an X-API-Key');
    }

    const q = request.url.indexOf('?');
    const path = q === -1 ? request.url : request.url.slice(0, q);
    const query = q === -1 ? '' : request.url.slice(q + 1);
    const canonical = canonicalRequest({ method: request.method, path, query, body: request.rawBody });
    const facts: RequestFacts = {
      canonical,
      requestHash: hashOfCanonical(canonical),
      payer: boundPayer(request.headers, query),
      amount: settings.prices[request.priceClass],
      priceClass: request.priceClass,
    };

    try {
      const header = preferred ?? legacy;
      if (header === undefined) throw await challengeError(facts);
      return await redeem(facts, header);
    } catch (err) {
      if (err instanceof StoreDown) {
        throw new X402Error('METERING_UNAVAILABLE', 'the payment store failed; retry the identical request (nothing was consumed)');
      }
      throw err;
    }
  }

  async function redeem(facts: RequestFacts, header: string): Promise<VerifiedPayment> {
    const reject = async (code: X402ChallengeCode, message: string, reuse?: IssuedReference): Promise<never> => {
      throw await challengeError(facts, { code, message }, reuse && SAME_REFERENCE_RETRY.has(code) ? reuse : undefined);
    };
    /** A chain read: RPC down → VERIFIER_UNAVAILABLE (retryable), undecodable → PAYMENT_UNVERIFIABLE. */
    const chainRead = async <T>(read: () => Promise<T>, reuse?: IssuedReference): Promise<T> => {
      try {
        return await read();
      } catch (err) {
        if (!(err instanceof ChainError)) throw err;
        if (err.kind === 'unreachable') return reject('VERIFIER_UNAVAILABLE', 'the chain RPC did not answer; retry the identical request (nothing was consumed)', reuse);
        return reject('PAYMENT_UNVERIFIABLE', 'the chain returned a payment transaction that does not decode');
      }
    };

    const parsed = parsePaymentHeader(header);
    if (!parsed.ok) return reject(parsed.code, parsed.message);
    const payment: X402Payment = parsed.payment;
    const net = await network();
    if (payment.network !== net) return reject('PAYMENT_NETWORK_UNSUPPORTED', `no rail serves network ${JSON.stringify(payment.network)}; this service accepts ${net}`);
    const payer = facts.payer;
    if (!payer) return reject('PAYER_REQUIRED', 'bind the payer wallet with X-Payer (or the payer query parameter) on the redeeming request');

    // 1. The reference this redemption claims, and whether anything is already spent.
    let row: IssuedReference | undefined;
    if (payment.signature !== undefined) {
      const used = await store(() => consumedPayments(db, { signature: payment.signature }));
      if (used.signatureUsed) return reject('PAYMENT_ALREADY_USED', 'this payment already bought a successful response; pay again');
    }
    if (payment.reference !== undefined) {
      row = await store(() => findReference(db, payment.reference!));
      if (!row) return reject('REFERENCE_MISSING', 'payload.reference is not a reference this service issued');
      if (row.request_hash !== facts.requestHash || row.payer !== payer) {
        return reject('REFERENCE_MISMATCH', 'the reference was issued for a different request or payer');
      }
    }
    let tx: PaymentTransactionResponse | null = null;
    if (payment.signature !== undefined) {
      tx = await chainRead(() => chain.getTransactionWire(payment.signature!, 'finalized'), row);
      const issuedHere = async (t: PaymentTransactionResponse) =>
        (await store(() => findReferences(db, appendedTransferAccounts(t)))).filter((r) => r.request_hash === facts.requestHash && r.payer === payer);
      if (!tx) {
        // Landed but not final yet? Its reference (read at confirmed) lets the challenge keep pointing at it.
        const pending = row ? null : await chainRead(() => chain.getTransactionWire(payment.signature!, 'confirmed'));
        const reuse = row ?? (pending ? (await issuedHere(pending))[0] : undefined);
        return reject('PAYMENT_NOT_FINALIZED', 'the payment is not finalized yet; retry the identical request', reuse);
      }
      if (!row) {
        const issued = await store(() => findReferences(db, appendedTransferAccounts(tx!)));
        row = issued.find((r) => r.request_hash === facts.requestHash && r.payer === payer);
        if (!row) {
          return issued.length > 0
            ? reject('REFERENCE_MISMATCH', 'the payment carries a reference issued for a different request or payer')
            : reject('REFERENCE_MISSING', 'the payment does not carry a reference issued for this request');
        }
      }
    }
    const reference = row!;
    if (now() > reference.expires_at) {
      return reject('REFERENCE_EXPIRED', `the reference's ${X402_REDEEM_WINDOW_SECONDS} s redeem window has passed; request a fresh challenge`);
    }
    const spent = await store(() => consumedPayments(db, { reference: reference.reference }));
    if (spent.referenceUsed) return reject('REFERENCE_REUSED', 'this reference already bought a successful response; request a fresh challenge');

    // 2. The payer's signature over the redeem message: proves the redeemer is the payer (before any RPC work).
    if (payment.payerSig === undefined) {
      return reject('REDEEM_SIGNATURE_REQUIRED', 'sign extra.redeemMessage with the paying wallet and send it as payload.payerSig', reference);
    }
    const sig = decodeSignature(payment.payerSig);
    const verdict = sig.ok
      ? verifyWalletMessage({ message: redeemMessage(settings.domainTag, reference.reference), signature: sig.bytes, signer: payer })
      : { ok: false as const };
    if (!verdict.ok) return reject('REDEEM_SIGNATURE_INVALID', "payload.payerSig is not the payer's signature over the redeem message", reference);

    // 3. The payment itself, finalized, against the quote the reference was issued with.
    const quote = {
      payTo: settings.payTo as Address,
      asset: settings.asset as Address,
      amount: BigInt(reference.amount),
      reference: reference.reference as Address,
      payer: payer as Address,
      ...(settings.tokenProgram ? { tokenProgram: settings.tokenProgram as Address } : {}),
      issuedAt: Math.floor(reference.issued_at / 1000),
    };
    const nowSeconds = Math.floor(now() / 1000);
    let result: PaymentCheckResult | NotFinalized;
    if (tx) {
      result = await checkPaymentTransaction(tx, quote, { now: nowSeconds });
    } else {
      result = await findPaymentByReference(quote, nowSeconds, chainRead, reference);
    }
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

  /**
   * `payload.reference`: every finalized transaction listing the reference, oldest first; the first valid payment
   * wins; transactions that are not payments for this request are skipped. None at all → not finalized yet.
   */
  async function findPaymentByReference(
    quote: Parameters<typeof checkPaymentTransaction>[1],
    nowSeconds: number,
    chainRead: <T>(read: () => Promise<T>, reuse?: IssuedReference) => Promise<T>,
    row: IssuedReference,
  ): Promise<PaymentCheckResult | NotFinalized> {
    const listed = await chainRead(() => chain.getSignaturesForAddress(quote.reference, { limit: REFERENCE_SEARCH_LIMIT }, 'finalized'), row);
    let firstProblem: PaymentCheckResult | undefined;
    let lastSkipped: PaymentCheckResult | undefined;
    for (const entry of [...listed].reverse()) {
      const tx = await chainRead(() => chain.getTransactionWire(entry.signature, 'finalized'), row);
      if (!tx) continue;
      const result = await checkPaymentTransaction(tx, quote, { now: nowSeconds });
      if (result.ok) return result;
      if (NOT_A_PAYMENT.has(result.code)) lastSkipped = result;
      else firstProblem ??= result;
    }
    return (
      firstProblem ??
      lastSkipped ?? { ok: false, code: 'PAYMENT_NOT_FINALIZED', message: 'no finalized transaction lists the reference yet; retry the identical request' }
    );
  }

  async function settle(payment: VerifiedPayment): Promise<string> {
    let outcome: Awaited<ReturnType<typeof consumePayment>>;
    try {
      outcome = await consumePayment(db, {
        signature: payment.signature,
        reference: payment.reference,
        payer: payment.payer,
        amount: payment.amount.toString(),
        request_hash: payment.requestHash,
        consumed_at: now(),
      });
    } catch (err) {
      deps.log?.error({ err }, 'x402 payment store failed while consuming');
      throw new X402Error('METERING_UNAVAILABLE', 'the payment store failed; the response is withheld; retry the identical request (nothing was consumed)');
    }
    if (outcome === 'signature-used') {
      throw new X402Error('PAYMENT_ALREADY_USED', 'a concurrent request redeemed this payment first; pay again', { status: 409 });
    }
    if (outcome === 'reference-used') {
      throw new X402Error('REFERENCE_REUSED', 'a concurrent request redeemed this reference first; request a fresh challenge', { status: 409 });
    }
    return encodeSettlementReceipt({
      success: true,
      payer: payment.payer,
      transaction: payment.signature,
      network: payment.network,
      amount: payment.amount.toString(),
    });
  }

  return { settings, network, authorize, settle };
}
