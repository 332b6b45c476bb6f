// The facilitator rail (docs/x402.md "Facilitator rail"): x402's SVM `exact` scheme as stock x402 clients speak it.
// The client sends a partially signed transaction (the facilitator pays the fee); Sigil asks the facilitator to
// /verify it before the handler runs and to /settle it after the handler succeeded, and sends the response only once
// settlement is confirmed. x402_settlements (one row per payment, keyed by the SHA-256 of the transaction message)
// makes settlement and service happen at most once across processes, and lets a payment whose settlement timed out
// be presented again: it is served without a second charge (the chain runs one transaction once; Sigil finds it).
import { createHash } from 'node:crypto';
import { getBase64Encoder, getTransactionDecoder, type Address } from '@solana/kit';
import {
  X402_HEADERS,
  X402_REDEEM_WINDOW_SECONDS,
  X402_SCHEME,
  encodeSettlementReceipt,
  type X402ChallengeCode,
} from '@sigil/contract/x402';
import { X402Error } from './challenge';
import type { FacilitatorRail, RequestFacts, X402Deps } from './deps';
import { FacilitatorFailure, type FacilitatorRequest } from './facilitator-client';
import { requirementsFor, v1NetworkName } from './facilitator-quote';
import { challengeError } from './issue';
import { deleteSettlement, findSettlement, insertSettlement, markSettlementServed, type Settlement } from './queries';
import { guarded } from './store-guard';

/** How many of the payer's latest transactions are examined when resuming a settlement. */
const RESUME_SEARCH_LIMIT = 25;

/** A facilitator-rail payment verified by the facilitator (or resumed), not yet settled. */
export interface FacilitatorPayment {
  rail: 'facilitator';
  paymentKey: string;
  x402Version: 1 | 2;
  /** The payment as the client sent it (forwarded to the facilitator unchanged). */
  paymentPayload: Record<string, unknown>;
  paymentRequirements: Record<string, unknown>;
  requestHash: string;
  payer: string;
  amount: bigint;
  network: string;
  /** The request it pays for (a rejection's challenge is issued for it). */
  facts: RequestFacts;
  /** Set when the payment's settlement was started by an earlier request that did not get the response. */
  resumed: Settlement | null;
}

/** A payment header's JSON is a facilitator-rail payment when its payload carries a transaction. */
export function isFacilitatorPayment(
  json: unknown,
): json is Record<string, unknown> & { payload: { transaction: string } } {
  if (typeof json !== 'object' || json === null) return false;
  const payload = (json as { payload?: unknown }).payload;
  return (
    typeof payload === 'object' &&
    payload !== null &&
    typeof (payload as { transaction?: unknown }).transaction === 'string'
  );
}

/** hex SHA-256 of the transaction message: the same for the client's copy and the landed, co-signed transaction. */
function messageKey(wireBase64: string): string | null {
  try {
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(wireBase64));
    return createHash('sha256').update(new Uint8Array(tx.messageBytes)).digest('hex');
  } catch {
    return null;
  }
}

/**
 * A facilitator-rail payment → verified (or resumed), or an X402Error: 402 with a fresh challenge (the code), 502
 * X402_FACILITATOR_ERROR / X402_SETTLE_TIMEOUT when the facilitator cannot judge it. Nothing is settled here.
 */
export async function authorizeFacilitator(
  deps: X402Deps,
  rail: FacilitatorRail,
  facts: RequestFacts,
  json: Record<string, unknown> & { payload: { transaction: string } },
): Promise<FacilitatorPayment> {
  const reject = async (code: X402ChallengeCode, message: string): Promise<never> => {
    throw await challengeError(deps, facts, { code, message });
  };
  const version = json.x402Version as 1 | 2;
  const accepted = json.accepted as { scheme?: unknown; network?: unknown } | undefined;
  const scheme = version === 2 ? accepted?.scheme : json.scheme;
  const claimed = version === 2 ? accepted?.network : json.network;
  if ((version !== 1 && version !== 2) || scheme !== X402_SCHEME || typeof claimed !== 'string') {
    return reject('PAYMENT_PAYLOAD_INVALID', 'payment header: an exact payment of x402 version 1 or 2 is expected');
  }
  const network = await deps.network();
  const expected = version === 2 ? network : v1NetworkName(network);
  if (claimed !== expected) {
    return reject(
      'PAYMENT_NETWORK_UNSUPPORTED',
      `payment names network ${JSON.stringify(claimed)}; this rail serves ${expected ?? network}`,
    );
  }
  const paymentKey = messageKey(json.payload.transaction);
  if (!paymentKey) return reject('PAYMENT_PAYLOAD_INVALID', 'payment header: payload.transaction is not a transaction');

  const row = await guarded(deps, () => findSettlement(deps.db, paymentKey));
  if (row?.served_at != null || (row && row.request_hash !== facts.requestHash)) {
    return reject(
      'PAYMENT_ALREADY_USED',
      'this payment already bought a response (or is settling another request); pay again',
    );
  }
  if (row && deps.now() > Number(row.started_at) + X402_REDEEM_WINDOW_SECONDS * 1000) {
    return reject('PAYMENT_STALE', `this payment's settlement started more than ${X402_REDEEM_WINDOW_SECONDS} s ago`);
  }
  const requirements = await facilitatorCall(() =>
    rail.feePayer(version, claimed).then((feePayer) => requirementsFor(deps, rail, facts, version, claimed, feePayer)),
  );
  const base = {
    rail: 'facilitator' as const,
    paymentKey,
    x402Version: version,
    paymentPayload: json,
    paymentRequirements: requirements,
    requestHash: facts.requestHash,
    network,
    facts,
  };
  // Resumed: its settlement was started before; the facilitator already verified it (and may have settled it).
  if (row) return { ...base, payer: row.payer, amount: BigInt(row.amount), resumed: row };

  const verdict = await facilitatorCall(() => rail.client.verify(requestBody(base)));
  if (!verdict.isValid || !verdict.payer) {
    return reject('PAYMENT_INVALID', `the facilitator refused the payment: ${verdict.invalidReason ?? 'invalid'}`);
  }
  return { ...base, payer: verdict.payer, amount: facts.amount, resumed: null };
}

/**
 * After the handler succeeded: settle (or find the settlement a resumed payment already made), then claim the
 * response for this request in one conditional UPDATE. Returns the receipt headers; the response is withheld on
 * any failure (402 SETTLEMENT_FAILED, 502 X402_SETTLE_TIMEOUT / X402_FACILITATOR_ERROR, 409, 503).
 */
export async function settleFacilitator(
  deps: X402Deps,
  rail: FacilitatorRail,
  payment: FacilitatorPayment,
): Promise<Record<string, string>> {
  const store = <T>(work: () => Promise<T>) =>
    work().catch((err: unknown) => {
      deps.log?.error({ err }, 'x402 settlement store failed');
      throw new X402Error(
        'METERING_UNAVAILABLE',
        'the payment store failed; the response is withheld; retry the identical request with the same payment ' +
          `within ${X402_REDEEM_WINDOW_SECONDS} s (it is not charged twice)`,
      );
    });
  const alreadyUsed = () =>
    new X402Error('PAYMENT_ALREADY_USED', 'a concurrent request took this payment first; pay again', {
      status: 409,
    });

  let transaction: string | null = payment.resumed?.transaction ?? null;
  if (!payment.resumed) {
    const inserted = await store(() =>
      insertSettlement(deps.db, {
        payment_key: payment.paymentKey,
        request_hash: payment.requestHash,
        payer: payment.payer,
        amount: payment.amount.toString(),
        network: payment.network,
        started_at: deps.now(),
        transaction: null,
        served_at: null,
      }),
    );
    // Another request holds this payment (it is settling it, or was served with it): one payment, one response.
    if (!inserted) throw alreadyUsed();
  } else if (!transaction) {
    transaction = await landedTransaction(deps, payment);
  }

  if (!transaction) {
    const answer = await facilitatorCall(() => rail.client.settle(requestBody(payment)));
    if ((!answer.success || !answer.transaction) && payment.resumed) {
      // The settlement started earlier may still be landing (a facilitator refuses a duplicate while it is): the
      // row stays, the same payment may be presented again until its window closes.
      throw new X402Error(
        'X402_SETTLE_TIMEOUT',
        `the settlement started earlier is not confirmed yet (${answer.errorReason ?? 'refused'}); retry the ` +
          `identical request with the same payment within ${X402_REDEEM_WINDOW_SECONDS} s: it is not charged twice`,
      );
    }
    if (!answer.success || !answer.transaction) {
      // A fresh payment the facilitator refused did not land: forget it so that it is judged anew if sent again.
      await store(() => deleteSettlement(deps.db, payment.paymentKey));
      throw await challengeError(deps, payment.facts, {
        code: 'SETTLEMENT_FAILED',
        message: `the facilitator did not settle the payment: ${answer.errorReason ?? 'refused'}; pay again`,
      });
    }
    transaction = answer.transaction;
  }

  if (!(await store(() => markSettlementServed(deps.db, payment.paymentKey, transaction, deps.now())))) {
    throw alreadyUsed();
  }
  const receipt = encodeSettlementReceipt({
    success: true,
    payer: payment.payer,
    transaction,
    network: payment.network,
    amount: payment.amount.toString(),
  });
  return { [X402_HEADERS.response.toLowerCase()]: receipt, [X402_HEADERS.legacyResponse.toLowerCase()]: receipt };
}

function requestBody(
  p: Pick<FacilitatorPayment, 'x402Version' | 'paymentPayload' | 'paymentRequirements'>,
): FacilitatorRequest {
  return { x402Version: p.x402Version, paymentPayload: p.paymentPayload, paymentRequirements: p.paymentRequirements };
}

/** A facilitator call: its failure becomes 502 X402_SETTLE_TIMEOUT (past the deadline) or X402_FACILITATOR_ERROR. */
async function facilitatorCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof FacilitatorFailure)) throw err;
    const retry = `retry the identical request with the same payment within ${X402_REDEEM_WINDOW_SECONDS} s: it is not charged twice`;
    if (err.kind === 'timeout') throw new X402Error('X402_SETTLE_TIMEOUT', `${err.message}; ${retry}`);
    throw new X402Error('X402_FACILITATOR_ERROR', `${err.message}; ${retry}`);
  }
}

/**
 * A resumed payment's transaction if it landed (confirmed, no error): among the payer's latest transactions, the
 * one whose message is the payment's. null when none is found (then the facilitator is asked to settle again).
 */
async function landedTransaction(deps: X402Deps, payment: FacilitatorPayment): Promise<string | null> {
  try {
    const latest = await deps.chain.getSignaturesForAddress(
      payment.payer as Address,
      { limit: RESUME_SEARCH_LIMIT },
      'confirmed',
    );
    for (const entry of latest) {
      if (entry.err != null) continue;
      const wire = await deps.chain.getTransactionWire(entry.signature, 'confirmed');
      if (wire && wire.meta?.err == null && messageKey(wire.transaction[0]) === payment.paymentKey)
        return entry.signature;
    }
    return null;
  } catch (err) {
    deps.log?.warn({ err }, 'x402 facilitator rail: the chain could not be searched for a resumed settlement');
    return null;
  }
}
