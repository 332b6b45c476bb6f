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
