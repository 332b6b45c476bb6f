// Liveness, version and namespace facts: functions of the config, plus three chain reads for /version; the service
// binds them to this deployment's config and chain reader.
import { PublicError } from '@sigil/contract/errors';
import type { NamespaceEntry, Namespaces, V1Health, Version } from '@sigil/contract/public';
import { paymentRails, SERVICE_VERSION, type Config } from '../../platform/config';
import { ChainError, type ChainReader } from '../../platform/chain/types';

/** The RPC's host (and port, if any), never its path or query, which may carry a provider's API key. */
export function rpcHost(rpcUrl: string): string {
  return new URL(rpcUrl).host;
}

export function v1Health(config: Config): V1Health {
  const rails = paymentRails(config);
  return {
    status: 'ok',
    service: 'sigil',
    x402: rails.length > 0,
    rails,
    rpc: rpcHost(config.rpcUrl),
    program: config.programId,
  };
}

/** GET /version: what this deployment is and which chain it reads, asked live. Any chain failure → 502. */
export async function readVersion(chain: ChainReader, config: Config): Promise<Version> {
  try {
    const [node, genesisHash, slot] = await Promise.all([chain.getVersion(), chain.getGenesisHash(), chain.getSlot()]);
    return {
      service: 'sigil',
      version: SERVICE_VERSION,
      rpc: rpcHost(config.rpcUrl),
      program: config.programId,
      chain: { version: node['solana-core'], genesisHash, slot: Number(slot) },
    };
  } catch (err) {
    if (err instanceof ChainError) throw new PublicError('RPC_UNREACHABLE');
    throw err;
  }
}

/** Native namespaces are always on; a foreign one only when its RPC is configured. */
export function namespaces(config: Config): Namespaces {
  const entries: NamespaceEntry[] = [
    { namespace: 'handle', source: 'sigil', configured: true },
    ...config.domainSuffixes.map((tld) => ({
      namespace: tld as NamespaceEntry['namespace'],
      source: 'sigil' as const,
      configured: true,
    })),
    { namespace: 'sol', source: 'sns', configured: config.solRpcUrl !== undefined },
    { namespace: 'eth', source: 'ens', configured: config.ethRpcUrl !== undefined },
  ];
  return { namespaces: entries };
}

/** The facts of this deployment, over its config and its chain reader. */
export interface HealthService {
  /** GET /v1/health. */
  v1Health(): V1Health;
  /** GET /version: asked of the chain live; 502 RPC_UNREACHABLE when it does not answer. */
  version(): Promise<Version>;
  /** GET /namespaces. */
  namespaces(): Namespaces;
}

export function createHealthService(deps: { config: Config; chain: ChainReader }): HealthService {
  const { config, chain } = deps;
  return {
    v1Health: () => v1Health(config),
    version: () => readVersion(chain, config),
    namespaces: () => namespaces(config),
  };
}
