// Universal resolution: the result object, the keyed /v1/resolve answer, the batch request/response, and the
// universal name classification (which namespace answers a name). Pure, no I/O. See docs/universal.md.

import { z } from 'zod';
import {
  AddressSchema,
  NAMESPACES,
  NAMESPACE_SOURCES,
  VerificationSchema,
  type Namespace,
  type NamespaceSource,
} from './public';
import { V1_ERRORS, type V1ErrorCode } from './errors';
import { classifyName, normalizeName } from './names';

export const UNIVERSAL_CHAINS = ['X1', 'SOL', 'ETH', 'BTC'] as const;
export type UniversalChain = (typeof UNIVERSAL_CHAINS)[number];

export const UniversalResolveInputSchema = z.object({
  name: z
    .string()
    .meta({ description: 'Handle (`@` optional), domain (`label.x1`), `name.sol` or `name.eth`.', example: '@alice' }),
  chain: z.string().optional().meta({ description: '`X1`, `SOL`, `ETH` or `BTC` (case-insensitive).', example: 'SOL' }),
});

export const UniversalResultSchema = z
  .strictObject({
    input: z.string().meta({ description: 'As passed.' }),
    name: z.string().meta({ description: 'Normalized name.' }),
    namespace: z.enum(NAMESPACES),
    address: z.string().meta({ description: 'Address on the requested chain (chain-native encoding).' }),
    chain: z.enum(UNIVERSAL_CHAINS),
    source: z.enum(NAMESPACE_SOURCES).meta({ description: 'System that answered.' }),
    verified: z.boolean().meta({ description: 'Whether ownership of `address` was proved on chain.' }),
  })
  .meta({ id: 'UniversalResult' });
export type UniversalResult = z.infer<typeof UniversalResultSchema>;

// ---------- GET /v1/resolve/{name} ----------

export const AddressRecordSchema = z
  .strictObject({
    chain: z.string().meta({ description: 'Record key: `X1`, `SOL`, `ETH`, `BTC`.', example: 'SOL' }),
    address: z.string().meta({ description: 'The recorded address, chain-native encoding.' }),
    verified: z
      .boolean()
      .meta({ description: 'The program checked a signature by this address, and the record is not stale.' }),
    verifiedAt: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Unix seconds of the on-chain verification; null when unverified.' }),
    updatedAt: z.number().int().meta({ description: 'Unix seconds of the last write.' }),
  })
  .meta({ id: 'AddressRecord' });

export const V1ResolutionSchema = z
  .strictObject({
    input: z.string(),
    name: z.string(),
    namespace: z.string().meta({ description: '`handle`, or the TLD of a domain.' }),
    owner: AddressSchema.meta({ description: 'Registered owner; informational when `tokenized`.' }),
    tokenized: z.boolean(),
    verification: VerificationSchema,
    authority: AddressSchema.meta({
      description: 'Who controls the name now: the owner, or the NFT holder when tokenized.',
    }),
    handleType: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'On-chain handle type (3 = Agent); null for a domain.' }),
    addresses: z
      .array(AddressRecordSchema)
      .meta({ description: 'Live (non-stale) address records; a domain has none.' }),
    slot: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: 'The slot the account was read at (commitment `confirmed`).' }),
  })
  .meta({ id: 'V1Resolution', description: 'Keyed resolution of a handle or native domain.' });
export type AddressRecord = z.infer<typeof AddressRecordSchema>;
export type V1Resolution = z.infer<typeof V1ResolutionSchema>;

// ---------- POST /v1/resolve/batch ----------

export const MAX_BATCH_NAMES = 100;

export const BatchResolveInputSchema = z
  .strictObject({
    names: z
      .array(z.string().max(300))
      .min(1, 'at least one name')
      .max(MAX_BATCH_NAMES, `at most ${MAX_BATCH_NAMES} names`),
    chain: z
      .string()
      .optional()
      .meta({ description: 'As the `chain` query of /v1/resolve-universal, for every name.' }),
  })
  .meta({ id: 'BatchResolveRequest' });

const V1_ERROR_CODES = Object.keys(V1_ERRORS) as [V1ErrorCode, ...V1ErrorCode[]];

export const BatchItemSchema = z
  .strictObject({
    input: z.string(),
    ok: z.boolean(),
    result: UniversalResultSchema.optional(),
    error: z.strictObject({ status: z.number().int(), code: z.enum(V1_ERROR_CODES), message: z.string() }).optional(),
  })
  .meta({
    id: 'BatchItem',
    description: '`ok: true` with `result`, or `ok: false` with the error the single endpoint would answer.',
  });

export const BatchResolveResultSchema = z
  .strictObject({
    results: z.array(BatchItemSchema).meta({ description: 'One item per requested name, in request order.' }),
  })
  .meta({ id: 'BatchResolveResult' });
export type BatchItem = z.infer<typeof BatchItemSchema>;
export type BatchResolveResult = z.infer<typeof BatchResolveResultSchema>;

// ---------- classification ----------

export type UniversalClass =
  | { kind: 'handle'; name: string }
  | { kind: 'domain'; name: string; label: string; tld: string }
  | { kind: 'sol'; name: string; labels: string[] } // labels without `.sol`: [domain] or [sub, domain]
  | { kind: 'eth'; name: string } // not yet ENSIP-15 normalized (the ENS adapter does that)
  | { kind: 'refused'; code: RefusalCode; reason: string };

/**
 * The code of a refused name: one condition, one code, on every endpoint (the public face's conditions with their
 * `/v1` codes): `AMBIGUOUS` (both a handle and a domain shape), `INVALID_HANDLE`, `INVALID_DOMAIN`, and
 * `INVALID_NAME` for a shape no namespace claims (a malformed `.sol`/`.eth` name, `.sns`, blank input).
 */
export type RefusalCode = 'AMBIGUOUS' | 'INVALID_HANDLE' | 'INVALID_DOMAIN' | 'INVALID_NAME';

const SNS_LABEL = /^[^\s.\u0000-\u001f\u007f]{1,63}$/u;

/**
 * Strictly by shape, never falling back: `@…` is always native (handle, or refused as ambiguous/invalid);
 * `….sol` → SNS, `….eth` → ENS, `….sns` refused (see docs/universal.md); anything else follows the native name
 * grammar (handle, domain under a served TLD, or refused).
 */
export function classifyUniversal(input: string, suffixes: readonly string[]): UniversalClass {
  if (input.trim() !== input || input === '') return { kind: 'refused', code: 'INVALID_NAME', reason: 'invalid name' };
  const { name, hadAt } = normalizeName(input);
  if (!hadAt) {
    const lower = name.toLowerCase();
    if (lower.endsWith('.sol')) {
      const labels = lower.slice(0, -4).split('.');
      if (labels.length > 2 || !labels.every((l) => SNS_LABEL.test(l)))
        return { kind: 'refused', code: 'INVALID_NAME', reason: 'not a valid .sol name' };
      return { kind: 'sol', name: lower, labels };
    }
    if (lower.endsWith('.sns'))
      return {
        kind: 'refused',
        code: 'INVALID_NAME',
        reason: '.sns names are not resolved by this deployment (see docs/universal.md)',
      };
    if (lower.endsWith('.eth'))
      return lower.length > 4 && lower.length <= 255
        ? { kind: 'eth', name }
        : { kind: 'refused', code: 'INVALID_NAME', reason: 'not a valid .eth name' };
  }
  const cls = classifyName(input, suffixes);
  switch (cls.kind) {
    case 'handle':
      return cls;
    case 'domain':
      return cls;
    case 'ambiguous':
      return {
        kind: 'refused',
        code: 'AMBIGUOUS',
        reason: `ambiguous: "${cls.name}" is both a handle and a domain shape`,
      };
    case 'invalid-domain':
      return { kind: 'refused', code: 'INVALID_DOMAIN', reason: 'invalid domain' };
    case 'invalid-handle':
      return { kind: 'refused', code: 'INVALID_HANDLE', reason: 'invalid handle' };
  }
}

/** The namespace a class answers in (`handle`, the TLD, `sol`, `eth`). */
export function namespaceOf(cls: Exclude<UniversalClass, { kind: 'refused' }>): Namespace {
  return cls.kind === 'domain' ? (cls.tld as Namespace) : cls.kind;
}

export const NAMESPACE_SOURCE: Record<'native' | 'sol' | 'eth', NamespaceSource> = {
  native: 'sigil',
  sol: 'sns',
  eth: 'ens',
};

/** The chain a namespace's names live on: asked for when `chain` is absent. */
export function defaultChainOf(kind: 'handle' | 'domain' | 'sol' | 'eth'): UniversalChain {
  return kind === 'sol' ? 'SOL' : kind === 'eth' ? 'ETH' : 'X1';
}
