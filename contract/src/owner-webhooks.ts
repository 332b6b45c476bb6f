// Webhooks managed with the portal session (docs/webhooks.md "Managed with the session"): the owner of an API key
// manages the webhooks of its account under /v1/keys/{id}/webhooks/{stream}/…, signed in, without the key's secret.
// The shapes here are those routes' own; the X-API-Key routes keep the spec's. Pure: no I/O.
import { z } from 'zod';
import { IdentityWebhookSchema } from './identity-events';
import { WebhookStreamSchema } from './event-catalog';
import { withFieldCodes } from './parse';
import {
  AUTO_PAUSED_PREFIX,
  DELIVERY_ERROR_CLASSES,
  DeliveryRecordSchema,
  SCOPE_CHANGED_PREFIX,
  WEBHOOK_LIMITS,
  WebhookSchema,
} from './webhooks';

/** The paused_reason of a webhook its owner disabled: no deliveries until enabled; `resume` does not lift it. */
export const DISABLED_PREFIX = 'disabled: ';
export const DISABLED_REASON = `${DISABLED_PREFIX}by the owner`;

/**
 * Why a webhook gets deliveries or not, from its status and paused_reason: `disabled` by its owner (enable lifts
 * it), `auto_paused` after 50 dead letters in a row (resume lifts it), `scope_changed` (register again).
 */
export const WEBHOOK_STATES = ['active', 'disabled', 'auto_paused', 'scope_changed'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

export function webhookState(webhook: { status: 'active' | 'paused'; paused_reason: string | null }): WebhookState {
  if (webhook.status === 'active') return 'active';
  const reason = webhook.paused_reason ?? '';
  if (reason.startsWith(DISABLED_PREFIX)) return 'disabled';
  if (reason.startsWith(AUTO_PAUSED_PREFIX)) return 'auto_paused';
  if (reason.startsWith(SCOPE_CHANGED_PREFIX)) return 'scope_changed';
  return 'disabled';
}

const stateFields = { state: z.enum(WEBHOOK_STATES) };

/** A webhook as the session routes show it: its stream's shape, the stream, and its state. */
export const OwnerWebhookSchema = z.discriminatedUnion('stream', [
  WebhookSchema.extend({ stream: z.literal('pay'), ...stateFields }),
  IdentityWebhookSchema.extend({ stream: z.literal('identity'), ...stateFields }),
]);
export type OwnerWebhook = z.infer<typeof OwnerWebhookSchema>;
export const OwnerWebhookListSchema = z.object({ webhooks: z.array(OwnerWebhookSchema) });

const id = z.string().min(1).max(128);

/** `/v1/keys/{id}/webhooks/{stream}`: one of the caller's keys and a stream. */
export const OwnerStreamParamsSchema = z.object({ id, stream: WebhookStreamSchema });
/** `/v1/keys/{id}/webhooks/{stream}/{webhookId}`. */
export const OwnerWebhookParamsSchema = OwnerStreamParamsSchema.extend({ webhookId: id });
/** `…/{webhookId}/deliveries/{deliveryId}`. */
export const OwnerDeliveryParamsSchema = OwnerWebhookParamsSchema.extend({ deliveryId: id });

const FIELD_CODES = {
  url: 'INVALID_URL',
  event_types: 'INVALID_EVENT_TYPES',
  nonce: 'CHALLENGE_INVALID',
  signature: 'SIGNATURE_INVALID',
  type: 'INVALID_EVENT_TYPES',
} as const;

/**
 * PATCH …/{webhookId}: any of description (null or blank clears it), event_types (the stream's grammar) and url.
 * A pay webhook's new url is proven like a registration: the nonce of POST …/{webhookId}/challenge for that url
 * and the wallet's signature of its message.
 */
export const OwnerWebhookPatchSchema = withFieldCodes(
  z
    .object({
      description: z.string().max(WEBHOOK_LIMITS.maxDescriptionLength).nullable().optional(),
      event_types: z.array(z.string().max(64)).max(WEBHOOK_LIMITS.maxEventTypeEntries).optional(),
      url: z.string().min(1).max(WEBHOOK_LIMITS.maxUrlLength).optional(),
      nonce: z.string().min(1).max(128).optional(),
      signature: z.string().min(1).max(128).optional(),
    })
    .refine((p) => !p.description || !/[\u0000-\u001f\u007f]/.test(p.description), {
      message: 'description: control characters are not allowed',
    }),
  { fields: FIELD_CODES },
);
export type OwnerWebhookPatch = z.infer<typeof OwnerWebhookPatchSchema>;

/** POST …/{webhookId}/challenge (pay): the new url, and optionally which wallet will sign. */
export const UrlChallengeRequestSchema = withFieldCodes(
  z.object({
    url: z.string().min(1).max(WEBHOOK_LIMITS.maxUrlLength),
    wallet: z.string().min(1).max(64).optional(),
  }),
  { fields: { url: 'INVALID_URL', wallet: 'INVALID_WALLET' } },
);

/** POST …/{webhookId}/test: the event type of the test event (one of the stream's types). */
export const OwnerTestEventRequestSchema = withFieldCodes(z.object({ type: z.string().min(1).max(64) }), {
  fields: FIELD_CODES,
});

const limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(WEBHOOK_LIMITS.deliveriesPageMax)
  .default(WEBHOOK_LIMITS.deliveriesPageDefault);
/** An opaque position in a newest-first list: the next page's `cursor`. */
const cursor = z.string().min(1).max(200);

/** GET …/{webhookId}/deliveries: newest first, filtered by status and event type, paged by cursor. */
export const DeliveryPageQuerySchema = z.object({
  status: z.enum(['pending', 'delivered', 'dead']).optional(),
  event_type: z.string().min(1).max(64).optional(),
  limit,
  cursor: cursor.optional(),
});
export type DeliveryPageQuery = z.infer<typeof DeliveryPageQuerySchema>;
export const DeliveryPageSchema = z.object({
  deliveries: z.array(DeliveryRecordSchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
});

/** One attempt to send a delivery. */
export const DeliveryAttemptSchema = z.object({
  /** 1-based, counted from the delivery's last (re)queueing. */
  attempt: z.number().int().min(1),
  /** Unix milliseconds when the request started. */
  attempted_at: z.number().int(),
  /** The receiver's HTTP status, or null when none answered. */
  status: z.number().int().nullable(),
  /** Null on a 2xx; else why it failed. */
  error: z.enum(DELIVERY_ERROR_CLASSES).nullable(),
  /** Until the response headers, or the failure. */
  duration_ms: z.number().int().min(0),
  /** The request headers sent (signatures are HMACs: no secret is in them). */
  headers: z.record(z.string(), z.string()),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const AttemptPageQuerySchema = z.object({ limit, cursor: cursor.optional() });
export const AttemptPageSchema = z.object({
  /** Newest first. */
  attempts: z.array(DeliveryAttemptSchema),
  next_cursor: z.string().nullable(),
});

/** GET …/deliveries/{deliveryId}: the record, the exact body every attempt sent, the newest attempt's headers. */
export const DeliveryDetailSchema = z.object({
  delivery: DeliveryRecordSchema,
  /** The request body, byte for byte as sent (JSON text). */
  body: z.string(),
  /** The headers of the newest attempt; null before the first. */
  headers: z.record(z.string(), z.string()).nullable(),
});
export type DeliveryDetail = z.infer<typeof DeliveryDetailSchema>;
