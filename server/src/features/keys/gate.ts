// The key step every keyed request takes (trpc/procedures.ts authenticateApiKey → KeyGate.admit): the secret's
// key and one atomic count against its windows, in the statement its event-loop turn's key steps share on Postgres
// and one group-committed transaction on SQLite (keys/admit.queries.ts; docs/rate-limits.md).
import type { Logger } from '../../platform/log';
import type { KeyAdmission, KeyGate } from '../../trpc/context';
import { rateLimitHeaders } from '../ratelimit/index';
import type { KeysService } from './service';

export interface KeyGateDeps {
  keys: Pick<KeysService, 'admit' | 'touch'>;
}

export async function admitKey(
  deps: KeyGateDeps,
  secret: string,
  cost: number,
  log: Logger,
): Promise<KeyAdmission | null> {
  const admitted = await deps.keys.admit(secret, cost);
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
