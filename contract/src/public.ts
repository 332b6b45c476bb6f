// Schemas of the keyless public face (resolve, reverse, health, version) and the ungated /v1 health and
// namespace list, plus both error bodies. Response objects are strict: a field the spec does not list is a bug.
// `.meta()` is zod v4's native metadata; zod-openapi 5 renders `description`/`example` and turns `id` into a
// reusable component, with no import of zod-openapi needed here.

import { z } from 'zod';
import { PUBLIC_ERRORS, V1_ERRORS, type V1ErrorCode } from './errors';
import { isBase58Address } from './names';

/** A base58 32-byte address (wallet, program, mint or account). */
export const AddressSchema = z
  .string()
  .refine(isBase58Address, { message: 'not a base58 32-byte address' })
  .meta({ description: 'Base58-encoded 32-byte address.', example: 'So11111111111111111111111111111111111111112' });

// ---------- inputs (path parameters) ----------
// Plain strings on purpose: grammar failures must answer the spec's `{error, input}` bodies (invalid handle,
// invalid domain, invalid address), which the service produces; a zod refusal here could only say "bad request".
// Not strict, so an unrelated query parameter does not turn a valid lookup into a 400.

export const ResolveInputSchema = z.object({
  name: z.string().meta({
    description: 'Handle or domain. Optional leading `@`, case-insensitive; see docs/names.md.',
    example: '@alice',
  }),
});

export const ReverseInputSchema = z.object({
  address: z
    .string()
    .meta({ description: 'Wallet address, base58.', example: 'So11111111111111111111111111111111111111112' }),
});

// ---------- resolve / reverse ----------

export const VerificationSchema = z.enum(['owner', 'nft-holder']).meta({
  description:
    '`owner`: the handle is not tokenized and `owner` controls the registry account. `nft-holder`: the handle is ' +
    'tokenized; authority follows the NFT holder and `owner` is informational only.',
});

export const ResolutionSchema = z
  .strictObject({
    input: z.string().meta({ description: 'The raw value passed.', example: '@Alice' }),
    name: z.string().meta({ description: 'Normalized name, no `@`.', example: 'alice' }),
    namespace: z.string().meta({
      description: '`handle` for a handle; the TLD (`x1`, `xnt`, `xen`, …) for a domain.',
      example: 'handle',
    }),
    owner: AddressSchema.meta({ description: 'Owner wallet; informational when `tokenized` is true.' }),
    tokenized: z.boolean().meta({ description: 'Whether the name has become an NFT.' }),
    verification: VerificationSchema,
  })
  .meta({ id: 'Resolution', description: 'A resolved handle or domain. No addresses map, no expiry.' });

export const ReverseResultSchema = z
  .strictObject({
    input: z.string().meta({ description: 'The raw value passed.' }),
    address: AddressSchema.meta({ description: 'The address that was looked up.' }),
    handle: z
      .string()
      .meta({ description: "The address's trusted primary handle, normalized, no `@`.", example: 'alice' }),
  })
  .meta({ id: 'ReverseResult', description: 'The primary handle of an address that passed every trust rule.' });

// ---------- error bodies ----------

const PUBLIC_ERROR_TEXTS = Object.values(PUBLIC_ERRORS).map(([, text]) => text) as [string, ...string[]];

export const PublicErrorBodySchema = z
  .strictObject({
    error: z.enum(PUBLIC_ERROR_TEXTS).meta({ description: 'Fixed error text.', example: 'handle not registered' }),
    input: z.string().optional().meta({ description: 'The raw input the error is about, when there is one.' }),
  })
  .meta({ id: 'PublicError', description: 'Error body of the public (un-prefixed) routes.' });

const V1_ERROR_CODES = Object.keys(V1_ERRORS) as [V1ErrorCode, ...V1ErrorCode[]];

export const V1ErrorBodySchema = z
  .strictObject({
    code: z.enum(V1_ERROR_CODES).meta({ description: 'Stable error code.', example: 'INVALID_KEY' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
  })
  .meta({ id: 'V1Error', description: 'Error body of the /v1 routes.' });

// ---------- health, version ----------

export const HealthSchema = z.strictObject({ ok: z.literal(true) }).meta({ id: 'Health' });

export const V1HealthSchema = z
  .strictObject({
    status: z.enum(['ok', 'degraded']).meta({
      description: '`ok` when the service and its dependencies answer; `degraded` when a dependency is failing.',
    }),
    service: z.literal('sigil'),
    x402: z.boolean().meta({ description: 'Whether pay-per-call (x402) is enabled.' }),
    rails: z
      .array(z.string().min(1))
      .meta({ description: 'Payment rail identifiers; the native rail is `<chain>-native`.', example: ['x1-native'] }),
    rpc: z
      .string()
      .min(1)
      .meta({ description: 'Host of the RPC the deployment reads.', example: 'rpc.mainnet.x1.xyz' }),
    program: AddressSchema.meta({ description: 'Registry program address.' }),
  })
  .meta({ id: 'V1Health' });

export const VersionSchema = z
  .strictObject({
    service: z.literal('sigil'),
    version: z.string().min(1).meta({ description: 'Service version.', example: '0.1.0' }),
    rpc: z.string().min(1).meta({ description: 'Host of the RPC the deployment reads.' }),
    program: AddressSchema.meta({ description: 'Registry program address.' }),
    chain: z
      .strictObject({
        version: z.string().meta({ description: 'Node software version reported by the RPC (`getVersion`).' }),
        genesisHash: z.string().meta({ description: 'Genesis hash reported by the RPC; identifies the network.' }),
        slot: z.number().int().nonnegative().meta({ description: 'Current slot reported by the RPC.' }),
      })
      .meta({ description: 'Read live from the RPC; the endpoint answers 502 `rpc unreachable` when it cannot.' }),
  })
  .meta({ id: 'Version' });

// ---------- namespaces ----------

export const NAMESPACES = ['handle', 'x1', 'xnt', 'xen', 'sol', 'eth'] as const;
export const NAMESPACE_SOURCES = ['sigil', 'sns', 'ens'] as const;

export const NamespaceEntrySchema = z
  .strictObject({
    namespace: z.enum(NAMESPACES),
    source: z.enum(NAMESPACE_SOURCES).meta({ description: 'System that answers for the namespace.' }),
    configured: z.boolean().meta({
      description: 'Native namespaces are always on; `sol`/`eth` only when their RPC is configured.',
    }),
  })
  .meta({ id: 'NamespaceEntry' });

export const NamespacesSchema = z
  .strictObject({ namespaces: z.array(NamespaceEntrySchema) })
  .meta({ id: 'Namespaces' });

// ---------- types ----------

export type Resolution = z.infer<typeof ResolutionSchema>;
export type ReverseResult = z.infer<typeof ReverseResultSchema>;
export type V1Health = z.infer<typeof V1HealthSchema>;
export type Version = z.infer<typeof VersionSchema>;
export type Namespace = (typeof NAMESPACES)[number];
export type NamespaceSource = (typeof NAMESPACE_SOURCES)[number];
export type NamespaceEntry = z.infer<typeof NamespaceEntrySchema>;
export type Namespaces = z.infer<typeof NamespacesSchema>;
