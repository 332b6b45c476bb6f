// API keys, tiers, rate limits and usage: the shapes of the portal's key-management endpoints
// (`POST /v1/keys`, `GET /v1/keys`, `DELETE /v1/keys/:id`, `GET /v1/usage`), which the spec leaves open.
// Decisions (docs/keys.md, docs/rate-limits.md):
// - snake_case fields, like the rest of /v1;
// - every time is an integer epoch in MILLISECONDS (`created_at`, `revoked_at`, `last_used_at`, `reset`);
// - `usage` is the number of requests (cost units) counted in the current minute window and the current UTC day.
// Pure: no I/O.

import { z } from 'zod';

// ---------------------------------------------------------------------------------------------------------
// Tiers and limits

export const KEY_TIERS = ['free', 'partner'] as const;
export const KeyTierSchema = z
  .enum(KEY_TIERS)
  .meta({ description: '`free` for every new key; `partner` is set by an operator after an agreement.' });
export type KeyTier = z.infer<typeof KeyTierSchema>;

/** Per key, shared across all /v1 endpoints (spec: Limits). */
export const TIER_LIMITS = {
  free: { minute: 300, day: 15_000 },
  partner: { minute: 1_000, day: 100_000 },
} as const satisfies Record<KeyTier, { minute: number; day: number }>;

/** Active (unrevoked) keys one account may hold. Without a cap, more keys would simply mean more quota. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 10;

// ---------------------------------------------------------------------------------------------------------
// Ids and secrets

/** `key_` + 22 base58 characters (48-bit ms timestamp + 80 random bits, fixed width: ids sort by creation time). */
export const KEY_ID_PATTERN = /^key_[1-9A-HJ-NP-Za-km-z]{22}$/;
/** Every secret starts with this, so it is recognisable in logs, config and secret scanners. */
export const SECRET_PREFIX = 'sigil_sk_';
/** How many characters of the secret are kept for display (`sigil_sk_` + 4). Reveals 4 of ~44 random characters. */
export const SECRET_DISPLAY_LENGTH = SECRET_PREFIX.length + 4;

const epochMs = z.number().int().nonnegative();
const count = z.number().int().nonnegative();

export const WindowCountsSchema = z
  .object({
    minute: count.meta({ description: 'Requests counted in the current minute window (starts on the UTC minute).' }),
    day: count.meta({ description: 'Requests counted in the current UTC day.' }),
  })
  .meta({ id: 'WindowCounts' });
export type WindowCounts = z.infer<typeof WindowCountsSchema>;

export const LimitsSchema = z
  .object({
    minute: count.meta({ description: 'Requests allowed per minute window.' }),
    day: count.meta({ description: 'Requests allowed per UTC day.' }),
  })
  .meta({ id: 'RateLimits' });

// ---------------------------------------------------------------------------------------------------------
// Key objects

/** A key as its owner sees it. Never carries the secret or its hash; `prefix` is for recognising it. */
export const ApiKeySchema = z
  .object({
    id: z.string().meta({
      description: 'Key id; also the Connect audience of sessions issued through this key.',
      example: 'key_1C4mDxkUA8gUQ4bJHwXqVn',
    }),
    name: z.string().nullable().meta({ description: 'Owner-chosen label, or null.' }),
    tier: KeyTierSchema,
    prefix: z
      .string()
      .meta({ description: 'The first characters of the secret, for display.', example: 'sigil_sk_4Fz9' }),
    created_at: epochMs.meta({ description: 'Epoch milliseconds.' }),
    revoked_at: epochMs
      .nullable()
      .meta({ description: 'Epoch milliseconds; null while active. A revoked key answers 401 INVALID_KEY.' }),
    last_used_at: epochMs
      .nullable()
      .meta({ description: 'Epoch milliseconds, updated at most every 10 s; null if never used.' }),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ApiKeySchema>;

export const ApiKeyWithUsageSchema = ApiKeySchema.extend({ usage: WindowCountsSchema }).meta({ id: 'ApiKeyWithUsage' });

// ---------------------------------------------------------------------------------------------------------
// POST /v1/keys

export const CreateKeyRequestSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'Optional label, 1-64 characters.', example: 'production backend' }),
  })
  .strict()
  .meta({ id: 'CreateKeyRequest' });

export const CreateKeyResponseSchema = z
  .object({
    key: ApiKeySchema,
    secret: z
      .string()
      .meta({ description: 'The secret, shown ONCE: only its SHA-256 is stored. Send it as `X-API-Key`.' }),
  })
  .meta({ id: 'CreateKeyResponse' });

// ---------------------------------------------------------------------------------------------------------
// GET /v1/keys

export const ListKeysResponseSchema = z
  .object({
    keys: z
      .array(ApiKeyWithUsageSchema)
      .meta({ description: "The caller's keys, revoked ones included, newest first." }),
  })
  .meta({ id: 'ListKeysResponse' });
export type ListKeysResponse = z.infer<typeof ListKeysResponseSchema>;

// ---------------------------------------------------------------------------------------------------------
// PATCH /v1/keys/:id

/** Rename: a new label, or null to clear it. Revoked keys may be renamed too (the label is only the owner's note). */
export const RenameKeyRequestSchema = z
  .object({
    id: z.string().min(1).max(64),
    name: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .nullable()
      .meta({ description: 'The new label, 1-64 characters, or null to clear it.', example: 'staging' }),
  })
  .strict()
  .meta({ id: 'RenameKeyRequest' });

export const RenameKeyResponseSchema = z.object({ key: ApiKeySchema }).meta({ id: 'RenameKeyResponse' });

// ---------------------------------------------------------------------------------------------------------
// DELETE /v1/keys/:id

export const RevokeKeyParamsSchema = z.object({ id: z.string().min(1).max(64) }).meta({ id: 'RevokeKeyParams' });

/** Revoking is idempotent: revoking an already revoked own key answers the same object (first revocation time). */
export const RevokeKeyResponseSchema = z.object({ key: ApiKeySchema }).meta({ id: 'RevokeKeyResponse' });

// ---------------------------------------------------------------------------------------------------------
// GET /v1/usage

export const KeyUsageSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    tier: KeyTierSchema,
    revoked_at: epochMs.nullable(),
    limits: LimitsSchema,
    usage: WindowCountsSchema,
  })
  .meta({ id: 'KeyUsage' });

export const UsageResponseSchema = z
  .object({
    tier: KeyTierSchema.meta({ description: '`partner` if any active key of the account is partner, else `free`.' }),
    limits: LimitsSchema.meta({ description: 'Limits of `tier`. Limits apply to each key separately.' }),
    usage: WindowCountsSchema.meta({ description: "Sum over the account's keys for the current minute and UTC day." }),
    reset: z
      .object({ minute: epochMs, day: epochMs })
      .meta({ description: 'When the current windows end (epoch ms): the next UTC minute and the next UTC midnight.' }),
    keys: z.array(KeyUsageSchema),
  })
  .meta({ id: 'UsageResponse' });
export type UsageResponse = z.infer<typeof UsageResponseSchema>;
