// The 402 challenge (body and PAYMENT-REQUIRED header) and the error type that carries it through the HTTP layer.
import { ApiError, V1_ERRORS, type V1ErrorCode } from '@sigil/contract/errors';
import {
  X402_HEADERS,
  X402_MAX_TIMEOUT_SECONDS,
  X402_SCHEME,
  X402_VERSION,
  encodeChallengeHeader,
  redeemMessage,
  type X402AcceptEntry,
  x402ChallengeV1Schema,
  type X402Challenge,
  type X402ChallengeCode,
  type X402ChallengeV1,
} from '@sigil/contract/x402';

/** What one native-rail `accepts` entry is made of. */
export interface ChallengeQuote {
  network: string;
  asset: string;
  payTo: string;
  /** Smallest units. */
  amount: bigint;
  requestHash: string;
  domainTag: string;
  /** The bound payer; absent when the request bound none (then there is no reference either). */
  payer?: string;
  reference?: string;
}

/** The challenge object; with `rejection`, also `error` = `code` and `message`. */
export function buildChallenge(
  quote: ChallengeQuote,
  rejection?: { code: X402ChallengeCode; message: string },
): X402Challenge {
  const extra: X402AcceptEntry['extra'] = { requestHash: quote.requestHash };
  if (quote.payer && quote.reference) {
    extra.feePayer = quote.payer;
    extra.reference = quote.reference;
    extra.redeemMessage = redeemMessage(quote.domainTag, quote.reference);
  }
  const entry: X402AcceptEntry = {
    scheme: X402_SCHEME,
    network: quote.network,
    asset: quote.asset,
    payTo: quote.payTo,
    amount: quote.amount.toString(),
    maxTimeoutSeconds: X402_MAX_TIMEOUT_SECONDS,
    extra,
  };
  const challenge: X402Challenge = { x402Version: X402_VERSION, accepts: [entry] };
  if (rejection) Object.assign(challenge, { error: rejection.code, code: rejection.code, message: rejection.message });
  return challenge;
}

/**
 * An x402 answer that is not a success: a 402 whose body is the challenge (and the same challenge base64 in
 * PAYMENT-REQUIRED), or another status (409, 503, 400, 429, 502) with the usual `{code, message}` body.
 * It is an ApiError, so both faces render it through the normal error path.
 */
export class X402Error extends ApiError {
  override readonly status: number;
  readonly challenge?: X402Challenge;
  /** The 402 body when it differs from the challenge: its version 1 rendering (facilitator rail on). */
  readonly body?: X402ChallengeV1;

  constructor(
    code: V1ErrorCode,
    message: string,
    opts: { status?: number; challenge?: X402Challenge; body?: X402ChallengeV1; headers?: Record<string, string> } = {},
  ) {
    const headers = { ...opts.headers };
    if (opts.challenge) headers[X402_HEADERS.required.toLowerCase()] = encodeChallengeHeader(opts.challenge);
    super(code, message, headers);
    this.name = 'X402Error';
    // Computed, not read back: the redeclared field starts undefined (ES2022 class fields).
    this.status = opts.status ?? (opts.challenge ? 402 : V1_ERRORS[code]);
    this.challenge = opts.challenge;
    this.body = opts.body;
  }

  /** A 402's body is the challenge itself (it carries `code` and `message` on a rejection). */
  override toBody(): { code: V1ErrorCode; message: string } {
    const body = this.body ?? this.challenge;
    return body ? (body as unknown as { code: V1ErrorCode; message: string }) : super.toBody();
  }
}

/** A 402 with a challenge: plain (`rejection` absent) or a rejection with its code; `body` replaces the body. */
export function paymentRequired(challenge: X402Challenge, body?: X402ChallengeV1): X402Error {
  const code = (challenge.code ?? 'PAYER_REQUIRED') as V1ErrorCode;
  const message = challenge.message ?? 'payment required: pay as the challenge says, or send an X-API-Key';
  return new X402Error(code, message, { status: 402, challenge, body: body && x402ChallengeV1Schema.parse(body) });
}
