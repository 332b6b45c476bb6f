// The key step every keyed request takes (trpc/procedures.ts authenticateApiKey → KeyGate.admit): the secret's
// key, then one atomic count against its windows. The whole path from the X-API-Key header to the limiter's SQL is
// procedures.ts → this file → ratelimit/service.ts, or on Postgres admit.queries.ts (docs/rate-limits.md).
import type { Logger } from '../../platform/log';
import type { KeyAdmission, KeyGate } from '../../trpc/context';
import { rateLimitHeaders, type RateLimiter, type RateLimitResult } from '../ratelimit/index';
import type { ApiKey, KeysService } from './service';

export interface KeyGateDeps {
  keys: Pick<KeysService, 'authenticate' | 'touch' | 'admitInOneStatement'>;
  limiter: RateLimiter;
  /**
   * Postgres: the key and its count in one statement (one round trip; admit.queries.ts). SQLite: the lookup, then the
   * limiter — two in-process statements, where a round trip costs microseconds.
   */
  oneStatement: boolean;
}

async function keyAndCount(
  deps: KeyGateDeps,
  secret: string,
  cost: number,
): Promise<{ key: ApiKey; result: RateLimitResult } | null> {
  if (deps.oneStatement) return deps.keys.admitInOneStatement(secret, cost);
  const key = await deps.keys.authenticate(secret);
  if (!key) return null;
  return { key, result: await deps.limiter.limit(key.id, key.tier, cost) };
}

export async function admitKey(
  deps: KeyGateDeps,
  secret: string,
  cost: number,
  log: Logger,
): Promise<KeyAdmission | null> {
  const admitted = await keyAndCount(deps, secret, cost);
  if (!admitted) return null;
  const { key, result } = admitted;
  const admission: KeyAdmission = {
    key: { id: key.id, account: key.account, tier: key.tier },
    rateHeaders: rateLimitHeaders(result),
  };
  if (!result.passed) {
    admission.denied = {
      window: result.deniedBy === 'day' ? 'day' : 'minute',
      retryAfterSeconds: result.retryAfterSeconds ?? 1,
    };
    return admission;
  }
  // Informational and throttled: never delays or fails the request.
  deps.keys.touch(key).catch((err: unknown) => log.warn({ err }, 'could not record key use'));
  return admission;
}

export function createKeyGate(deps: KeyGateDeps): KeyGate {
  return { admit: (secret, cost, log) => admitKey(deps, secret, cost, log) };
}
