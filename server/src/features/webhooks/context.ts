// What the pay webhook procedures share: the caller as the service knows it, and the documented error rows.
import { z } from 'zod';
import type { ApiKeyIdentity } from '../../trpc/context';
import type { WebhookCaller } from './service';

/** A webhook belongs to the key's account; the key id is what the challenge message names. */
export const callerOf = (apiKey: ApiKeyIdentity): WebhookCaller => ({ keyId: apiKey.id, account: apiKey.account });

/** Error rows every webhook route documents (apiKeyProcedure + the feature switch). */
export const WEBHOOK_AUTH_ERRORS = {
  401: 'API_KEY_REQUIRED / INVALID_KEY',
  429: 'RATE_LIMITED (Retry-After)',
  503: 'PAY_WEBHOOKS_DISABLED (the deployment turned the feature off)',
} as const;

/** Error rows of the routes that address one webhook. */
export const WEBHOOK_ID_ERRORS = { ...WEBHOOK_AUTH_ERRORS, 400: 'BAD_REQUEST (malformed id)', 404: 'WEBHOOK_NOT_FOUND (no such webhook on this account)' } as const;

/** `{id}` of the routes under /v1/pay/webhooks/{id}: any string that could be an id; an unknown one is WEBHOOK_NOT_FOUND. */
export const WebhookIdParamsSchema = z.object({ id: z.string().min(1).max(128) });
