// Universal resolution (spec: Universal resolution result, Resolution endpoints): every name through one entry
// point, classified strictly by shape, answered by exactly one namespace adapter, never a fallback. docs/universal.md.
import { ApiError, type V1ErrorCode } from '@sigil/contract/errors';
import {
  classifyUniversal,
  defaultChainOf,
  NAMESPACE_SOURCE,
  namespaceOf,
  UNIVERSAL_CHAINS,
  type BatchItem,
  type BatchResolveResult,
  type UniversalChain,
  type UniversalResult,
  type V1Resolution,
} from '@sigil/contract/universal';
import { ChainError, type ChainReader } from '../../platform/chain/types';
import { createReadCache, type ReadCache } from '../../platform/cache';
import type { EnsAdapter } from './ens';
import { readNativeDomain, readNativeHandle, type HandleRead, type NativeName } from './native';
import type { SnsAdapter } from './sns';

export interface UniversalServiceDeps {
  chain: ChainReader;
  suffixes: readonly string[];
  /** Present only when SIGIL_SOL_RPC_URL is configured. */
  sns?: SnsAdapter;
  /** Present only when SIGIL_ETH_RPC_URL is configured. */
  ens?: EnsAdapter;
  /** Names resolved at once by a batch. Default 8. */
  batchConcurrency?: number;
  /** Native reads answered from memory for at most the public path's staleness bound (createNativeCache). */
  natives?: ReadCache<NativeOutcome>;
}

/** A cached native read: the name, or its definitive 4xx (not registered). RPC failures are thrown, never kept. */
export type NativeOutcome =
  { ok: true; value: NativeName } | { ok: false; error: { code: V1ErrorCode; message: string } };

/**
 * The keyed face's bounded cache: the public resolve's bound (`SIGIL_RESOLVE_CACHE_MS`) and the same single-flight
 * (concurrent misses of one name share one read), so a warm keyed resolve costs no RPC call. The answer keeps the
 * slot it was read at, which is what `slot` states.
 */
export function createNativeCache(ttlMs: number): ReadCache<NativeOutcome> {
  return createReadCache<NativeOutcome>({ ttlMs });
}

export interface UniversalService {
  /** GET /v1/resolve-universal/:name?chain= */
  resolveUniversal(input: string, chain?: string): Promise<UniversalResult>;
  /**
   * GET /v1/resolve/:name — native names with records and the slot of the read. `replay.until` is set to when the
   * cached read behind the answer leaves the staleness bound (RequestContext.replay).
   */
  resolve(input: string, replay?: ReplayWindow): Promise<V1Resolution>;
  /** POST /v1/resolve/batch — one item per name, in order; errors are items, never a failed batch. */
  resolveBatch(names: string[], chain?: string): Promise<BatchResolveResult>;
}

/** Where resolve reports when (`performance.now()`) the cached read behind its answer leaves the staleness bound. */
interface ReplayWindow {
  until?: number;
}

export function parseChain(chain: string | undefined): UniversalChain | undefined {
  if (chain === undefined || chain === '') return undefined;
  const upper = chain.toUpperCase();
  if (!(UNIVERSAL_CHAINS as readonly string[]).includes(upper)) {
    throw new ApiError('BAD_REQUEST', `chain must be X1, SOL, ETH or BTC (got "${chain.slice(0, 20)}")`);
  }
  return upper as UniversalChain;
}

/** The bounded cache's key of a native read. */
function nativeKey(
  cls: { kind: 'handle'; name: string } | { kind: 'domain'; label: string; tld: string },
  withRecords: boolean,
): string {
  return cls.kind === 'handle'
    ? `handle:${cls.name}:${withRecords ? 'records' : 'bare'}`
    : `domain:${cls.label}.${cls.tld}`;
}

/**
 * A handle or registry domain, through the bounded cache when there is one. `readAhead`: a batch's handle reads.
 * `replay`: told when the cached read leaves the bound (left unset without a cache: the read is fresh).
 */
async function readNative(
  deps: UniversalServiceDeps,
  cls: { kind: 'handle'; name: string } | { kind: 'domain'; label: string; tld: string },
  withRecords: boolean,
  readAhead?: Map<string, HandleRead>,
  replay?: ReplayWindow,
): Promise<NativeName> {
  const read = () =>
    cls.kind === 'handle'
      ? readNativeHandle(deps.chain, cls.name, withRecords, readAhead?.get(cls.name))
      : readNativeDomain(deps.chain, cls.label, cls.tld);
  if (!deps.natives) return read();
  const key = nativeKey(cls, withRecords);
  const outcome = await deps.natives.get(key, async () => {
    try {
      return { ok: true, value: await read() };
    } catch (err) {
      if (err instanceof ApiError && err.code !== 'RPC_ERROR')
        return { ok: false, error: { code: err.code, message: err.message } };
      throw err;
    }
  });
  if (replay) replay.until = deps.natives.expiresAt(key);
  if (!outcome.ok) throw new ApiError(outcome.error.code, outcome.error.message);
  return outcome.value;
}

export function createUniversalService(deps: UniversalServiceDeps): UniversalService {
  return {
    resolveUniversal: (input, chain) => resolveUniversal(deps, input, chain),
    resolve: (input, replay) => resolveNative(deps, input, replay),
    resolveBatch: (names, chain) => resolveBatch(deps, names, chain),
  };
}

/** GET /v1/resolve-universal/:name?chain= — exactly one namespace adapter answers. */
export async function resolveUniversal(
  deps: UniversalServiceDeps,
  input: string,
  chainParam?: string,
  readAhead?: Map<string, HandleRead>,
): Promise<UniversalResult> {
  const requested = parseChain(chainParam);
  const cls = classifyUniversal(input, deps.suffixes);
  if (cls.kind === 'refused') throw new ApiError(cls.code, `"${input.slice(0, 100)}": ${cls.reason}`);
  const target = requested ?? defaultChainOf(cls.kind);
  const namespace = namespaceOf(cls);
  const noRecord = (name: string) => new ApiError('NO_RECORD_FOR_CHAIN', `${name} has no ${target} address`);

  switch (cls.kind) {
    case 'handle': {
      const handle = await readNative(deps, cls, target !== 'X1', readAhead);
      if (target === 'X1') return result(input, handle.name, namespace, handle.authority, target, 'native', true);
      const record = handle.addresses.find((r) => r.chain === target);
      if (!record) throw noRecord(`@${handle.name}`);
      return result(input, handle.name, namespace, record.address, target, 'native', record.verified);
    }
    case 'domain': {
      const domain = await readNative(deps, cls, false);
      if (target !== 'X1') throw noRecord(domain.name); // registry domains carry no address records
      return result(input, domain.name, namespace, domain.authority, target, 'native', true);
    }
    case 'sol': {
      if (!deps.sns) {
        const why = 'the sol namespace (Solana Name Service) is not enabled on this deployment';
        throw new ApiError('NOT_CONFIGURED', why);
      }
      if (target !== 'SOL') throw noRecord(cls.name);
      const answer = await deps.sns.resolveSol(cls.labels);
      return result(input, cls.name, namespace, answer.address, target, 'sol', answer.verified);
    }
    case 'eth': {
      if (!deps.ens) throw new ApiError('NOT_CONFIGURED', 'the eth namespace (ENS) is not enabled on this deployment');
      const answer = await deps.ens.resolve(cls.name, target);
      return result(input, answer.name, namespace, answer.address, target, 'eth', answer.verified);
    }
  }
}

/** GET /v1/resolve/:name — native names only, with records and the slot of the read. */
export async function resolveNative(
  deps: UniversalServiceDeps,
  input: string,
  replay?: ReplayWindow,
): Promise<V1Resolution> {
  const cls = classifyUniversal(input, deps.suffixes);
  if (cls.kind === 'refused') throw new ApiError(cls.code, `"${input.slice(0, 100)}": ${cls.reason}`);
  if (cls.kind === 'sol' || cls.kind === 'eth') {
    throw new ApiError('INVALID_NAME', `"${input.slice(0, 100)}" is a ${cls.kind} name: use /v1/resolve-universal`);
  }
  const native = await readNative(deps, cls, true, undefined, replay);
  return {
    input,
    name: native.name,
    namespace: native.namespace,
    owner: native.owner,
    tokenized: native.tokenized,
    verification: native.tokenized ? 'nft-holder' : 'owner',
    authority: native.authority,
    handleType: native.handleType,
    addresses: native.addresses,
    slot: Number(native.slot),
  };
}

/** POST /v1/resolve/batch — one item per name, in order; errors are items, never a failed batch. */
export async function resolveBatch(
  deps: UniversalServiceDeps,
  names: string[],
  chainParam?: string,
): Promise<BatchResolveResult> {
  const requested = parseChain(chainParam); // a bad chain refuses the whole request (400), as the single endpoint would
  const unique = [...new Set(names)];
  const readAhead = readHandlesAhead(deps, unique, (requested ?? 'X1') !== 'X1');
  const answers = new Map<string, BatchItem>();
  let next = 0;
  const worker = async () => {
    while (next < unique.length) {
      const input = unique[next++]!;
      try {
        answers.set(input, { input, ok: true, result: await resolveUniversal(deps, input, chainParam, readAhead) });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        answers.set(input, { input, ok: false, error: { status: err.status, code: err.code, message: err.message } });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.batchConcurrency ?? 8, unique.length) }, worker));
  return { results: names.map((input) => answers.get(input)!) };
}

/**
 * The handle accounts a batch needs, read ahead in one getMultipleAccounts per 100 handles (instead of one
 * getAccountInfo per name): every handle-shaped name the bounded cache does not hold. Each entry answers what
 * getHandle would (a failed read fails every name of it, as it would have failed each of them).
 */
function readHandlesAhead(
  deps: UniversalServiceDeps,
  inputs: readonly string[],
  withRecords: boolean,
): Map<string, HandleRead> {
  const names = new Set<string>();
  const now = performance.now();
  for (const input of inputs) {
    const cls = classifyUniversal(input, deps.suffixes);
    if (cls.kind !== 'handle') continue;
    const expires = deps.natives?.expiresAt(nativeKey(cls, withRecords)) ?? Infinity;
    if (expires === Infinity || expires <= now) names.add(cls.name); // Infinity: a cache that keeps nothing
  }
  const ahead = new Map<string, HandleRead>();
  const all = [...names];
  for (let at = 0; at < all.length; at += MAX_HANDLES_PER_READ) {
    const chunk = all.slice(at, at + MAX_HANDLES_PER_READ);
    const read = deps.chain.getHandles(chunk, { commitment: 'confirmed' });
    read.catch(() => undefined); // each name's read reports the failure; none may go unhandled
    chunk.forEach((name, i) =>
      ahead.set(
        name,
        read.then(({ value, slot }) => {
          const entry = value[i];
          if (entry instanceof ChainError) throw entry;
          return { value: entry ?? null, slot };
        }),
      ),
    );
  }
  return ahead;
}

/** One getMultipleAccounts reads at most this many accounts. */
const MAX_HANDLES_PER_READ = 100;

function result(
  input: string,
  name: string,
  namespace: UniversalResult['namespace'],
  address: string,
  chain: UniversalChain,
  source: keyof typeof NAMESPACE_SOURCE,
  verified: boolean,
): UniversalResult {
  return { input, name, namespace, address, chain, source: NAMESPACE_SOURCE[source], verified };
}
