// x402 pay-per-call for keyless requests on metered procedures (docs/x402.md):
//   authorize(request) → a 402 challenge (issuing a request-bound reference when a payer is bound), a rejection
//                        with its code, or a VERIFIED payment — nothing is consumed yet;
//   settle(payment)    → after the handler succeeded: consume payment + reference in one atomic statement and
//                        return the settlement receipt; a concurrent loser gets 409, a store failure 503.
// A handler that fails, a bad payerSig, a payment not yet finalized: nothing is consumed; the payment can be retried.
//
// Each verb lives in its own file (authorize.ts with issue.ts and redeem.ts, settle.ts) and takes the resolved
// X402Deps first; this factory only applies defaults and assembles.
import type { Kysely } from 'kysely';
import type { ChainReader } from '../../platform/chain/types';
import type { X402Settings } from '../../platform/config';
import type { Database } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import { authorize } from './authorize';
import { cachedNetwork, cachedNonceSecret } from './cached-reads';
import type { MeteredRequest, VerifiedPayment, X402Deps } from './deps';
import { IpLimiter } from '../../platform/ip-limiter';
import { createFacilitatorClient } from './facilitator-client';
import { cachedFeePayers } from './facilitator-quote';
import { settleFacilitator, type FacilitatorPayment } from './facilitator-rail';
import { settle } from './settle';

export type { MeteredRequest, VerifiedPayment } from './deps';

export interface X402Service {
  readonly settings: X402Settings;
  /** The CAIP-2 id of the chain the RPC serves (from its genesis hash, cached). Throws ChainError. */
  network(): Promise<string>;
  /** Throws X402Error (402 challenge or rejection, 400, 429, 502, 503) unless the request carries a good payment. */
  authorize(request: MeteredRequest): Promise<VerifiedPayment | FacilitatorPayment>;
  /**
   * After the handler succeeded: consumes a native payment, or settles a facilitator-rail one (the response waits
   * for it); returns the receipt's response headers (PAYMENT-RESPONSE).
   */
  settle(payment: VerifiedPayment | FacilitatorPayment): Promise<Record<string, string>>;
  payerOf(payment: VerifiedPayment | FacilitatorPayment): string;
}

export function createX402Service(options: {
  settings: X402Settings;
  chain: ChainReader;
  db: Kysely<Database>;
  log?: Logger;
  now?: () => number;
}): X402Service {
  const { settings, chain, db } = options;
  // Read through Date.now at each call (not a captured reference), so a test can move the clock.
  const now = options.now ?? (() => Date.now());
  const deps: X402Deps = {
    settings,
    chain,
    db,
    log: options.log,
    now,
    limiter: new IpLimiter(settings.ipLimitPerMinute),
    network: cachedNetwork(chain),
    nonceSecret: cachedNonceSecret(db, settings, now),
  };
  if (settings.facilitator) {
    const client = createFacilitatorClient(settings.facilitator);
    deps.facilitator = { client, publicUrl: settings.facilitator.publicUrl, feePayer: cachedFeePayers(client) };
  }
  const rail = deps.facilitator;
  return {
    settings,
    network: deps.network,
    authorize: (request) => authorize(deps, request),
    settle: (payment) =>
      'rail' in payment && rail ? settleFacilitator(deps, rail, payment) : settle(deps, payment as VerifiedPayment),
    payerOf: (payment) => payment.payer,
  };
}
