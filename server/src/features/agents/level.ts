// Agent verification levels (spec: "Agent verification levels (tool server)"; docs/mcp.md, docs/gate.md): L0
// declared (a live `agent.manifest` record), L1 attested (the manifest's identity.attestation is a live on-chain
// attestation of the handle), L2 pay-to confirmed (a live HTTP 402 probe of the manifest's x402 endpoint asks to pay
// a signature-verified address record of the handle). One implementation for the MCP tool get_agent_manifest and
// Gate's `agent.level` leaf: the highest level reached, what proved each, and why the next one failed.
import { z } from 'zod';
import {
  AGENT_ENDPOINT_RECORDS,
  AGENT_MANIFEST_RECORD,
  type AgentEndpoints,
  type AgentManifestV1,
  type AgentResolution,
  type LevelFailure,
} from '@sigil/contract/agents';
import { ApiError } from '@sigil/contract/errors';
import { AGENT_LEVELS } from '@sigil/contract/gate';
import { isAttestationLive, isRecordLive, isRecordVerified } from '../../platform/chain/trust-rules';
import {
  ChainError,
  type AttestationAccount,
  type ChainReader,
  type HandleAccount,
  type HandleAuthority,
  type RecordAccount,
} from '../../platform/chain/types';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';

/** The levels in order (the policy language's `agent.level {min}` names the same). */
export const LEVELS = AGENT_LEVELS;
export type AgentLevel = (typeof LEVELS)[number];

export interface AgentLevelReport {
  name: string;
  handle: HandleAccount;
  /** The context slot of the handle read the levels were judged on (`confirmed`). */
  slot: bigint;
  manifestUrl: string;
  endpoints: AgentEndpoints;
  /** Validated as GET /v1/agents/:handle validates it; null when it could not be fetched or is invalid. */
  manifest: AgentManifestV1 | null;
  /** The highest level reached. */
  level: AgentLevel;
  reached: { level: AgentLevel; reason: string }[];
  /** Why the next level was not reached; null at the level asked for. Higher levels were not checked. */
  next: { level: 'L1' | 'L2'; reason: LevelFailure; message: string } | null;
  /** The live attestation that proved L1: a decision resting on L1 or L2 must not outlive its expiry. */
  attestation?: AttestationAccount;
}

/** What the levels stand on: the agents service's reads and limits, and its resolve (L0 and the manifest). */
export interface LevelDeps {
  chain: ChainReader;
  outbound: OutboundClient;
  maxBytes: number;
  timeoutMs: number;
  resolve(name: string): Promise<AgentResolution>;
}

export interface AgentLevelOptions {
  /** Stop once this level is reached (default L2): a caller that needs only L1 sends no probe. */
  upTo?: 'L1' | 'L2';
  /** Unix seconds the attestation's expiry is judged against (default: now). */
  nowSec?: number;
}

/** Address-record keys whose value is an address a Solana-style x402 challenge can name as payTo. */
const PAY_TO_RECORD_KEYS = ['X1', 'SOL'];

/**
 * The levels the handle `name` (normalized) reaches. Throws ApiError for what is not an agent at all
 * (HANDLE_NOT_REGISTERED, NOT_AN_AGENT, NO_MANIFEST) and RPC_ERROR when the chain cannot be read; a manifest or
 * probe that fails is a level not reached (`next`), not a throw.
 */
export async function agentLevel(
  deps: LevelDeps,
  name: string,
  options: AgentLevelOptions = {},
): Promise<AgentLevelReport> {
  const upTo = options.upTo ?? 'L2';

  // L0 and the manifest: the agents feature decides what an agent is and whether its manifest is valid.
  let resolution: AgentResolution | null = null;
  let manifestProblem: { reason: LevelFailure; message: string } | null = null;
  try {
    resolution = await deps.resolve(name);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'MANIFEST_UNREACHABLE') manifestProblem = { reason: 'manifest-unreachable', message: err.message };
    else if (err.code === 'INVALID_MANIFEST') manifestProblem = { reason: 'manifest-invalid', message: err.message };
    else throw err;
  }

  let state: HandleState;
  try {
    state = await readHandleState(deps.chain, name);
  } catch (err) {
    if (err instanceof ChainError) throw new ApiError('RPC_ERROR', 'the chain RPC is unreachable');
    throw err;
  }
  if (!state) throw new ApiError('HANDLE_NOT_REGISTERED', `@${name} is not registered`);
  const { handle, live, attestations } = state;
  const manifestUrl = resolution?.manifestUrl ?? textRecord(live, AGENT_MANIFEST_RECORD) ?? '';

  const out: AgentLevelReport = {
    name,
    handle,
    slot: state.slot,
    manifestUrl,
    endpoints: resolution?.endpoints ?? endpointRecords(live),
    manifest: resolution?.manifest ?? null,
    level: 'L0',
    reached: [{ level: 'L0', reason: `@${name} has an ${AGENT_MANIFEST_RECORD} record: ${manifestUrl}` }],
    next: null,
  };
  const stop = (level: 'L1' | 'L2', reason: LevelFailure, message: string): AgentLevelReport => ({
    ...out,
    next: { level, reason, message },
  });
  const reach = (level: AgentLevel, reason: string) => {
    out.level = level;
    out.reached.push({ level, reason });
  };

  if (!resolution) return stop('L1', manifestProblem!.reason, manifestProblem!.message);
  const manifest = resolution.manifest;

  // L1: the attestation the manifest references is a live attestation of this handle.
  const nowSec = options.nowSec ?? Math.floor(Date.now() / 1000);
  const attested = checkAttestation(manifest, handle, attestations, name, nowSec);
  if (!attested.ok) return stop('L1', attested.reason, attested.message);
  reach('L1', attested.message);
  out.attestation = attested.attestation;
  if (upTo === 'L1') return out;

  // L2: a live 402 probe of the manifest's x402 endpoint asks to pay a chain-verified address of the handle.
  const paid = await probePayTo(deps, manifest, state, name);
  if (!paid.ok) return stop('L2', paid.reason, paid.message);
  reach('L2', paid.message);
  return out;
}

type HandleState = {
  handle: HandleAccount;
  slot: bigint;
  authority: HandleAuthority;
  live: RecordAccount[];
  attestations: AttestationAccount[];
} | null;

/** The handle, its live records and its attestations, read at `confirmed` like the agents feature reads them. */
async function readHandleState(chain: ChainReader, name: string): Promise<HandleState> {
  const { value: handle, slot } = await chain.getHandle(name, 'confirmed');
  if (!handle) return null;
  const [authority, records, attestations] = await Promise.all([
    chain.getHandleAuthority(handle, 'confirmed'),
    chain.getRecords(handle.address, 'confirmed'),
    chain.getAttestations(handle.address, 'confirmed'),
  ]);
  const live = records.filter((r) => isRecordLive(r, handle, authority));
  return { handle, slot, authority, live, attestations };
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

type Failed = { ok: false; reason: LevelFailure; message: string };

function checkAttestation(
  manifest: AgentManifestV1,
  handle: HandleAccount,
  attestations: AttestationAccount[],
  name: string,
  nowSec: number,
): { ok: true; message: string; attestation: AttestationAccount } | Failed {
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
  if (!isAttestationLive(found, nowSec)) {
    return { ok: false, reason: 'attestation-expired', message: `${what} expired at ${found.expiresAt}` };
  }
  return { ok: true, message: `the manifest references ${what}, live on chain`, attestation: found };
}

async function probePayTo(
  deps: LevelDeps,
  manifest: AgentManifestV1,
  state: NonNullable<HandleState>,
  name: string,
): Promise<{ ok: true; message: string } | Failed> {
  const { handle } = state;
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
    // The manifest's limits: a 402 challenge is a small JSON document too.
    const res = await deps.outbound.probe(url, { maxBytes: deps.maxBytes, timeoutMs: deps.timeoutMs });
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
        message: `${url} answered a body over ${deps.maxBytes} bytes`,
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
