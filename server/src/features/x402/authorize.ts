// authorize(request): a 402 challenge (issuing a request-bound reference when a payer is bound), a rejection with its
// code, or a VERIFIED payment (redeem.ts) — nothing is consumed here.
import { RETRY_AFTER_HEADER } from '@sigil/contract/http-headers';
import type { IncomingHttpHeaders } from 'node:http';
import { X402_HEADERS, canonicalRequest, decodeBase64Json, requestHash as hashOfCanonical } from '@sigil/contract/x402';
import { isBase58Address } from '@sigil/contract/names';
import { X402Error } from './challenge';
import type { MeteredRequest, RequestFacts, VerifiedPayment, X402Deps } from './deps';
import { authorizeFacilitator, isFacilitatorPayment, type FacilitatorPayment } from './facilitator-rail';
import { challengeError } from './issue';
import { redeem } from './redeem';
import { StoreDown } from './store-guard';

/** Throws X402Error (402 challenge or rejection, 400, 429, 502, 503) unless the request carries a good payment. */
export async function authorize(
  deps: X402Deps,
  request: MeteredRequest,
): Promise<VerifiedPayment | FacilitatorPayment> {
  const preferred = singleHeader(request.headers[X402_HEADERS.payment.toLowerCase()]);
  const legacy = singleHeader(request.headers[X402_HEADERS.legacyPayment.toLowerCase()]);
  if (preferred !== undefined && legacy !== undefined && preferred.trim() !== legacy.trim()) {
    const why = 'PAYMENT-SIGNATURE and X-PAYMENT are both present and differ: send one';
    throw new X402Error('PAYMENT_HEADER_CONFLICT', why);
  }
  const verdict = deps.limiter.limit(request.clientIp, deps.now());
  if (!verdict.passed) {
    throw new X402Error(
      'RATE_LIMITED',
      `too many unauthenticated payment requests from this address; retry after ${verdict.retryAfterSeconds} s`,
      { headers: { [RETRY_AFTER_HEADER.toLowerCase()]: String(verdict.retryAfterSeconds) } },
    );
  }
  try {
    await deps.network();
  } catch {
    throw new X402Error(
      'X402_UNAVAILABLE',
      'pay-per-call is not available now (the chain RPC did not answer); retry, or send an X-API-Key',
    );
  }

  const facts = requestFacts(deps, request);
  try {
    const header = preferred ?? legacy;
    if (header === undefined) throw await challengeError(deps, facts);
    // A partially signed transaction is the facilitator rail's payment; anything else is judged by the native rail.
    const json = decodeBase64Json(header);
    if (deps.facilitator && isFacilitatorPayment(json)) {
      return await authorizeFacilitator(deps, deps.facilitator, facts, json);
    }
    return await redeem(deps, facts, json);
  } catch (err) {
    if (err instanceof StoreDown) {
      throw new X402Error(
        'METERING_UNAVAILABLE',
        'the payment store failed; retry the identical request (nothing was consumed)',
      );
    }
    throw err;
  }
}

/** The canonical request, its hash, its price and the payer it binds. */
function requestFacts(deps: X402Deps, request: MeteredRequest): RequestFacts {
  const q = request.url.indexOf('?');
  const path = q === -1 ? request.url : request.url.slice(0, q);
  const query = q === -1 ? '' : request.url.slice(q + 1);
  const canonical = canonicalRequest({ method: request.method, path, query, body: request.rawBody });
  return {
    target: request.url,
    canonical,
    requestHash: hashOfCanonical(canonical),
    payer: boundPayer(request.headers, query),
    amount: deps.settings.prices[request.priceClass],
    priceClass: request.priceClass,
  };
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
