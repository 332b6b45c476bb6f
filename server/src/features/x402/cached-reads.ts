// Reads x402 makes once per process: the chain's network id and the nonce secret. A failed read is not cached:
// the next request asks again.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { caip2FromGenesisHash } from '@sigil/contract/x402';
import type { ChainReader } from '../../platform/chain/types';
import type { X402Settings } from '../../platform/config';
import type { Database } from '../../platform/db/index';
import { storedNonceSecret } from './queries';

/** The CAIP-2 id of the chain the RPC serves (from its genesis hash). Throws ChainError. */
export function cachedNetwork(chain: ChainReader): () => Promise<string> {
  let networkPromise: Promise<string> | undefined;
  return () => {
    if (!networkPromise) {
      networkPromise = chain.getGenesisHash().then(caip2FromGenesisHash);
      networkPromise.catch(() => (networkPromise = undefined));
    }
    return networkPromise;
  };
}

/** The configured secret, or one generated once and kept in kv so replicas and restarts agree. */
export function cachedNonceSecret(
  db: Kysely<Database>,
  settings: X402Settings,
  now: () => number,
): () => Promise<string> {
  let secretPromise: Promise<string> | undefined;
  return () => {
    if (settings.nonceSecret) return Promise.resolve(settings.nonceSecret);
    if (secretPromise) return secretPromise;
    secretPromise = storedNonceSecret(db, randomBytes(32).toString('base64url'), now());
    secretPromise.catch(() => (secretPromise = undefined));
    return secretPromise;
  };
}
