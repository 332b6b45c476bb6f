// Agent resolution (spec: Agent resolution result, Agents): is the handle an agent, which endpoints do its live
// records advertise, and does its off-chain manifest agree with the chain. See docs/agents.md.
import {
  AGENT_ENDPOINT_RECORDS,
  AGENT_HANDLE_TYPE,
  AGENT_MANIFEST_RECORD,
  COIN_TYPE_RECORD_KEYS,
  identityProblems,
  parseManifest,
  sameCoinAddress,
  validateManifest,
  type AgentEndpoints,
  type AgentManifestV1,
  type AgentResolution,
  type ManifestProblem,
  type ValidateManifestResult,
} from '@sigil/contract/agents';
import { ApiError } from '@sigil/contract/errors';
import { parseHandle } from '@sigil/contract/names';
import { findHandlePda } from '../../platform/chain/registry';
import { isHandleReleased, isRecordLive, isRecordVerified } from '../../platform/chain/trust-rules';
import {
  ChainError,
  type ChainReader,
  type HandleAccount,
  type HandleAuthority,
  type RecordAccount,
} from '../../platform/chain/types';
import { OutboundError, type OutboundClient } from '../../platform/outbound/client';
import { agentLevel, type AgentLevelOptions, type AgentLevelReport } from './level';

export type ManifestNetwork = 'mainnet' | 'testnet';

/** A manifest is a small JSON document; anything larger is refused while streaming. */
export const MANIFEST_MAX_BYTES = 64 * 1024;
/** Per attempt; with the one retry the worst case stays well under a typical client timeout. */
export const MANIFEST_TIMEOUT_MS = 5_000;

export interface AgentServiceDeps {
  chain: ChainReader;
  outbound: OutboundClient;
  /** The network this deployment serves (`sigil.network` must match). */
  network: ManifestNetwork;
  /** Base URL of an IPFS HTTP gateway (`https://gateway.example`); unset → `ipfs://` manifests are unreachable. */
  ipfsGateway?: string;
  maxBytes?: number;
  timeoutMs?: number;
}

export interface AgentService {
  resolve(handleInput: string): Promise<AgentResolution>;
  /** Pure: shape and identity only, no RPC (the handle account is derived, not read). */
  validate(handleInput: string, manifest: unknown): Promise<ValidateManifestResult>;
  /** The verification level reached (L0 declared, L1 attested, L2 pay-to confirmed): level.ts. */
  level(handleInput: string, options?: AgentLevelOptions): Promise<AgentLevelReport>;
}

/** AgentServiceDeps with the defaults applied: what the verbs take first. */
export type AgentDeps = AgentServiceDeps & { maxBytes: number; timeoutMs: number };

export function createAgentService(options: AgentServiceDeps): AgentService {
  const deps: AgentDeps = {
    ...options,
    maxBytes: options.maxBytes ?? MANIFEST_MAX_BYTES,
    timeoutMs: options.timeoutMs ?? MANIFEST_TIMEOUT_MS,
  };
  return {
    resolve: (handleInput) => resolveAgent(deps, handleInput),
    validate: (handleInput, manifest) => validateAgentManifest(deps, handleInput, manifest),
    level: async (handleInput, levelOptions) =>
      agentLevel({ ...deps, resolve: (name) => resolveAgent(deps, name) }, requireHandle(handleInput), levelOptions),
  };
}

export async function resolveAgent(deps: AgentDeps, handleInput: string): Promise<AgentResolution> {
  const name = requireHandle(handleInput);
  const { handle, authority, records } = await readHandle(deps, name);
  const live = records.filter((r) => isRecordLive(r, handle, authority));
  const text = (key: string) => live.find((r) => r.kind === 'text' && r.key === key)?.value;

  const manifestUrl = text(AGENT_MANIFEST_RECORD);
  if (handle.handleType !== AGENT_HANDLE_TYPE && manifestUrl === undefined) {
    const why = `@${name} is not an agent (handle type ${handle.handleType}, no ${AGENT_MANIFEST_RECORD} record)`;
    throw new ApiError('NOT_AN_AGENT', why);
  }
  if (manifestUrl === undefined) {
    throw new ApiError('NO_MANIFEST', `@${name} is an agent without an ${AGENT_MANIFEST_RECORD} record`);
  }

  const endpoints: AgentEndpoints = {};
  for (const [key, field] of Object.entries(AGENT_ENDPOINT_RECORDS)) {
    const value = text(key);
    if (value !== undefined) endpoints[field] = value;
  }

  const document = await fetchManifest(deps, manifestUrl);
  const manifest = checkAgainstChain(deps, name, handle, authority, live, document);
  return { name, handle: handle.address, handleType: handle.handleType, agent: true, manifestUrl, endpoints, manifest };
}

/** Pure: shape and identity only, no RPC (the handle account is derived, not read). */
export async function validateAgentManifest(
  deps: AgentDeps,
  handleInput: string,
  manifest: unknown,
): Promise<ValidateManifestResult> {
  const name = requireHandle(handleInput);
  const [handleAccount] = await findHandlePda(deps.chain.programId, name);
  return validateManifest(name, manifest, { expectedNetwork: deps.network, expectedHandleAccount: handleAccount });
}

async function readHandle(
  deps: AgentDeps,
  name: string,
): Promise<{ handle: HandleAccount; authority: HandleAuthority; records: RecordAccount[] }> {
  const { chain } = deps;
  try {
    const { value: handle } = await chain.getHandle(name, 'confirmed');
    if (!handle || isHandleReleased(handle)) throw new ApiError('HANDLE_NOT_REGISTERED', `@${name} is not registered`);
    const [authority, records] = await Promise.all([
      chain.getHandleAuthority(handle, 'confirmed'),
      chain.getRecords(handle.address, 'confirmed'),
    ]);
    // A burned NFT leaves nobody in control: nothing the handle says can be trusted.
    if (!authority.authority) {
      throw new ApiError('HANDLE_NOT_REGISTERED', `@${name} has no current authority (${authority.reason})`);
    }
    return { handle, authority, records };
  } catch (err) {
    throw chainToApiError(err);
  }
}

/** GETs the manifest; one internal retry on a transient failure. */
async function fetchManifest(deps: AgentDeps, manifestUrl: string): Promise<unknown> {
  const url = fetchUrl(manifestUrl, deps.ipfsGateway);
  let lastError: OutboundError | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return (await deps.outbound.getJson(url, { maxBytes: deps.maxBytes, timeoutMs: deps.timeoutMs })).json;
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      lastError = err;
      if (!isTransient(err)) break;
    }
  }
  throw manifestFetchError(manifestUrl, lastError!, deps.maxBytes);
}

function checkAgainstChain(
  deps: AgentDeps,
  name: string,
  handle: HandleAccount,
  authority: HandleAuthority,
  live: RecordAccount[],
  document: unknown,
): AgentManifestV1 {
  const parsed = parseManifest(document);
  if (!parsed.ok) throw invalidManifest(parsed.problems);
  const manifest = parsed.manifest;
  const expected = { expectedNetwork: deps.network, expectedHandleAccount: handle.address };
  const problems = identityProblems(name, manifest, expected);
  // The signature-verified on-chain address record is the pay-to authority: a `verified: true` claim must match it.
  manifest.payment?.addresses?.forEach((item, i) => {
    const key = COIN_TYPE_RECORD_KEYS[item.coinType];
    if (!item.verified || !key) return; // unknown coin types were reported by identityProblems
    const record = live.find((r) => r.kind === 'address' && r.key === key);
    const verified = record !== undefined && isRecordVerified(record, handle, authority);
    if (!verified || !sameCoinAddress(item.coinType, record.value, item.address)) {
      problems.push({
        path: `payment.addresses[${i}].verified`,
        message: `claims ${item.address} is verified, but @${name} has no signature-verified ${key} record for it`,
      });
    }
  });
  if (problems.length > 0) throw invalidManifest(problems);
  return manifest;
}

function requireHandle(input: string): string {
  const name = parseHandle(input);
  if (name === null) throw new ApiError('INVALID_HANDLE', `"${input.slice(0, 80)}" is not a valid handle`);
  return name;
}

function chainToApiError(err: unknown): unknown {
  if (err instanceof ChainError) {
    return new ApiError(
      'RPC_ERROR',
      err.kind === 'malformed' ? 'the chain returned an account that does not decode' : 'the chain RPC is unreachable',
    );
  }
  return err;
}

const IPFS_PATH = /^[A-Za-z0-9]+(?:\/[A-Za-z0-9._~-]+)*\/?$/;

/** The URL actually fetched: https as is; `ipfs://<cid>[/path]` through the configured gateway. */
export function fetchUrl(manifestUrl: string, ipfsGateway: string | undefined): string {
  if (manifestUrl.startsWith('https://')) return manifestUrl;
  if (manifestUrl.startsWith('ipfs://')) {
    const rest = manifestUrl.slice('ipfs://'.length).replace(/^ipfs\//, '');
    if (!IPFS_PATH.test(rest) || rest.split('/').some((s) => s === '.' || s === '..')) {
      throw new ApiError(
        'INVALID_MANIFEST',
        `the ${AGENT_MANIFEST_RECORD} record "${manifestUrl.slice(0, 200)}" is not a valid ipfs:// URL`,
      );
    }
    if (!ipfsGateway) {
      throw new ApiError(
        'MANIFEST_UNREACHABLE',
        `manifest ${manifestUrl} is unreachable: this deployment has no IPFS gateway configured`,
      );
    }
    return `${ipfsGateway.replace(/\/+$/, '')}/ipfs/${rest}`;
  }
  throw new ApiError(
    'INVALID_MANIFEST',
    `the ${AGENT_MANIFEST_RECORD} record "${manifestUrl.slice(0, 200)}" is not an https:// or ipfs:// URL`,
  );
}

/** Worth one more try: the network or the server hiccupped. A refusal by policy, TLS or content is final. */
function isTransient(err: OutboundError): boolean {
  if (err.kind === 'http_status') return err.status === undefined || err.status >= 500 || err.status === 429;
  return (
    err.kind === 'timeout' ||
    err.kind === 'connect_failed' ||
    err.kind === 'connection_closed' ||
    err.kind === 'dns_failed'
  );
}

/**
 * Transport failures (no document) → 424 MANIFEST_UNREACHABLE, naming the cause; a response that is not a
 * manifest document (not JSON, too large, bad JSON) → 422 INVALID_MANIFEST.
 */
function manifestFetchError(manifestUrl: string, err: OutboundError, maxBytes: number): ApiError {
  const unreachable = (cause: string) =>
    new ApiError('MANIFEST_UNREACHABLE', `manifest ${manifestUrl} is unreachable: ${cause}`);
  switch (err.kind) {
    case 'dns_failed':
      return unreachable('host did not resolve');
    case 'connect_failed':
      return unreachable(/ECONNREFUSED/.test(err.message) ? 'connection refused' : err.message);
    case 'timeout':
      return unreachable('timed out');
    case 'tls_failed':
      return unreachable(`TLS certificate unverifiable (${err.message.replace(/^TLS failed \((.*)\)$/, '$1')})`);
    case 'connection_closed':
      return unreachable('the server closed the connection before answering');
    case 'blocked_destination':
      return unreachable(`destination not allowed (${err.message})`);
    case 'http_status':
      return unreachable(
        err.status !== undefined && err.status >= 300 && err.status < 400
          ? `answered HTTP ${err.status} (redirects are not followed)`
          : `answered HTTP ${err.status}`,
      );
    case 'not_json':
      return new ApiError('INVALID_MANIFEST', `manifest ${manifestUrl} is not JSON: ${err.message}`);
    case 'body_too_large':
      return new ApiError('INVALID_MANIFEST', `manifest ${manifestUrl} is larger than ${maxBytes} bytes`);
    case 'invalid_json':
      return new ApiError('INVALID_MANIFEST', `manifest ${manifestUrl} is not valid JSON`);
  }
}

function invalidManifest(problems: ManifestProblem[]): ApiError {
  const shown = problems
    .slice(0, 5)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  return new ApiError('INVALID_MANIFEST', `manifest does not match the handle: ${shown}${more}`);
}
