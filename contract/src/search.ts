// Handle search (docs/search.md): GET /v1/search/handles over the service's index of the registry's handles.
// Pure schemas; the cursor is opaque to clients, its format is the service's business (features/search).
import { z } from 'zod';
import { MAX_HANDLE_LENGTH, normalizeName } from './names';

export const SEARCH_LIMITS = { pageDefault: 20, pageMax: 100, cursorMaxLength: 64 } as const;

export const SEARCH_MODES = ['prefix', 'substring'] as const;

// Control characters can never be part of a name; everything else is searched for literally (`%` and `_` too).
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `q` as the search compares it: normalized like a name (one leading `@` dropped, ASCII letters lowercased). */
export function normalizeSearchQuery(q: string): string {
  return normalizeName(q).name;
}

export const SearchHandlesQuerySchema = z.object({
  q: z
    .string()
    .refine((q) => {
      const normalized = normalizeSearchQuery(q);
      return normalized.length >= 1 && normalized.length <= MAX_HANDLE_LENGTH && !CONTROL.test(normalized);
    }, `must be 1-${MAX_HANDLE_LENGTH} characters after dropping one leading @, without control characters`)
    .meta({ description: 'What to look for; normalized like a name (`@Alice` searches `alice`). Matched literally.' }),
  mode: z
    .enum(SEARCH_MODES)
    .default('prefix')
    .meta({ description: '`prefix` (default): names starting with q; `substring`: names containing q.' }),
  agent: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: agent handles only (handle type 3 or a live `agent.manifest` record).' }),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMITS.pageMax).default(SEARCH_LIMITS.pageDefault),
  cursor: z
    .string()
    .min(1)
    .max(SEARCH_LIMITS.cursorMaxLength)
    .optional()
    .meta({ description: "The previous page's `nextCursor`, unchanged." }),
});
export type SearchHandlesQuery = z.infer<typeof SearchHandlesQuerySchema>;

export const SearchHandleItemSchema = z.object({
  name: z.string(),
  /** The Handle account (PDA). */
  account: z.string(),
  /** The account's owner field as last indexed. */
  owner: z.string(),
  agent: z.boolean(),
  registeredSlot: z.number().int().nonnegative(),
});

export const SearchHandlesResponseSchema = z.object({
  /** In name order (byte-wise). */
  items: z.array(SearchHandleItemSchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type SearchHandlesResponse = z.infer<typeof SearchHandlesResponseSchema>;
