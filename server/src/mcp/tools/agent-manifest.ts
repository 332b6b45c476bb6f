// get_agent_manifest: is the handle an agent, what does its manifest say (validated by the agents feature, exactly
// as GET /v1/agents/:handle validates it), and which verification level does it reach — L0 declared, L1 attested,
// L2 pay-to confirmed by a live 402 probe. Reports the level reached and, for the next one, why it failed.
// docs/mcp.md.
import { z } from 'zod';
import {
  AgentEndpointsSchema,
  AgentManifestV1Schema,
  AGENT_ENDPOINT_RECORDS,
  AGENT_MANIFEST_RECORD,
  type AgentEndpoints,
  type AgentManifestV1,
  type AgentResolution,
} from '@sigil/contract/agents';
import { ApiError } from '@sigil/contract/errors';
import { parseHandle } from '@sigil/contract/names';
import {
  createAgentService,
  MANIFEST_MAX_BYTES,
  MANIFEST_TIMEOUT_MS,
  type ManifestNetwork,
} from '../../features/agents/index';
import { isAttestationLive, isRecordLive, isRecordVerified } from '../../platform/chain/trust-rules';
import {
  ChainError,
  type AttestationAccount,
  type ChainReader,
  type HandleAccount,
  type RecordAccount,
} from '../../platform/chain/types';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';
import type { ToolDefinition, ToolOutcome } from '../tool';

export const LEVELS = ['L0', 'L1', 'L2'] as const;
type Level = (typeof LEVELS)[number];

/** Why the next level was not reached: a stable word an agent can branch on (docs/mcp.md). */
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
type LevelFailure = (typeof LEVEL_FAILURES)[number];

/** Address-record keys whose value is an address a Solana-style x402 challenge can name as payTo. */
const PAY_TO_RECORD_KEYS = ['X1', 'SOL'];

const inputSchema = {
  handle: z.string().min(1).max(80).describe('The handle to check, `@` optional (e.g. "@scout" or "scout").'),
};

const outputSchema = {
  name: z.string().describe('The handle, normalized, without `@`.'),
  handle: z.string().describe('The handle account address.'),
  handleType: z.number().int().describe('On-chain handle type; 3 is the immutable Agent flag.'),
  agent: z.literal(true),
  manifestUrl: z.string().describe('The `agent.manifest` record.'),
  endpoints: AgentEndpointsSchema,
  manifest: AgentManifestV1Schema.nullable().describe(
    'The manifest, validated as GET /v1/agents/{handle} validates it; null when it could not be fetched or is invalid.',
  ),
  level: z.enum(LEVELS).describe('The highest level reached: L0 declared, L1 attested, L2 pay-to confirmed.'),
  reached: z
    .array(z.object({ level: z.enum(LEVELS), reason: z.string() }))
    .describe('Each level reached, with what proved it.'),
  next: z
    .object({
      level: z.enum(['L1', 'L2']),
      reason: z.enum(LEVEL_FAILURES),
      message: z.string(),
    })
    .nullable()
    .describe('Why the next level was not reached (null at L2). Higher levels were not checked.'),
};

type Output = z.infer<z.ZodObject<typeof outputSchema>>;

export interface AgentManifestToolSettings {
  /** The deployment's network (SIGIL_NETWORK): a manifest for the other one is invalid, as in /v1/agents. */
  network: ManifestNetwork;
  /** The IPFS gateway ipfs:// manifests go through (SIGIL_IPFS_GATEWAY); unset → they are unreachable. */
  ipfsGateway?: string;
}

export function createAgentManifestTool(
  settings: AgentManifestToolSettings,
): ToolDefinition<typeof inputSchema, typeof outputSchema> {
  return {
    name: 'get_agent_manifest',
    title: 'Agent manifest and verification level',
    description:
      'Checks whether a Sigil handle is an AI agent and how far it can be trusted. Returns its manifest (validated ' +
      'against the chain exactly like GET /v1/agents/{handle}) and the level reached: L0 declared (an ' +
      "`agent.manifest` record exists), L1 attested (the manifest's identity.attestation is a live on-chain " +
      "attestation of this handle), L2 pay-to confirmed (a live HTTP probe of the manifest's x402 endpoint answered " +
      '402 with a payTo equal to a signature-verified X1/SOL address record of the handle). `next` names why the ' +
      'next level failed (e.g. no-attestation, attestation-revoked, payto-mismatch, probe-unreachable, ' +
      'probe-redirect, probe-not-402); levels above it were not checked. Pay an agent only at L2, and only to that ' +
      'payTo. Errors: INVALID_HANDLE, HANDLE_NOT_REGISTERED, NOT_AN_AGENT (no agent.manifest record and not type ' +
      '3), NO_MANIFEST (type 3 without a manifest record), RPC_ERROR (chain unreachable: retry).',
    inputSchema,
    outputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    run: (args, deps) => checkAgent(settings, args.handle, deps.chain, deps.outbound),
  };
}

/** The tool on the service's defaults (testnet, no IPFS gateway); the MCP process passes its own settings. */
export const agentManifestTool = createAgentManifestTool({ network: 'testnet' });

async function checkAgent(
  settings: AgentManifestToolSettings,
  input: string,
  chain: ChainReader,
  outbound: OutboundClient,
): Promise<ToolOutcome<Output>> {
  const name = parseHandle(input);
  if (name === null) return fail('INVALID_HANDLE', `"${input.slice(0, 80)}" is not a valid handle`);
  const agents = createAgentService({ chain, outbound, ...settings });

  // L0 and the manifest: the agents feature decides what an agent is and whether its manifest is valid.
  let resolution: AgentResolution | null = null;
  let manifestProblem: { reason: LevelFailure; message: string } | null = null;
  try {
    resolution = await agents.resolve(name);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'MANIFEST_UNREACHABLE') manifestProblem = { reason: 'manifest-unreachable', message: err.message };
    else if (err.code === 'INVALID_MANIFEST') manifestProblem = { reason: 'manifest-invalid', message: err.message };
    else return fail(err.code, err.message);
  }

  let state: HandleState;
  try {
    state = await readHandleState(chain, name);
  } catch (err) {
    if (err instanceof ChainError) return fail('RPC_ERROR', 'the chain RPC is unreachable');
    throw err;
  }
  if (!state) return fail('HANDLE_NOT_REGISTERED', `@${name} is not registered`);
  const { handle, live, attestations } = state;
  const manifestUrl = resolution?.manifestUrl ?? textRecord(live, AGENT_MANIFEST_RECORD) ?? '';

  const out: Output = {
    name,
    handle: handle.address,
    handleType: handle.handleType,
    agent: true,
    manifestUrl,
    endpoints: resolution?.endpoints ?? endpointRecords(live),
    manifest: resolution?.manifest ?? null,
    level: 'L0',
    reached: [{ level: 'L0', reason: `@${name} has an ${AGENT_MANIFEST_RECORD} record: ${manifestUrl}` }],
    next: null,
  };
  const stop = (level: 'L1' | 'L2', reason: LevelFailure, message: string): ToolOutcome<Output> => ({
    ok: true,
    value: { ...out, next: { level, reason, message } },
  });
  const reach = (level: Level, reason: string) => {
    out.level = level;
    out.reached.push({ level, reason });
  };

  if (!resolution) return stop('L1', manifestProblem!.reason, manifestProblem!.message);
  const manifest = resolution.manifest;

  // L1: the attestation the manifest references is a live attestation of this handle.
  const attested = checkAttestation(manifest, handle, attestations, name);
  if (!attested.ok) return stop('L1', attested.reason, attested.message);
  reach('L1', attested.message);

  // L2: a live 402 probe of the manifest's x402 endpoint asks to pay a chain-verified address of the handle.
  const paid = await probePayTo(manifest, handle, state, outbound, name);
  if (!paid.ok) return stop('L2', paid.reason, paid.message);
  reach('L2', paid.message);
  return { ok: true, value: out };
}

type HandleState = {
  handle: HandleAccount;
  authority: Awaited<ReturnType<ChainReader['getHandleAuthority']>>;
  live: RecordAccount[];
  attestations: AttestationAccount[];
} | null;

/** The handle, its live records and its attestations, read at `confirmed` like the agents feature reads them. */
async function readHandleState(chain: ChainReader, name: string): Promise<HandleState> {
  const { value: handle } = await chain.getHandle(name, 'confirmed');
  if (!handle) return null;
  const [authority, records, attestations] = await Promise.all([
    chain.getHandleAuthority(handle, 'confirmed'),
    chain.getRecords(handle.address, 'confirmed'),
    chain.getAttestations(handle.address, 'confirmed'),
  ]);
  const live = records.filter((r) => isRecordLive(r, handle, authority));
  return { handle, authority, live, attestations };
}

function textRecord(live: RecordAccount[], key: string): string | undefined {
  return live.find((r) => r.kind === 'text' && r.key === key)?.value;
}

/** The endpoint records, for when the manifest failed and the agents feature returned none. */
function endpointRecords(live: RecordAccount[]): AgentEndpoints {
  const endpoints: AgentEndpoints = {};
  for (const [key, field] of Object.entries(AGENT_ENDPOINT_RECORDS)) {
    const value = textRecord(live, key);
    if (value !== undefined) endpoints[field] = value;
  }
  return endpoints;
}

type Check = { ok: true; message: string } | { ok: false; reason: LevelFailure; message: string };

function checkAttestation(
  manifest: AgentManifestV1,
  handle: HandleAccount,
  attestations: AttestationAccount[],
  name: string,
): Check {
  const address = manifest.identity?.attestation;
  if (!address) {
    return {
      ok: false,
      reason: 'no-attestation',
      message: 'the manifest references no attestation (identity.attestation)',
    };
  }
  const found = attestations.find((a) => a.address === address && a.handle === handle.address);
  if (!found) {
    return {
      ok: false,
      reason: 'attestation-not-found',
      message: `the manifest references attestation ${address}, which is not an attestation of @${name} on chain`,
    };
  }
  const what = `attestation ${address} (${found.platform}: ${found.subject}, issuer ${found.issuer})`;
  if (found.revoked) return { ok: false, reason: 'attestation-revoked', message: `${what} was revoked` };
  if (!isAttestationLive(found, Math.floor(Date.now() / 1000))) {
    return { ok: false, reason: 'attestation-expired', message: `${what} expired at ${found.expiresAt}` };
  }
  return { ok: true, message: `the manifest references ${what}, live on chain` };
}

async function probePayTo(
  manifest: AgentManifestV1,
  handle: HandleAccount,
  state: NonNullable<HandleState>,
  outbound: OutboundClient,
  name: string,
): Promise<Check> {
  const url = manifest.endpoints?.find((e) => e.type === 'x402')?.url;
  if (!url) return { ok: false, reason: 'no-x402-endpoint', message: 'the manifest lists no endpoint of type x402' };
  const verified = state.live
    .filter((r) => r.kind === 'address' && PAY_TO_RECORD_KEYS.includes(r.key))
    .filter((r) => isRecordVerified(r, handle, state.authority))
    .map((r) => r.value);
  if (verified.length === 0) {
    return {
      ok: false,
      reason: 'no-verified-payment-address',
      message: `@${name} has no signature-verified ${PAY_TO_RECORD_KEYS.join('/')} address record to pay`,
    };
  }

  let status: number;
  let challenge: unknown;
  try {
    const res = await outbound.probe(url, { maxBytes: MANIFEST_MAX_BYTES, timeoutMs: MANIFEST_TIMEOUT_MS });
    status = res.status;
    if (status >= 300 && status < 400) {
      const to = res.headers.location ? ` to ${res.headers.location.slice(0, 200)}` : '';
      return {
        ok: false,
        reason: 'probe-redirect',
        message: `${url} answered HTTP ${status}${to} (redirects are not followed)`,
      };
    }
    if (status !== 402) {
      return {
        ok: false,
        reason: 'probe-not-402',
        message: `${url} answered HTTP ${status}, not a 402 payment challenge`,
      };
    }
    challenge = readChallenge(res.headers['payment-required'], res.body);
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.kind === 'blocked_destination') {
      return { ok: false, reason: 'probe-blocked', message: `${url} is not an allowed destination (${err.message})` };
    }
    if (err.kind === 'body_too_large') {
      return {
        ok: false,
        reason: 'probe-invalid-challenge',
        message: `${url} answered a body over ${MANIFEST_MAX_BYTES} bytes`,
      };
    }
    return { ok: false, reason: 'probe-unreachable', message: `${url} is unreachable: ${err.message}` };
  }

  const parsed = ChallengeSchema.safeParse(challenge);
  if (!parsed.success) {
    return {
      ok: false,
      reason: 'probe-invalid-challenge',
      message: `${url} answered 402 without an x402 challenge ({x402Version, accepts: [{payTo}]})`,
    };
  }
  const payTos = parsed.data.accepts.map((a) => a.payTo);
  const match = payTos.find((p) => verified.includes(p));
  if (!match) {
    return {
      ok: false,
      reason: 'payto-mismatch',
      message: `${url} asks to pay ${payTos.join(', ')}; @${name}'s verified payment address is ${verified.join(', ')}`,
    };
  }
  return { ok: true, message: `${url} answered 402 asking to pay ${match}, a signature-verified address of @${name}` };
}

const ChallengeSchema = z.object({
  x402Version: z.number().int(),
  accepts: z.array(z.looseObject({ payTo: z.string() })).min(1),
});

/** The challenge: the PAYMENT-REQUIRED header (base64 JSON) when present, else the JSON body. */
function readChallenge(header: string | undefined, body: Buffer): unknown {
  try {
    return JSON.parse(header ? Buffer.from(header, 'base64').toString('utf8') : body.toString('utf8'));
  } catch {
    return null;
  }
}

function fail(code: string, message: string): ToolOutcome<Output> {
  return { ok: false, code, message };
}
