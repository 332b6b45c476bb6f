// Public resolution: name → owner, wallet → primary handle (spec: Public resolution, Errors → Public resolve).
// Reads go through the ChainReader only; answers are cached for a short, bounded time (docs/benchmarks.md).
import type { Address } from '@solana/kit';
import { PublicError, type PublicErrorKey } from '@sigil/contract/errors';
import { NAME_CLASS_ERRORS, classifyName, isBase58Address } from '@sigil/contract/names';
import type { Resolution, ReverseResult } from '@sigil/contract/public';
import { ChainError, type ChainReader, type HandleAccount } from '../../platform/chain/types';
import { primaryTrusted, ZERO_ADDRESS } from '../../platform/chain/trust-rules';
import { createReadCache, type ReadCache } from '../../platform/cache';

/** A cached outcome: a definitive answer (found, or a 4xx refusal). Transient failures are thrown, never cached. */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: PublicErrorKey };

/**
 * Where the verbs report when (`performance.now()`) the cached chain outcome behind their answer (or refusal) leaves
 * the staleness bound, so an answer replayed downstream never outlives it (RequestContext.replay).
 */
interface ReplayWindow {
  until?: number;
}

export interface ResolveService {
  resolve(input: string, replay?: ReplayWindow): Promise<Resolution>;
  reverse(input: string, replay?: ReplayWindow): Promise<ReverseResult>;
  /**
   * The wallet's trusted primary handle account (same rules and cache as `reverse`), or null when it has none.
   * For callers that need the account too (Connect), so it is not read a second time by name.
   */
  primaryHandle(wallet: string): Promise<HandleAccount | null>;
}

/** What the resolve verbs take first: the chain, the domain suffixes, and the two short-lived answer caches. */
export interface ResolveDeps {
  chain: ChainReader;
  suffixes: readonly string[];
  names: ReadCache<Outcome<Omit<Resolution, 'input'>>>;
  primaries: ReadCache<Outcome<HandleAccount>>;
}

export function createResolveService(options: {
  chain: ChainReader;
  suffixes: readonly string[];
  cacheTtlMs: number;
}): ResolveService {
  const deps: ResolveDeps = {
    chain: options.chain,
    suffixes: options.suffixes,
    names: createReadCache({ ttlMs: options.cacheTtlMs }),
    primaries: createReadCache({ ttlMs: options.cacheTtlMs }),
  };
  return {
    resolve: (input, replay) => resolveName(deps, input, replay),
    reverse: (input, replay) => reverseAddress(deps, input, replay),
    primaryHandle: (wallet) => primaryHandle(deps, wallet),
  };
}

/** GET /resolve/{name}: the owner of a handle or domain. */
export function resolveName(deps: ResolveDeps, input: string, replay?: ReplayWindow): Promise<Resolution> {
  return withInput(input, async () => {
    const outcome = await lookupName(deps, input, replay);
    if (!outcome.ok) throw new PublicError(outcome.error);
    return { input, ...outcome.value };
  });
}

/** GET /reverse/{address}: the wallet's trusted primary handle. */
export function reverseAddress(deps: ResolveDeps, input: string, replay?: ReplayWindow): Promise<ReverseResult> {
  return withInput(input, async () => {
    if (!isBase58Address(input)) throw new PublicError('INVALID_ADDRESS');
    const outcome = await deps.primaries.get(input, () => readPrimary(deps.chain, input as Address));
    if (replay) replay.until = deps.primaries.expiresAt(input);
    if (!outcome.ok) throw new PublicError(outcome.error);
    return { input, address: input, handle: outcome.value.name };
  });
}

/** ResolveService.primaryHandle: the trusted primary's account (cached like reverse), or null. */
export async function primaryHandle(deps: ResolveDeps, wallet: string): Promise<HandleAccount | null> {
  if (!isBase58Address(wallet)) return null;
  const outcome = await deps.primaries.get(wallet, () => readPrimary(deps.chain, wallet as Address));
  return outcome.ok ? outcome.value : null;
}

async function lookupName(
  deps: ResolveDeps,
  input: string,
  replay?: ReplayWindow,
): Promise<Outcome<Omit<Resolution, 'input'>>> {
  const cls = classifyName(input, deps.suffixes);
  // A refusal of the spelling itself reads nothing: it stays true for as long as anyone replays it.
  if (cls.kind !== 'handle' && cls.kind !== 'domain') return { ok: false, error: NAME_CLASS_ERRORS[cls.kind] };
  const key = `${cls.kind}:${cls.name}`;
  const outcome = await deps.names.get(key, () =>
    withChainErrors('MALFORMED_ACCOUNT', () =>
      cls.kind === 'handle' ? readHandle(deps.chain, cls.name) : readDomain(deps.chain, cls.label, cls.tld),
    ),
  );
  if (replay) replay.until = deps.names.expiresAt(key);
  return outcome;
}

async function readHandle(chain: ChainReader, name: string): Promise<Outcome<Omit<Resolution, 'input'>>> {
  const { value: handle } = await chain.getHandle(name, 'confirmed');
  if (!handle || handle.owner === ZERO_ADDRESS) return { ok: false, error: 'HANDLE_NOT_REGISTERED' };
  if (handle.tokenized) {
    // Authority follows the NFT; a burned NFT leaves nobody in control, so the name is not resolvable.
    const authority = await chain.getHandleAuthority(handle, 'confirmed');
    if (!authority.authority) return { ok: false, error: 'HANDLE_NOT_REGISTERED' };
  }
  return {
    ok: true,
    value: {
      name: handle.name,
      namespace: 'handle',
      owner: handle.owner,
      tokenized: handle.tokenized,
      verification: handle.tokenized ? 'nft-holder' : 'owner',
    },
  };
}

async function readDomain(chain: ChainReader, label: string, tld: string): Promise<Outcome<Omit<Resolution, 'input'>>> {
  const { value: domain } = await chain.getDomain(label, tld, 'confirmed');
  if (!domain || domain.owner === ZERO_ADDRESS) return { ok: false, error: 'DOMAIN_NOT_REGISTERED' };
  return {
    ok: true,
    value: {
      name: `${domain.label}.${domain.tld}`,
      namespace: domain.tld,
      owner: domain.owner,
      tokenized: domain.tokenized,
      verification: domain.tokenized ? 'nft-holder' : 'owner',
    },
  };
}

async function readPrimary(chain: ChainReader, wallet: Address): Promise<Outcome<HandleAccount>> {
  const pointer = await withChainErrors('MALFORMED_ACCOUNT', () => chain.getPrimary(wallet, 'confirmed'));
  if (!pointer) return { ok: false, error: 'NO_PRIMARY_SET' };
  const handle: HandleAccount | null = await withChainErrors('MALFORMED_HANDLE', () =>
    chain.getHandleByAddress(pointer.handle, 'confirmed'),
  );
  if (!handle || handle.owner === ZERO_ADDRESS) return { ok: false, error: 'NO_PRIMARY_SET' };
  const authority = await withChainErrors('MALFORMED_HANDLE', () => chain.getHandleAuthority(handle, 'confirmed'));
  // Trust rules: set after the handle's current registration, and the wallet still holds authority.
  if (!primaryTrusted(pointer, handle, authority)) return { ok: false, error: 'NO_PRIMARY_SET' };
  return { ok: true, value: handle };
}

/** Every public resolve/reverse error body echoes the raw input. */
async function withInput<T>(input: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PublicError && err.input === undefined) throw new PublicError(err.key, input);
    throw err;
  }
}

/** Maps chain failures to the public errors: unreachable → 502 rpc unreachable; undecodable → the given 502. */
async function withChainErrors<T>(malformed: PublicErrorKey, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ChainError) throw new PublicError(err.kind === 'malformed' ? malformed : 'RPC_UNREACHABLE');
    throw err;
  }
}
