// Usage over time: the shapes of `GET /v1/usage/history` (the portal's charts). Counts per bucket and outcome, for
// the whole account or one of its keys, zero-filled, oldest bucket first. Decisions: docs/usage-history.md.
// Pure: no I/O.

import { z } from 'zod';
import { LimitsSchema } from './keys';

/**
 * How a counted request ended. `served`: 1xx-3xx; `client_error`: 4xx except 429; `rate_limited`: 429;
 * `server_error`: 5xx; `paid`: a keyless request that an x402 payment bought (counted for the payer's wallet).
 */
export const USAGE_OUTCOMES = ['served', 'client_error', 'rate_limited', 'server_error', 'paid'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

/** The chart ranges: each has one bucket size. */
export const USAGE_RANGES = {
  '1h': { bucketMs: 60_000, buckets: 60 },
  '24h': { bucketMs: 3_600_000, buckets: 24 },
  '7d': { bucketMs: 3_600_000, buckets: 168 },
  '30d': { bucketMs: 86_400_000, buckets: 30 },
} as const satisfies Record<string, { bucketMs: number; buckets: number }>;
export type UsageRange = keyof typeof USAGE_RANGES;

export const UsageHistoryQuerySchema = z
  .object({
    range: z
      .enum(Object.keys(USAGE_RANGES) as [UsageRange, ...UsageRange[]])
      .default('24h')
      .meta({ description: '`1h` (minute buckets), `24h` and `7d` (hour buckets), `30d` (UTC-day buckets).' }),
    key_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'One of your keys; absent: the whole account (every key, and x402 calls you paid).' }),
  })
  .strict()
  .meta({ id: 'UsageHistoryQuery' });
export type UsageHistoryQuery = z.infer<typeof UsageHistoryQuerySchema>;

const count = z.number().int().nonnegative();

export const UsageBucketSchema = z
  .object({
    start: z.number().int().nonnegative().meta({ description: 'Bucket start, epoch milliseconds (UTC-aligned).' }),
    served: count,
    client_error: count,
    rate_limited: count,
    server_error: count,
    paid: count,
  })
  .meta({ id: 'UsageBucket' });
export type UsageBucket = z.infer<typeof UsageBucketSchema>;

export const UsageHistoryResponseSchema = z
  .object({
    range: z.enum(Object.keys(USAGE_RANGES) as [UsageRange, ...UsageRange[]]),
    key_id: z.string().nullable().meta({ description: 'The key asked for, or null for the whole account.' }),
    bucket_ms: z.number().int().positive(),
    limits: LimitsSchema.meta({
      description: "The key's tier limits (account: the account's tier). Limits apply to each key separately.",
    }),
    buckets: z
      .array(UsageBucketSchema)
      .meta({ description: 'Every bucket of the range, oldest first, zero-filled; the last one is the current one.' }),
  })
  .meta({ id: 'UsageHistoryResponse' });
export type UsageHistoryResponse = z.infer<typeof UsageHistoryResponseSchema>;

/** Status classes the request log filters by. */
export const REQUEST_LOG_STATUS_CLASSES = ['2xx', '3xx', '4xx', '429', '5xx'] as const;
export type RequestLogStatusClass = (typeof REQUEST_LOG_STATUS_CLASSES)[number];

/** The request log keeps at most this many requests per key (and per paying wallet), newest first. */
export const REQUEST_LOG_PER_KEY = 1_000;
/** …and none older than this. */
export const REQUEST_LOG_RETENTION_MS = 7 * 86_400_000;

export const RequestLogQuerySchema = z
  .object({
    key_id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'One of your keys; absent: every key of the account and the x402 calls you paid.' }),
    status: z
      .enum(REQUEST_LOG_STATUS_CLASSES)
      .optional()
      .meta({ description: 'Only requests answered with a status of this class (`429` is also in `4xx`).' }),
    request_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
      .optional()
      .meta({ description: 'Only the request with this `X-Request-Id`.' }),
    before: z
      .string()
      .regex(/^\d{1,16}:[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
      .optional()
      .meta({ description: 'The `next_before` of the previous page.' }),
    limit: z.coerce.number().int().min(1).max(100).default(50).meta({ description: 'Requests per page, 1–100.' }),
  })
  .strict()
  .meta({ id: 'RequestLogQuery' });
export type RequestLogQuery = z.infer<typeof RequestLogQuerySchema>;

export const RequestLogEntrySchema = z
  .object({
    at: z.number().int().nonnegative().meta({ description: 'When the answer was sent, epoch milliseconds.' }),
    method: z.string(),
    route: z.string().meta({ description: 'The route template, e.g. `/v1/resolve/{name}`; `unmatched` for a 404.' }),
    status: z.number().int(),
    latency_ms: z.number().nonnegative().meta({ description: 'Time to the answer in the service, milliseconds.' }),
    request_id: z.string().meta({ description: 'The `X-Request-Id` the answer carried.' }),
    key_id: z.string().nullable().meta({ description: 'The key; null for a keyless call an x402 payment bought.' }),
    kind: z.enum(['keyed', 'x402']),
  })
  .meta({ id: 'RequestLogEntry' });

export const RequestLogPageSchema = z
  .object({
    requests: z.array(RequestLogEntrySchema).meta({ description: 'Newest first.' }),
    next_before: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `before` for the next (older) page; null at the end.' }),
  })
  .meta({ id: 'RequestLogPage' });
export type RequestLogPage = z.infer<typeof RequestLogPageSchema>;
