// Webhooks managed with the portal session (docs/webhooks.md "Managed with the session"): the signed-in owner acts
// on the webhooks of the account behind one of its active keys, through that key (the key the challenge messages
// name and new webhooks are registered under), without the key's secret. Everything else is the streams' own
// verbs, reached through the services the composition root gives the procedures.
import { ApiError } from '@sigil/contract/errors';
import type { KeyTier } from '@sigil/contract/keys';
import type { KeysService } from '../keys/index';

/** The caller as the webhook streams know it, from a session and one of its keys. */
export interface OwnerCaller {
  keyId: string;
  account: string;
  tier: KeyTier;
}

export interface OwnerWebhooksService {
  /** The session's active key `keyId` as a webhook caller; KEY_NOT_FOUND for a revoked key or another account's. */
  caller(account: string, keyId: string): Promise<OwnerCaller>;
}

export function createOwnerWebhooksService(deps: { keys: Pick<KeysService, 'own'> }): OwnerWebhooksService {
  return {
    async caller(account: string, keyId: string): Promise<OwnerCaller> {
      const key = await deps.keys.own(account, keyId);
      if (!key || key.revoked_at !== null)
        throw new ApiError('KEY_NOT_FOUND', `no active key ${keyId} in your account`);
      return { keyId: key.id, account: key.account, tier: key.tier };
    },
  };
}
