// What the provider's parts share: their dependencies and the provider's paths.
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/index';
import type { IpLimiter } from '../../platform/ip-limiter';
import type { Logger } from '../../platform/log';
import type { OutboundClient } from '../../platform/outbound/client';
import type { ConnectService, SessionService } from '../connect/index';

/** Every provider route lives under /oidc except discovery, which OpenID Connect fixes under the issuer. */
export const OIDC_PREFIX = '/oidc';
export const INTERACTION_PATH = `${OIDC_PREFIX}/interaction`;

/** An authorization code's lifetime. */
export const CODE_TTL_SECONDS = 60;

export interface ProviderDeps {
  db: Kysely<Database>;
  issuer: string;
  connect: ConnectService;
  sessions: SessionService;
  outbound: Pick<OutboundClient, 'post'>;
  log: Logger;
  /** Lifetime of a sign-in (the Connect session's, SIGIL_SESSION_TTL_SECONDS). */
  sessionTtlSeconds: number;
  now: () => number;
  /** The durability barrier a delete or a revocation waits for before it is acted on (adapter.ts, writes.ts). */
  durable: () => Promise<void>;
  /** The sign-in page's challenge and proof steps per client address (interaction.ts). */
  pageLimiter: Pick<IpLimiter, 'limit'>;
}
