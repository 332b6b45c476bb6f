// Gate (docs/gate.md): access policies over on-chain identity, their JSON language, limits and content hash, and the
// shapes of a check and of stored policies. Pure: no I/O.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import { z } from 'zod';
import { ApiError } from './errors';

// ---------- the policy language ----------

/** Limits of one policy (docs/gate.md "Limits"). */
export const POLICY_LIMITS = {
  /** Nesting of combinators: a leaf directly in the root `all` is at depth 2. */
  maxDepth: 8,
  /** Nodes, combinators and leaves together. */
  maxNodes: 64,
  /** UTF-8 bytes of the canonical JSON. */
  maxBytes: 65_536,
  /** Entries of one `wallet.in` list. */
  maxWallets: 1000,
  /** Children of one combinator. */
  maxChildren: 32,
} as const;

export const HANDLE_TYPE_NAMES = ['standard', 'premium', 'reserved', 'agent'] as const;
export const AGENT_LEVELS = ['L0', 'L1', 'L2'] as const;

const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 address');
const handleName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^@?[^\s@]+$/, 'must be a handle (`@` optional)');

/** Each leaf's parameters, by leaf name. */
export const LEAF_PARAMS = {
  'handle.owned': z.strictObject({ handle: handleName.optional() }).meta({
    description:
      "The subject's wallet holds authority over `handle` (owner, or NFT holder in its ATA); without `handle`: over the subject's handle.",
  }),
  'handle.primary': z.strictObject({ handle: handleName.optional() }).meta({
    description: "The subject's wallet has a trusted primary handle (the reverse's trust rules), `handle` if given.",
  }),
  'handle.type': z
    .strictObject({ type: z.enum(HANDLE_TYPE_NAMES) })
    .meta({ description: "The subject's handle is of this type (`agent` = handle type 3)." }),
  'record.verified': z
    .strictObject({ chain: z.string().regex(/^[A-Z0-9]{1,16}$/, 'must be a chain code such as X1, SOL, ETH, BTC') })
    .meta({ description: "The subject's handle has a live, signature-verified address record for `chain`." }),
  attestation: z
    .strictObject({
      platform: z.string().regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be 1-32 characters A-Z a-z 0-9 . _ -'),
      issuers: z.array(base58Address).min(1).max(16).optional(),
      maxAgeSec: z
        .number()
        .int()
        .min(1)
        .max(10 * 365 * 86_400)
        .optional(),
    })
    .meta({
      description:
        "The subject's handle has a live attestation (not revoked, not expired) of `platform`, by one of `issuers` if given, issued at most `maxAgeSec` ago if given.",
    }),
  'agent.level': z.strictObject({ min: z.enum(AGENT_LEVELS) }).meta({
    description:
      "The subject's handle is an agent of at least this verification level (docs/gate.md: L0 declared, read from the chain; L1 attested and L2 pay-to confirmed, judged by fetching the manifest and probing its x402 endpoint, as the MCP tool get_agent_manifest does).",
  }),
  'token.balance': z
    .strictObject({
      mint: base58Address,
      min: z.string().regex(/^(0|[1-9][0-9]{0,19})$/, 'must be a base-unit integer as a decimal string'),
    })
    .meta({
      description:
        "The subject's wallet holds at least `min` base units of `mint` over all its token accounts (SPL Token and Token-2022).",
    }),
  'wallet.in': z
    .strictObject({ list: z.array(base58Address).min(1).max(POLICY_LIMITS.maxWallets) })
    .meta({ description: "The subject's wallet is in `list`." }),
} as const;

export type LeafName = keyof typeof LEAF_PARAMS;
export const LEAF_NAMES = Object.keys(LEAF_PARAMS) as LeafName[];
export const COMBINATORS = ['all', 'any', 'not', 'atLeast'] as const;

export type PolicyLeaf = { [K in LeafName]: { [P in K]: z.infer<(typeof LEAF_PARAMS)[K]> } }[LeafName];
export type PolicyNode =
  | { all: PolicyNode[] }
  | { any: PolicyNode[] }
  | { not: PolicyNode }
  | { atLeast: { n: number; of: PolicyNode[] } }
  | PolicyLeaf;

const children = () => z.array(PolicyNodeSchema).min(1).max(POLICY_LIMITS.maxChildren);

/** The policy language as one schema: what GET /v1/gate/policy.schema.json publishes (z.toJSONSchema). */
export const PolicyNodeSchema: z.ZodType<PolicyNode> = z
  .lazy(() =>
    z.union([
      z.strictObject({ all: children() }),
      z.strictObject({ any: children() }),
      z.strictObject({ not: PolicyNodeSchema }),
      z.strictObject({ atLeast: z.strictObject({ n: z.number().int().min(1), of: children() }) }),
      ...LEAF_NAMES.map((name) => z.strictObject({ [name]: LEAF_PARAMS[name] })),
    ]),
  )
  .meta({ id: 'GatePolicy' }) as z.ZodType<PolicyNode>;

/** The published JSON Schema (draft 2020-12) of a policy. */
export function policyJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(PolicyNodeSchema),
    title: 'Sigil Gate policy',
    description:
      `A node is an object with exactly one key: a combinator (${COMBINATORS.join(', ')}) or a leaf ` +
      `(${LEAF_NAMES.join(', ')}). Limits beyond this schema: depth ≤ ${POLICY_LIMITS.maxDepth}, ` +
      `nodes ≤ ${POLICY_LIMITS.maxNodes}, canonical JSON ≤ ${POLICY_LIMITS.maxBytes} bytes, ` +
      '`atLeast.n` ≤ the number of its children (docs/gate.md).',
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A policy as sent (any JSON) → the policy, or the 400 that names the first problem and where: POLICY_TOO_DEEP,
 * POLICY_TOO_LARGE, INVALID_POLICY. The walk is iterative and checks the limits before anything recurses, so a
 * hostile document (deep, wide) costs no more than its size.
 */
export function parsePolicy(raw: unknown): PolicyNode {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: raw, path: '', depth: 1 }];
  let nodes = 0;
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    const at = path || '/';
    if (depth > POLICY_LIMITS.maxDepth) {
      throw new ApiError('POLICY_TOO_DEEP', `${at}: nesting deeper than ${POLICY_LIMITS.maxDepth}`);
    }
    if (++nodes > POLICY_LIMITS.maxNodes) {
      throw new ApiError('POLICY_TOO_LARGE', `${at}: more than ${POLICY_LIMITS.maxNodes} nodes`);
    }
    if (!isObject(value) || Object.keys(value).length !== 1) {
      throw new ApiError('INVALID_POLICY', `${at}: a node is an object with exactly one key`);
    }
    const [key, body] = Object.entries(value)[0]!;
    const here = `${path}/${key}`;
    if (key === 'all' || key === 'any' || key === 'atLeast') {
      const list = key === 'atLeast' ? (isObject(body) ? body.of : undefined) : body;
      if (key === 'atLeast') {
        const n = isObject(body) ? body.n : undefined;
        if (!isObject(body) || Object.keys(body).some((k) => k !== 'n' && k !== 'of')) {
          throw new ApiError('INVALID_POLICY', `${here}: must be {n, of}`);
        }
        if (!Number.isSafeInteger(n) || (n as number) < 1) {
          throw new ApiError('INVALID_POLICY', `${here}/n: must be an integer ≥ 1`);
        }
        if (Array.isArray(list) && (n as number) > list.length) {
          throw new ApiError('INVALID_POLICY', `${here}/n: ${String(n)} is more than its ${list.length} children`);
        }
      }
      const listPath = key === 'atLeast' ? `${here}/of` : here;
      if (!Array.isArray(list) || list.length === 0) {
        throw new ApiError('INVALID_POLICY', `${listPath}: must be a non-empty list of nodes`);
      }
      if (list.length > POLICY_LIMITS.maxChildren) {
        throw new ApiError('POLICY_TOO_LARGE', `${listPath}: more than ${POLICY_LIMITS.maxChildren} children`);
      }
      // Pushed last first, so the walk visits nodes in document order: the first problem is the first in the text.
      for (let i = list.length - 1; i >= 0; i--)
        stack.push({ value: list[i], path: `${listPath}/${i}`, depth: depth + 1 });
    } else if (key === 'not') {
      stack.push({ value: body, path: here, depth: depth + 1 });
    } else if (key in LEAF_PARAMS) {
      const params = LEAF_PARAMS[key as LeafName].safeParse(body);
      if (!params.success) {
        const issue = params.error.issues[0]!;
        const sub = issue.path.length ? `/${issue.path.join('/')}` : '';
        if (issue.code === 'too_big' && key === 'wallet.in') {
          throw new ApiError('POLICY_TOO_LARGE', `${here}${sub}: ${issue.message}`);
        }
        throw new ApiError('INVALID_POLICY', `${here}${sub}: ${issue.message}`);
      }
    } else {
      throw new ApiError(
        'INVALID_POLICY',
        `${at}: unknown node "${key.slice(0, 40)}" (one of ${[...COMBINATORS, ...LEAF_NAMES].join(', ')})`,
      );
    }
  }
  const policy = raw as PolicyNode;
  if (canonicalBytes(policy).length > POLICY_LIMITS.maxBytes) {
    throw new ApiError('POLICY_TOO_LARGE', `/: canonical JSON over ${POLICY_LIMITS.maxBytes} bytes`);
  }
  return policy;
}

/** RFC 8785 canonical JSON (sorted keys, no whitespace, ECMAScript number form), as UTF-8. */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalize(value) ?? 'null');
}

/** A policy's content hash: lowercase hex SHA-256 of its canonical JSON. Its ETag is the hash in quotes. */
export function policyHash(policy: PolicyNode): string {
  return bytesToHex(sha256(canonicalBytes(policy)));
}

// ---------- a check ----------

export const GATE_DECISIONS = ['allow', 'deny', 'indeterminate'] as const;

export const GateSubjectSchema = z
  .union([
    z.strictObject({ handle: z.string().min(1).max(256) }),
    z.strictObject({ wallet: z.string().min(1).max(64) }),
    z
      .strictObject({ session: z.string().min(1).max(4096) })
      .meta({ description: 'A Connect session token issued through the same API key.' }),
  ])
  .meta({ id: 'GateSubject', description: 'Exactly one of `handle`, `wallet`, `session`.' });

export const GateCheckInputSchema = z
  .object({
    subject: z.unknown().meta({ description: '`{handle}` | `{wallet}` | `{session}` (a Connect token of this key).' }),
    policyId: z.string().min(1).max(64).optional().meta({ description: 'A stored policy of this account.' }),
    version: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'With `policyId`: that version (default: the current one).' }),
    policy: z.unknown().optional().meta({ description: 'An inline policy (GET /v1/gate/policy.schema.json).' }),
    sign: z.boolean().optional().meta({ description: 'Also return the decision as a compact JWS (EdDSA).' }),
  })
  .meta({ id: 'GateCheckRequest', description: 'Exactly one of `policyId` and `policy`.' });

const TriSchema = z.boolean().nullable();

export const GateReasonSchema = z
  .strictObject({
    path: z.string().meta({ description: 'JSON Pointer of the node in the policy, e.g. `/all/1/attestation`.' }),
    result: TriSchema.meta({ description: 'true, false, or null (could not be evaluated).' }),
    evidence: z
      .record(z.string(), z.unknown())
      .meta({ description: 'What the leaf read (leaves only; `{}` for combinators).' }),
    error: z.string().optional().meta({ description: 'Why the leaf is null.' }),
  })
  .meta({ id: 'GateReason' });

export const GateDecisionSchema = z
  .strictObject({
    decision: z.enum(GATE_DECISIONS),
    policyId: z.string().optional(),
    version: z.number().int().optional(),
    policyHash: z.string(),
    subject: z.strictObject({
      wallet: z.string().nullable().meta({ description: 'The wallet the subject stands for (null: none).' }),
      handle: z.string().nullable().meta({ description: 'The handle the leaves about a handle read (null: none).' }),
    }),
    slot: z.number().int().meta({ description: 'Every chain read of the check was answered at or after this slot.' }),
    evaluatedAt: z.number().int().meta({ description: 'Unix seconds.' }),
    validUntil: z.number().int().meta({ description: 'Unix seconds: cache the decision no longer than this.' }),
    reasons: z.array(GateReasonSchema).meta({ description: 'Every node, in document order.' }),
  })
  .meta({ id: 'GateDecision' });

export const GateCheckResultSchema = GateDecisionSchema.extend({
  jws: z.string().optional().meta({
    description:
      'With `sign: true`: the decision as a compact JWS, EdDSA, with `aud` = the calling key id (check it is yours) and a fresh `jti`.',
  }),
}).meta({ id: 'GateCheckResult' });

export type GateDecision = z.infer<typeof GateDecisionSchema>;
export type GateCheckResult = z.infer<typeof GateCheckResultSchema>;
export type GateReason = z.infer<typeof GateReasonSchema>;

// ---------- stored policies ----------

export const PolicyIdInputSchema = z.object({ id: z.string().min(1).max(64) });

export const PolicyGetInputSchema = z.object({
  id: z.string().min(1).max(64),
  version: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .meta({ description: 'A past version (default: the current one).' }),
});

export const PolicyWriteInputSchema = z.object({
  id: z.string().min(1).max(64).optional().meta({ description: 'Path parameter of a replace.' }),
  name: z.string().trim().min(1).max(100).optional(),
  policy: z.unknown().meta({ description: 'The policy (GET /v1/gate/policy.schema.json).' }),
});

export const PolicySummarySchema = z
  .strictObject({
    id: z.string(),
    name: z.string().nullable(),
    version: z.number().int(),
    policyHash: z.string().meta({
      description: "SHA-256 (hex) of the canonical JSON of this version (a decision's `policyHash`); the ETag.",
    }),
    createdAt: z.number().int().meta({ description: 'Unix seconds.' }),
    updatedAt: z.number().int().meta({ description: 'Unix seconds: when this version was written.' }),
  })
  .meta({ id: 'GatePolicySummary' });

export const StoredPolicySchema = PolicySummarySchema.extend({
  policy: z.unknown(),
}).meta({ id: 'GatePolicyStored' });

export const PolicyListSchema = z
  .strictObject({ policies: z.array(PolicySummarySchema) })
  .meta({ id: 'GatePolicyList' });

export type PolicySummary = z.infer<typeof PolicySummarySchema>;
export type StoredPolicy = z.infer<typeof StoredPolicySchema>;

/** The most policies one account may keep. */
export const MAX_POLICIES_PER_ACCOUNT = 100;
