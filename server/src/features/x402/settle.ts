// settle(payment): after the handler succeeded, consume payment + reference in one atomic statement and return the
// settlement receipt's headers; a concurrent loser gets 409, a store failure 503 (and the response is withheld).
import { encodeSettlementReceipt, X402_HEADERS } from '@sigil/contract/x402';
import { X402Error } from './challenge';
import type { VerifiedPayment, X402Deps } from './deps';
import { consumePayment, type ConsumeOutcome } from './queries';

/** Consumes the payment; returns the base64 receipt as PAYMENT-RESPONSE and as its legacy X-PAYMENT-RESPONSE. */
export async function settle(deps: X402Deps, payment: VerifiedPayment): Promise<Record<string, string>> {
  let outcome: ConsumeOutcome;
  try {
    outcome = await consumePayment(deps.db, {
      signature: payment.signature,
      reference: payment.reference,
      payer: payment.payer,
      amount: payment.amount.toString(),
      request_hash: payment.requestHash,
      consumed_at: deps.now(),
    });
  } catch (err) {
    deps.log?.error({ err }, 'x402 payment store failed while consuming');
    throw new X402Error(
      'METERING_UNAVAILABLE',
      'the payment store failed; the response is withheld; retry the identical request (nothing was consumed)',
    );
  }
  if (outcome === 'signature-used') {
    throw new X402Error('PAYMENT_ALREADY_USED', 'a concurrent request redeemed this payment first; pay again', {
      status: 409,
    });
  }
  if (outcome === 'reference-used') {
    throw new X402Error(
      'REFERENCE_REUSED',
      'a concurrent request redeemed this reference first; request a fresh challenge',
      { status: 409 },
    );
  }
  const receipt = encodeSettlementReceipt({
    success: true,
    payer: payment.payer,
    transaction: payment.signature,
    network: payment.network,
    amount: payment.amount.toString(),
  });
  return { [X402_HEADERS.response.toLowerCase()]: receipt, [X402_HEADERS.legacyResponse.toLowerCase()]: receipt };
}
