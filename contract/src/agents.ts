// Agents: the agent manifest (version 1), its JSON Schema, the agent resolution result, the pure validator behind
// POST /v1/agents/validate, CAIP-2 network comparison, and MCP discovery order. Pure, no I/O (docs/agents.md).

import { z } from 'zod';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ApiError } from './errors';
import { isBase58Address, normalizeName, parseHandle } from './names';
import { AddressSchema } from './public';
import { AGENT_LEVELS } from './gate';

// ───────────────────────────── CAIP-2 ─────────────────────────────

/** CAIP-2 grammar: `<namespace>:<reference>` (namespace 3-8 of [-a-z0-9], reference 1-32 of [-_a-zA-Z0-9]). */
export const CAIP2_PATTERN = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const SOLANA_TESTNET = 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z';

/**
 * Known aliases → canonical CAIP-2 id. x402 version 1 named networks by word (`solana`, `base`, …), and older
 * Solana wallets used other references for the same clusters. Anything not listed is compared as written.
 */
export const CAIP2_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  // x402 v1 network names
  solana: SOLANA_MAINNET,
  'solana-mainnet': SOLANA_MAINNET,
  'solana-devnet': SOLANA_DEVNET,
  'solana-testnet': SOLANA_TESTNET,
  ethereum: 'eip155:1',
  base: 'eip155:8453',
  'base-sepolia': 'eip155:84532',
  // legacy Solana CAIP-2 references (WalletConnect v1 era) for the same clusters
  'solana:4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZ': SOLANA_MAINNET,
  'solana:8E9rvCKLFQia2Y35HXjjpWzj8weVo44K': SOLANA_DEVNET,
});

const SOLANA_FULL_GENESIS = /^solana:([1-9A-HJ-NP-Za-km-z]{33,44})$/;

/**
 * The canonical CAIP-2 id of `network`, or null when it is not one: aliases are mapped (table above), and a
 * `solana:<full genesis hash>` is cut to the 32-character reference the CAIP-2 solana rule uses.
 */
export function normalizeCaip2(network: string): string | null {
  const aliased = CAIP2_ALIASES[network];
  if (aliased) return aliased;
  const full = SOLANA_FULL_GENESIS.exec(network);
  if (full) return `solana:${full[1]!.slice(0, 32)}`;
  return CAIP2_PATTERN.test(network) ? network : null;
}

/** Exact (byte-for-byte) comparison after alias mapping; false when either side is not a CAIP-2 id. */
export function sameCaip2Network(a: string, b: string): boolean {
  const x = normalizeCaip2(a);
  return x !== null && x === normalizeCaip2(b);
}

// ───────────────────────────── coin types ─────────────────────────────

/**
 * SLIP-44 / ENSIP-9 coin types → the registry's address-record key. Only these can be backed by an on-chain,
 * signature-verified record; X1 has no registered SLIP-44 coin type, so it is not listed (docs/agents.md).
 */
export const COIN_TYPE_RECORD_KEYS: Readonly<Record<number, 'BTC' | 'ETH' | 'SOL'>> = Object.freeze({
  0: 'BTC',
  60: 'ETH',
  501: 'SOL',
});

const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BTC_BECH32 = /^(bc1|BC1)[02-9ac-hj-np-zAC-HJ-NP-Z]{8,87}$/;
const BTC_BASE58 = /^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/;

/** EIP-55: an all-lower or all-upper hex address carries no checksum; a mixed-case one must match it. */
function isEip55Valid(address: string): boolean {
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  const hash = keccak_256(new TextEncoder().encode(body.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    const c = body[i]!;
    if (/[a-f]/.test(c) && nibble >= 8) return false;
    if (/[A-F]/.test(c) && nibble < 8) return false;
  }
  return true;
}

/** Why `address` is not a well-formed address for `coinType`, or null when it is (unknown coin types: any text). */
export function coinTypeAddressProblem(coinType: number, address: string): string | null {
  switch (COIN_TYPE_RECORD_KEYS[coinType]) {
    case 'SOL':
      return isBase58Address(address) ? null : 'not a base58 32-byte address (coin type 501, SOL)';
    case 'ETH':
      if (!ETH_ADDRESS.test(address)) return 'not a 0x-prefixed 20-byte hex address (coin type 60, ETH)';
      return isEip55Valid(address) ? null : 'EIP-55 checksum does not match (coin type 60, ETH)';
    case 'BTC':
      return BTC_BECH32.test(address) || BTC_BASE58.test(address) ? null : 'not a Bitcoin address (coin type 0, BTC)';
    default:
      return null;
  }
}

/** Whether two addresses of a coin type are the same: hex and bech32 are case-insensitive, base58 is not. */
export function sameCoinAddress(coinType: number, a: string, b: string): boolean {
  const key = COIN_TYPE_RECORD_KEYS[coinType];
  if (key === 'ETH' || (key === 'BTC' && /^bc1/i.test(a))) return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

// ───────────────────────────── manifest v1 ─────────────────────────────

const httpsUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => urlProtocol(v) === 'https:', 'must be an https:// URL');

const httpsOrIpfsUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => ['https:', 'ipfs:'].includes(urlProtocol(v) ?? ''), 'must be an https:// or ipfs:// URL');

function urlProtocol(v: string): string | null {
  try {
    return new URL(v).protocol;
  } catch {
    return null;
  }
}

export const MANIFEST_NETWORKS = ['mainnet', 'testnet'] as const;

const PaymentAddressSchema = z
  .looseObject({
    coinType: z.number().int('must be an integer').min(0, 'must be ≥ 0').max(0xffffffff, 'must fit in 32 bits'),
    address: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
    verified: z.boolean(),
  })
  .superRefine((item, ctx) => {
    const problem = coinTypeAddressProblem(item.coinType, item.address);
    if (problem) ctx.addIssue({ code: 'custom', path: ['address'], message: problem });
  });

export const AgentManifestV1Schema = z
  .looseObject({
    sigil: z.strictObject({
      version: z.literal(1, 'must be 1'),
      name: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
      network: z.enum(MANIFEST_NETWORKS, 'must be mainnet or testnet'),
      handle: AddressSchema,
    }),
    identity: z
      .looseObject({
        attestation: AddressSchema.optional(),
        description: z.string().max(2048, 'must be at most 2048 characters').optional(),
      })
      .optional(),
    endpoints: z
      .array(
        z.looseObject({
          type: z.string().min(1, 'must not be empty').max(32, 'must be at most 32 characters'),
          url: httpsUrl,
        }),
      )
      .max(32, 'at most 32 endpoints')
      .optional(),
    capabilities: z.looseObject({ schema: httpsOrIpfsUrl, url: httpsOrIpfsUrl }).optional(),
    payment: z
      .looseObject({
        addresses: z.array(PaymentAddressSchema).max(32, 'at most 32 payment addresses').optional(),
        x402: z
          .looseObject({
            network: z
              .string()
              .refine(
                (n) => normalizeCaip2(n) !== null,
                'must be a CAIP-2 chain id (<namespace>:<reference>) or a known alias',
              ),
            asset: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'),
            scheme: z.string().min(1, 'must not be empty').max(32, 'must be at most 32 characters'),
            facilitator: httpsUrl,
          })
          .optional(),
      })
      .optional(),
  })
  .meta({
    id: 'AgentManifestV1',
    title: 'Sigil agent manifest, version 1',
    description:
      'Off-chain document an agent handle points at with its `agent.manifest` text record. Unknown keys are ' +
      'allowed outside `sigil` (extensions) and ignored.',
  });

export type AgentManifestV1 = z.infer<typeof AgentManifestV1Schema>;

/** The manifest's JSON Schema (draft 2020-12), served at GET /schemas/agent-manifest.v1.json. */
export function agentManifestJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(AgentManifestV1Schema, { target: 'draft-2020-12', unrepresentable: 'any' }) as {
    $schema: string;
    $defs?: Record<string, Record<string, unknown>>;
  };
  // The schema's `id` meta makes zod emit `{$ref, $defs}`; publish the manifest itself at the root instead.
  const { AgentManifestV1: root, ...otherDefs } = generated.$defs ?? {};
  return {
    $schema: generated.$schema,
    ...root,
    ...(Object.keys(otherDefs).length > 0 ? { $defs: otherDefs } : {}),
  };
}

// ───────────────────────────── agent resolution result ─────────────────────────────

export const AGENT_HANDLE_TYPE = 3;
/** The well-known text records an agent's endpoints are read from → the key in `endpoints`. */
export const AGENT_ENDPOINT_RECORDS = {
  'agent.mcp': 'mcp',
  'agent.x402': 'x402',
  'agent.a2a': 'a2a',
  'agent.capabilities': 'capabilities',
} as const;
export const AGENT_MANIFEST_RECORD = 'agent.manifest';

export const AgentEndpointsSchema = z
  .strictObject({
    mcp: z.string().optional(),
    x402: z.string().optional(),
    a2a: z.string().optional(),
    capabilities: z.string().optional(),
  })
  .meta({ description: 'Endpoint records read off the handle (live records only); absent keys omitted.' });

export const AgentResolutionSchema = z
  .strictObject({
    name: z.string().meta({ description: 'Handle name, normalized, no `@`.', example: 'scout' }),
    handle: AddressSchema.meta({ description: 'Handle account address (uniqueness anchor).' }),
    handleType: z.number().int().meta({ description: 'On-chain handle type; `3` is the immutable Agent flag.' }),
    agent: z.literal(true),
    manifestUrl: z.string().meta({ description: 'Value of the `agent.manifest` record (`https://` or `ipfs://`).' }),
    endpoints: AgentEndpointsSchema,
    manifest: AgentManifestV1Schema,
  })
  .meta({ id: 'AgentResolution' });

export type AgentEndpoints = z.infer<typeof AgentEndpointsSchema>;
export type AgentResolution = z.infer<typeof AgentResolutionSchema>;

export const AgentHandleInputSchema = z.object({
  handle: z.string().meta({ description: 'Handle, `@` optional.', example: '@scout' }),
});

// ───────────────────────────── verification level ─────────────────────────────

/** Why the next level was not reached: a stable word a caller can branch on (docs/agents.md, docs/mcp.md). */
export const LEVEL_FAILURES = [
  // L1
  'manifest-unreachable',
  'manifest-invalid',
  'no-attestation',
  'attestation-not-found',
  'attestation-revoked',
  'attestation-expired',
  // L2
  'no-x402-endpoint',
  'no-verified-payment-address',
  'probe-blocked',
  'probe-unreachable',
  'probe-redirect',
  'probe-not-402',
  'probe-invalid-challenge',
  'payto-mismatch',
] as const;
export type LevelFailure = (typeof LEVEL_FAILURES)[number];

export const AgentLevelSchema = z
  .strictObject({
    handle: z.string().meta({ description: 'Handle name, normalized, no `@`.', example: 'scout' }),
    slot: z
      .number()
      .int()
      .meta({ description: 'Context slot of the (`confirmed`) chain read the levels were judged on.' }),
    level: z
      .enum(AGENT_LEVELS)
      .meta({ description: 'The highest level reached: L0 declared, L1 attested, L2 pay-to confirmed.' }),
    reached: z
      .array(z.strictObject({ level: z.enum(AGENT_LEVELS), reason: z.string() }))
      .meta({ description: 'Each level reached, lowest first, with what proved it.' }),
    next: z
      .strictObject({ level: z.enum(['L1', 'L2']), reason: z.enum(LEVEL_FAILURES), message: z.string() })
      .nullable()
      .meta({ description: 'Why the next level was not reached (null at L2); levels above it were not checked.' }),
  })
  .meta({ id: 'AgentLevel' });

export type AgentLevelResult = z.infer<typeof AgentLevelSchema>;

/** MCP discovery order: the `agent.mcp` record (endpoints.mcp), then the first manifest endpoint of type `mcp`. */
export function discoverMcpEndpoint(
  endpoints: AgentEndpoints,
  manifest: Pick<AgentManifestV1, 'endpoints'> | null,
): string | null {
  if (endpoints.mcp) return endpoints.mcp;
  return manifest?.endpoints?.find((e) => e.type === 'mcp')?.url ?? null;
}

// ───────────────────────────── validate ─────────────────────────────

export const ValidateManifestInputSchema = z
  .object({
    handle: z
      .string()
      .max(64)
      .meta({ description: 'The handle the manifest is for; `@` optional.', example: '@scout' }),
    manifest: z
      .unknown()
      .meta({ description: 'The manifest document (checked by the service, never refused by shape here).' }),
  })
  .meta({ id: 'ValidateManifestRequest' });

export const ManifestProblemSchema = z
  .strictObject({
    path: z
      .string()
      .meta({ description: 'Where the problem is, e.g. `payment.addresses[0].address`; `(root)` for the document.' }),
    message: z.string(),
  })
  .meta({ id: 'ManifestProblem' });

export const ValidateManifestResultSchema = z
  .strictObject({
    name: z.string().meta({ description: 'The handle, normalized.', example: 'scout' }),
    handle: z
      .string()
      .nullable()
      .meta({ description: 'The handle account the manifest declares (`sigil.handle`), or null.' }),
    network: z
      .string()
      .nullable()
      .meta({ description: 'The network the manifest declares (`sigil.network`), or null.' }),
    valid: z.boolean(),
    errors: z.array(ManifestProblemSchema).meta({ description: 'One entry per problem; empty when valid.' }),
    note: z.string(),
  })
  .meta({ id: 'ValidateManifestResult' });

export type ManifestProblem = z.infer<typeof ManifestProblemSchema>;
export type ValidateManifestResult = z.infer<typeof ValidateManifestResultSchema>;

export const VALIDATE_NOTE =
  'Checked shape and identity only (name, network, handle account), without reading the chain. ' +
  'GET /v1/agents/{handle} also checks the handle on chain and that every payment address marked verified ' +
  'matches a signature-verified address record.';

/** `['payment','addresses',0,'address']` → `payment.addresses[0].address`; `[]` → `(root)`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

export interface ValidateManifestOptions {
  /** The deployment's network; a manifest for the other one is refused. */
  expectedNetwork?: (typeof MANIFEST_NETWORKS)[number];
  /** The handle account derived for the name (a pure PDA derivation); a manifest naming another is refused. */
  expectedHandleAccount?: string;
}

/**
 * Pure check of a manifest against the handle it is for: shape (one error per problem, path-addressed), then
 * identity (name, network, handle account). Throws ApiError INVALID_HANDLE when `handleInput` is not a handle.
 */
export function validateManifest(
  handleInput: string,
  manifest: unknown,
  options: ValidateManifestOptions = {},
): ValidateManifestResult {
  const name = parseHandle(handleInput);
  if (name === null) throw new ApiError('INVALID_HANDLE', `"${handleInput.slice(0, 80)}" is not a valid handle`);
  const declared = (manifest as { sigil?: { handle?: unknown; network?: unknown } } | null)?.sigil;
  const result = (errors: ManifestProblem[]): ValidateManifestResult => ({
    name,
    handle: typeof declared?.handle === 'string' ? declared.handle : null,
    network: typeof declared?.network === 'string' ? declared.network : null,
    valid: errors.length === 0,
    errors,
    note: VALIDATE_NOTE,
  });

  const parsed = parseManifest(manifest);
  if (!parsed.ok) return result(parsed.problems);
  return result(identityProblems(name, parsed.manifest, options));
}

/** Shape check of a manifest document: the parsed manifest, or one path-addressed problem per distinct path. */
export function parseManifest(
  document: unknown,
): { ok: true; manifest: AgentManifestV1 } | { ok: false; problems: ManifestProblem[] } {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { ok: false, problems: [{ path: '(root)', message: 'the manifest must be a JSON object' }] };
  }
  const parsed = AgentManifestV1Schema.safeParse(document, { reportInput: true });
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const seen = new Set<string>();
  const problems: ManifestProblem[] = [];
  for (const issue of parsed.error.issues) {
    const path = formatIssuePath(issue.path);
    if (seen.has(path)) continue;
    seen.add(path);
    problems.push({ path, message: issueMessage(issue) });
  }
  return { ok: false, problems };
}

/** Identity problems of a well-shaped manifest: wrong name, network or handle account. */
export function identityProblems(
  name: string,
  manifest: AgentManifestV1,
  options: ValidateManifestOptions = {},
): ManifestProblem[] {
  const errors: ManifestProblem[] = [];
  const declaredName = normalizeName(manifest.sigil.name).name;
  if (declaredName !== name)
    errors.push({ path: 'sigil.name', message: `names "${manifest.sigil.name}", not "${name}"` });
  if (options.expectedNetwork && manifest.sigil.network !== options.expectedNetwork) {
    errors.push({
      path: 'sigil.network',
      message: `is ${manifest.sigil.network}; this deployment is ${options.expectedNetwork}`,
    });
  }
  if (options.expectedHandleAccount && manifest.sigil.handle !== options.expectedHandleAccount) {
    errors.push({
      path: 'sigil.handle',
      message: `is ${manifest.sigil.handle}; the handle account of "${name}" is ${options.expectedHandleAccount}`,
    });
  }
  manifest.payment?.addresses?.forEach((item, i) => {
    if (item.verified && !COIN_TYPE_RECORD_KEYS[item.coinType]) {
      errors.push({
        path: `payment.addresses[${i}].verified`,
        message: `coin type ${item.coinType} has no on-chain address record that could verify it`,
      });
    }
  });
  return errors;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  // Parsed with reportInput, so an absent field shows as `input: undefined`.
  const absent = 'input' in issue && issue.input === undefined;
  if (absent && (issue.code === 'invalid_type' || issue.code === 'invalid_value')) return 'is required';
  if (issue.code === 'unrecognized_keys') return `unknown key(s): ${issue.keys.join(', ')}`;
  return issue.message;
}
