// What the pay webhook procedures share: the caller as the service knows it, and the codes every route may answer.
import { z } from 'zod';
import type { ApiKeyIdentity } from '../../trpc/context';
import type { ErrorRows } from '../../trpc/meta';
import { API_KEY_ERRORS } from '../../trpc/procedures';
import type { WebhookCaller } from './service';

/** A webhook belongs to the key's account; the key id is what the challenge message names. */
export const callerOf = (apiKey: ApiKeyIdentity): WebhookCaller => ({ keyId: apiKey.id, account: apiKey.account });

/** The codes every webhook route may answer (apiKeyProcedure + the feature switch). */
export const WEBHOOK_ERRORS = {
  ...API_KEY_ERRORS,
  PAY_WEBHOOKS_DISABLED: 'the deployment turned pay webhooks off',
} as const satisfies ErrorRows;

/** The codes of the routes that address one webhook. */
export const WEBHOOK_ID_ERRORS = {
  ...WEBHOOK_ERRORS,
  BAD_REQUEST: 'malformed id',
  WEBHOOK_NOT_FOUND: 'no such webhook on this account',
} as const satisfies ErrorRows;

/** `{id}` of the routes under /v1/pay/webhooks/{id}: any string that could be an id; an unknown one is WEBHOOK_NOT_FOUND. */
export const WebhookIdParamsSchema = z.object({ id: z.string().min(1).max(128) });
