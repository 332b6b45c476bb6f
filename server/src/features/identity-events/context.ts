// What the identity procedures share: the caller as the service knows it, and the codes every route may answer.
import { z } from 'zod';
import type { ApiKeyIdentity } from '../../trpc/context';
import type { ErrorRows } from '../../trpc/meta';
import { API_KEY_ERRORS } from '../../trpc/procedures';

/** An identity webhook belongs to the key's account; the tier decides the registry-wide scope. */
export const callerOf = (apiKey: ApiKeyIdentity) => ({ keyId: apiKey.id, account: apiKey.account, tier: apiKey.tier });

/** The codes every identity webhook route may answer (apiKeyProcedure + the stream's switch). */
export const IDENTITY_WEBHOOK_ERRORS = {
  ...API_KEY_ERRORS,
  IDENTITY_WEBHOOKS_DISABLED: 'the deployment turned identity webhooks off',
} as const satisfies ErrorRows;

/** The codes of the routes that address one webhook. */
export const IDENTITY_ID_ERRORS = {
  ...IDENTITY_WEBHOOK_ERRORS,
  BAD_REQUEST: 'malformed id',
  WEBHOOK_NOT_FOUND: 'no such identity webhook on this account',
} as const satisfies ErrorRows;

export const IdParamsSchema = z.object({ id: z.string().min(1).max(128) });
