// The error catalog: every error the service can answer, with its HTTP status, in one table.
// Public (keyless) routes answer `{error, input?}` with the literal `error` text below;
// `/v1` routes answer `{code, message}` with the code below (the x402 402 challenge is the exception).

/** Public-route errors: key → [HTTP status, literal `error` text from the spec]. */
export const PUBLIC_ERRORS = {
  AMBIGUOUS: [409, 'ambiguous: both a handle and a domain shape'],
  INVALID_HANDLE: [400, 'invalid handle'],
  INVALID_DOMAIN: [400, 'invalid domain'],
  HANDLE_NOT_REGISTERED: [404, 'handle not registered'],
  DOMAIN_NOT_REGISTERED: [404, 'domain not registered'],
  MALFORMED_ACCOUNT: [502, 'malformed account'],
  INVALID_ADDRESS: [400, 'invalid address'],
  NO_PRIMARY_SET: [404, 'no primary set'],
  MALFORMED_HANDLE: [502, 'malformed handle'],
  NOT_FOUND: [404, 'not found'],
  METHOD_NOT_ALLOWED: [405, 'method not allowed'],
  RPC_UNREACHABLE: [502, 'rpc unreachable'],
  BAD_REQUEST: [400, 'bad request'],
  // POST /privy/wallet (docs/privy.md): one text per reason a Privy identity token is refused.
  NOT_CONFIGURED: [501, 'not configured'],
  PRIVY_TOKEN_INVALID: [401, 'invalid privy token'],
  PRIVY_TOKEN_EXPIRED: [401, 'privy token expired'],
  PRIVY_WRONG_AUDIENCE: [401, 'privy token for another app'],
  PRIVY_WRONG_ISSUER: [401, 'privy token not issued by privy.io'],
  PRIVY_NO_SOLANA_WALLET: [422, 'no solana wallet linked'],
  RATE_LIMITED: [429, 'rate limited'],
  // POST /gift/notify and GET /gift/{voucher} (docs/gifts.md)
  INVALID_TX_SIGNATURE: [400, 'invalid transaction signature'],
  TX_NOT_FOUND: [404, 'transaction not found'],
  TX_NOT_FINALIZED: [409, 'transaction not finalized'],
  TX_FAILED: [422, 'transaction failed'],
  NOT_A_GIFT: [422, 'not a gift transaction'],
  GIFT_NOT_FOUND: [404, 'gift not found'],
  // not in the spec's table: transport-level refusals, so public routes never answer a non-catalog body
  PAYLOAD_TOO_LARGE: [413, 'payload too large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'unsupported media type'],
  REQUEST_TIMEOUT: [408, 'request timeout'],
  EXPECTATION_FAILED: [417, 'expectation failed'],
  HEADERS_TOO_LARGE: [431, 'request header fields too large'],
  INTERNAL: [500, 'internal error'],
} as const satisfies Record<string, readonly [number, string]>;

export type PublicErrorKey = keyof typeof PUBLIC_ERRORS;

/** `/v1` error codes → HTTP status. Codes are the spec's; statuses the spec leaves open are ours (docs/http.md). */
export const V1_ERRORS = {
  // generic
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_TIMEOUT: 408,
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  RPC_ERROR: 502,
  // auth, keys, limits
  API_KEY_REQUIRED: 401,
  INVALID_KEY: 401,
  INVALID_SESSION: 401,
  RATE_LIMITED: 429,
  KEY_NOT_FOUND: 404,
  // connect
  CONTROL_PROOF_INVALID: 401,
  CHALLENGE_AUDIENCE_MISMATCH: 401,
  CHALLENGE_EXPIRED: 401,
  CHALLENGE_NOT_FOUND: 401,
  SIGNIN_PATH_HANDLE_UNSUPPORTED: 400,
  INVALID_CHALLENGE_REQUEST: 400,
  HANDLE_NOT_REGISTERED: 404,
  INVALID_HANDLE: 400,
  INVALID_WALLET: 400,
  INVALID_SIGNATURE_ENCODING: 400,
  // MCP prepare_register: the handle is registered, so a register transaction would fail on chain; answered before
  // one is built (docs/mcp-prepare.md).
  HANDLE_TAKEN: 409,
  // MCP prepare_* tools: the prepared transaction, simulated, fails in a program; the message names the error from
  // the program-error catalog (contract/src/program-errors.ts) instead of handing out a transaction that cannot land.
  PROGRAM_ERROR: 422,
  // universal resolver and agents (native names answer the public face's conditions with these codes:
  // AMBIGUOUS, INVALID_HANDLE, INVALID_DOMAIN, HANDLE_NOT_REGISTERED, DOMAIN_NOT_REGISTERED)
  AMBIGUOUS: 409,
  INVALID_DOMAIN: 400,
  DOMAIN_NOT_REGISTERED: 404,
  INVALID_NAME: 400,
  NAME_NOT_FOUND: 404,
  NO_RECORD_FOR_CHAIN: 404,
  NOT_CONFIGURED: 501,
  NOT_AN_AGENT: 404,
  NO_MANIFEST: 404,
  MANIFEST_UNREACHABLE: 424,
  INVALID_MANIFEST: 422,
  // pay webhooks
  INVALID_SCOPE: 400,
  INVALID_URL: 400,
  INVALID_EVENT_TYPES: 400,
  WALLET_MISMATCH: 403,
  CHALLENGE_INVALID: 400,
  SIGNATURE_INVALID: 401,
  NOT_CONTROLLER: 403,
  CONTROL_UNPROVEN: 403,
  URL_REJECTED: 400,
  LIMIT_REACHED: 409,
  WEBHOOK_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  NOT_RESUMABLE: 409,
  NOT_DISABLED: 409,
  PAY_WEBHOOKS_DISABLED: 503,
  // identity events
  PARTNER_TIER_REQUIRED: 403,
  IDENTITY_WEBHOOKS_DISABLED: 503,
  // the identity log's cursor: beyond its latest sequence, or behind what retention kept (docs/identity-events.md)
  CURSOR_AHEAD: 409,
  CURSOR_EXPIRED: 410,
  // x402 (a 402 answer carries a fresh challenge; see contract/src/x402.ts)
  PAYER_REQUIRED: 402,
  PAYMENT_PAYLOAD_INVALID: 402,
  REDEEM_SIGNATURE_REQUIRED: 402,
  REDEEM_SIGNATURE_INVALID: 402,
  PAYMENT_NETWORK_UNSUPPORTED: 402,
  PAYMENT_NOT_FINALIZED: 402,
  PAYMENT_ALREADY_USED: 402,
  PAYMENT_FAILED: 402,
  PAYMENT_STALE: 402,
  PAYMENT_WRONG_ASSET: 402,
  PAYMENT_WRONG_DESTINATION: 402,
  PAYMENT_AMOUNT_TOO_LOW: 402,
  PAYER_MISMATCH: 402,
  PAYMENT_LAYOUT_INVALID: 402,
  REFERENCE_MISSING: 402,
  REFERENCE_MISMATCH: 402,
  REFERENCE_REUSED: 402,
  REFERENCE_EXPIRED: 402,
  MULTISIG_AUTHORITY_UNSUPPORTED: 402,
  PAYMENT_UNVERIFIABLE: 402,
  VERIFIER_UNAVAILABLE: 402,
  PAYMENT_INVALID: 402,
  METERING_UNAVAILABLE: 503,
  PAYMENT_HEADER_CONFLICT: 400,
  X402_UNAVAILABLE: 502,
  // gate (docs/gate.md)
  INVALID_POLICY: 400,
  POLICY_TOO_LARGE: 400,
  POLICY_TOO_DEEP: 400,
  INVALID_SUBJECT: 400,
  POLICY_NOT_FOUND: 404,
  PRECONDITION_FAILED: 412,
  PRECONDITION_REQUIRED: 428,
  // OpenID Connect clients (docs/oidc.md)
  OIDC_CLIENT_NOT_FOUND: 404,
  // x402 facilitator rail only
  SETTLEMENT_FAILED: 402,
  X402_SETTLE_TIMEOUT: 502,
  X402_FACILITATOR_ERROR: 502,
} as const satisfies Record<string, number>;

export type V1ErrorCode = keyof typeof V1_ERRORS;

/** A failure on a public route; the HTTP layer renders `{error, input?}`. */
export class PublicError extends Error {
  readonly key: PublicErrorKey;
  readonly status: number;
  readonly input?: string;
  constructor(key: PublicErrorKey, input?: string) {
    super(PUBLIC_ERRORS[key][1]);
    this.name = 'PublicError';
    this.key = key;
    this.status = PUBLIC_ERRORS[key][0];
    this.input = input;
  }
  toBody(): { error: string; input?: string } {
    return this.input === undefined ? { error: this.message } : { error: this.message, input: this.input };
  }
}

/** A failure on a `/v1` route; the HTTP layer renders `{code, message}` with the catalog's status. */
export class ApiError extends Error {
  readonly code: V1ErrorCode;
  readonly status: number;
  /** Extra response headers (e.g. Retry-After on RATE_LIMITED). */
  readonly headers?: Record<string, string>;
  constructor(code: V1ErrorCode, message: string, headers?: Record<string, string>) {
    // A 4xx is an answer the caller gets, not a fault of ours: no stack is captured for it. tRPC copies a thrown
    // error's stack onto its wrapper, which formats it (with source maps on, ~40 µs per refusal measured), and
    // capturing it cost ~13 µs more; neither is read anywhere for a 4xx. A 5xx keeps its stack.
    const status = V1_ERRORS[code];
    const answer = status < 500;
    const limit = Error.stackTraceLimit;
    if (answer) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      if (answer) Error.stackTraceLimit = limit;
    }
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.headers = headers;
  }
  toBody(): { code: V1ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}
