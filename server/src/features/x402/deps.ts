// What the x402 verbs share: the request as x402 sees it, a verified payment, the facts a request is judged by,
// and the service's dependencies with their defaults applied (service.ts resolves them once).
import type { MeteredRequest } from '../../trpc/context';
import type { Kysely } from 'kysely';
import type { ChainReader } from '../../platform/chain/types';
import type { PriceClass, X402Settings } from '../../platform/config';
import type { Database } from '../../platform/db/index';
import type { Logger } from '../../platform/log';
import type { FacilitatorClient } from './facilitator-client';
import type { IpLimiter } from '../../platform/ip-limiter';

/** What x402 needs to know about a keyless request: declared by the meter interface it implements. */
export type { MeteredRequest };

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

/** The request as priced and hashed, and the payer it bound (if any). */
export interface RequestFacts {
  /** The raw request target (path and query as received). */
  target: string;
  canonical: string;
  requestHash: string;
  payer?: string;
  amount: bigint;
  priceClass: PriceClass;
}

export interface X402Deps {
  settings: X402Settings;
  chain: ChainReader;
  db: Kysely<Database>;
  log?: Logger;
  now: () => number;
  /** Unauthenticated payment requests per client address. */
  limiter: IpLimiter;
  /** The CAIP-2 id of the chain the RPC serves (cached once read; a failed read is not). */
  network: () => Promise<string>;
  /** The HMAC key of reference nonces (configured, or generated once and kept in kv). */
  nonceSecret: () => Promise<string>;
  /** The facilitator rail, when configured (SIGIL_X402_FACILITATOR_URL). */
  facilitator?: FacilitatorRail;
}

/** What the rail needs beyond the native rail's dependencies. */
export interface FacilitatorRail {
  client: FacilitatorClient;
  /** The service's public base URL: the paid resource is this plus the request target. */
  publicUrl: string;
  /** The facilitator's fee payer for (version, network), from /supported (cached once read). */
  feePayer(x402Version: number, network: string): Promise<string>;
}
