// The spec's retryable conditions, in one place for the two parts of the SDK that act on them: the client's retry
// policy (client.ts) and the x402 payer (x402.ts), which keeps a payment the service did not consume so that the
// repeated request redeems it instead of paying again. No imports: the light client and the payer both bundle it.

/** x402 codes the spec calls retryable: the identical request, repeated, may succeed; the payment was not consumed. */
export const RETRYABLE_X402_CODES: ReadonlySet<string> = new Set([
  'PAYMENT_NOT_FINALIZED',
  'VERIFIER_UNAVAILABLE',
  'METERING_UNAVAILABLE',
]);

/** The request was sent and nothing came back; other status-0 failures (a request not sent) gain nothing by a repeat. */
const NO_ANSWER: ReadonlySet<string> = new Set(['NETWORK_ERROR', 'TIMEOUT']);

/**
 * The spec's retryable conditions, nothing else: a transport failure (status 502, whatever its code: RPC or chain
 * unreachable, malformed account, X402_UNAVAILABLE), the three retryable x402 codes, and, for GET only, a request that
 * got no answer (network error or timeout) — a POST that got no answer may have been applied, so it is not repeated.
 */
export function retryable(failure: { status: number; code: string }, method: string): boolean {
  if (failure.status === 502 || RETRYABLE_X402_CODES.has(failure.code)) return true;
  return NO_ANSWER.has(failure.code) && method === 'GET';
}
