// get_agent_manifest: is the handle an agent, what does its manifest say (validated by the agents feature, exactly
// as GET /v1/agents/:handle validates it), and which verification level does it reach — L0 declared, L1 attested,
// L2 pay-to confirmed by a live 402 probe. Reports the level reached and, for the next one, why it failed.
// docs/mcp.md.
import { z } from 'zod';
import { AgentEndpointsSchema, AgentManifestV1Schema, LEVEL_FAILURES } from '@sigil/contract/agents';
import { ApiError } from '@sigil/contract/errors';
import { parseHandle } from '@sigil/contract/names';
import { createAgentService, LEVELS, type AgentLevelReport, type ManifestNetwork } from '../../features/agents/index';
import type { ChainReader } from '../../platform/chain/types';
import type { OutboundClient } from '../../platform/outbound/client';
import type { ToolDefinition, ToolOutcome } from '../tool';

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
  // The levels are the agents feature's (one implementation with Gate's agent.level leaf).
  let report: AgentLevelReport;
  try {
    report = await createAgentService({ chain, outbound, ...settings }).level(name);
  } catch (err) {
    if (err instanceof ApiError) return fail(err.code, err.message);
    throw err;
  }
  return {
    ok: true,
    value: {
      name: report.name,
      handle: report.handle.address,
      handleType: report.handle.handleType,
      agent: true,
      manifestUrl: report.manifestUrl,
      endpoints: report.endpoints,
      manifest: report.manifest,
      level: report.level,
      reached: report.reached,
      next: report.next,
    },
  };
}

function fail(code: string, message: string): ToolOutcome<Output> {
  return { ok: false, code, message };
}
