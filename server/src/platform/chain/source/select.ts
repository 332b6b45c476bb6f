// The indexer's chain source, chosen by configuration (SIGIL_CHAIN_SOURCE; docs/deploy.md "Chain source"):
// undefined keeps the default, block polling over the service's own RPC reader.
import type { Logger } from '../../log';
import type { ChainSource } from './types';
import { createYellowstoneSource } from './yellowstone';

export interface ChainSourceConfig {
  chainSource: 'blocks' | 'yellowstone';
  yellowstone: { url?: string; token?: string };
}

export function chainSourceFor(config: ChainSourceConfig, logger: Logger): ChainSource | undefined {
  if (config.chainSource === 'blocks') return undefined;
  // loadConfig refuses `yellowstone` without a URL.
  return createYellowstoneSource({ url: config.yellowstone.url!, token: config.yellowstone.token, logger });
}
