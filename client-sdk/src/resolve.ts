// Resolve helpers with the spec's client-library semantics ("Client-library equivalents" under the public resolve
// errors): a failure is classified as unrecognized, ambiguous, invalid-handle, invalid-domain, not-found (optional
// reason nft-burned), no-record-for-chain or rpc-error (Sigil answered that the chain RPC failed); ours besides:
// sigil-unreachable (Sigil itself did not answer) and request-failed. A reverse lookup without a primary is `null`,
// not an error; only transport errors (502, or no answer to a GET) are retried, by the client's retry policy.
import type { SigilClient, SigilFailure } from './client';
import type { components } from './generated/openapi';

export type ResolveFailureKind =
  | 'unrecognized'
  | 'ambiguous'
  | 'invalid-handle'
  | 'invalid-domain'
  | 'not-found'
  | 'no-record-for-chain'
  | 'rpc-error';

export interface ResolveFailure extends SigilFailure {
  /**
   * The spec's classification, or one of ours: `sigil-unreachable` when Sigil itself gave no answer (network error,
   * timeout, or a 5xx from something in front of it that is not Sigil's JSON), `request-failed` when the request
   * itself was refused (key, rate limit, payment, body size) or Sigil failed (500).
   */
  kind: ResolveFailureKind | 'sigil-unreachable' | 'request-failed';
  /** Only with kind `not-found`: the name exists but its NFT was burned, so nobody controls it. */
  reason?: 'nft-burned';
}

export type ResolveOutcome<T> = { ok: true; data: T } | ResolveFailure;

/** Both faces' codes for one condition (public `error` text, `/v1` code) → the client-library kind. */
const KINDS: Record<string, ResolveFailureKind> = {
  'ambiguous: both a handle and a domain shape': 'ambiguous',
  AMBIGUOUS: 'ambiguous',
  'invalid handle': 'invalid-handle',
  INVALID_HANDLE: 'invalid-handle',
  'invalid domain': 'invalid-domain',
  INVALID_DOMAIN: 'invalid-domain',
  'bad request': 'unrecognized',
  'invalid address': 'unrecognized',
  INVALID_NAME: 'unrecognized',
  'handle not registered': 'not-found',
  HANDLE_NOT_REGISTERED: 'not-found',
  'domain not registered': 'not-found',
  DOMAIN_NOT_REGISTERED: 'not-found',
  NAME_NOT_FOUND: 'not-found',
  NO_RECORD_FOR_CHAIN: 'no-record-for-chain',
};

/**
 * Classifies one failure of a resolve-family call. `unsendable` is the kind of a value the client did not send
 * because a URL path cannot carry it (INVALID_PATH_PARAMETER: `''`, `.`, `..`): the kind the service gives any other
 * malformed value of that helper (`...` is an invalid handle to the resolvers, an invalid address to the reverse).
 */
export function classifyResolveFailure(
  failure: SigilFailure,
  unsendable: ResolveFailureKind = 'invalid-handle',
): ResolveFailure {
  const kind = failure.code === 'INVALID_PATH_PARAMETER' ? unsendable : (KINDS[failure.code] ?? transportKind(failure));
  // The /v1 message names why nobody controls an existing name: "… has no current authority (nft-burned)".
  const burned = kind === 'not-found' && failure.message.endsWith('(nft-burned)');
  return { ...failure, kind, ...(burned ? { reason: 'nft-burned' as const } : {}) };
}

/** No answer, or a gateway's page: Sigil unreachable. Sigil's own 502 body: the chain RPC failed. */
function transportKind(failure: SigilFailure): ResolveFailure['kind'] {
  if (failure.status === 0) return 'sigil-unreachable';
  if (failure.status >= 500 && failure.code === 'UNEXPECTED_RESPONSE') return 'sigil-unreachable';
  return failure.status === 502 ? 'rpc-error' : 'request-failed';
}

export type Resolution = components['schemas']['Resolution'];
export type UniversalResult = components['schemas']['UniversalResult'];
export type UniversalChain = 'X1' | 'SOL' | 'ETH' | 'BTC';

/** GET /resolve/{name} (public, keyless): a handle (`@` optional) or a registry domain → its owner. */
export async function resolveName(client: SigilClient, name: string): Promise<ResolveOutcome<Resolution>> {
  const result = await client.GET('/resolve/{name}', { params: { path: { name } } });
  return result.ok ? { ok: true, data: result.data } : classifyResolveFailure(result);
}

/** GET /v1/resolve-universal/{name} (keyed or x402): any name → its address on `chain` (default: its own). */
export async function resolveAddress(
  client: SigilClient,
  name: string,
  chain?: UniversalChain,
): Promise<ResolveOutcome<UniversalResult>> {
  const result = await client.GET('/v1/resolve-universal/{name}', {
    params: { path: { name }, ...(chain ? { query: { chain } } : {}) },
  });
  return result.ok ? { ok: true, data: result.data } : classifyResolveFailure(result);
}

export type ReverseResult = { input: string; address: string; handle: string };

/** GET /reverse/{address} (public): the wallet's trusted primary handle, or `null` when it has none. */
export async function reverseLookup(
  client: SigilClient,
  address: string,
): Promise<ResolveOutcome<ReverseResult | null>> {
  const result = await client.GET('/reverse/{address}', { params: { path: { address } } });
  if (result.ok) return { ok: true, data: result.data as ReverseResult };
  if (result.code === 'no primary set') return { ok: true, data: null };
  return classifyResolveFailure(result, 'unrecognized');
}
