// Public resolution under concurrent load over loopback: resolve and reverse, cache-warm and cache-cold, next to a
// bare node:http server answering a fixed JSON body of the same size, measured in the same run.
import {
  load,
  loadTable,
  startBareServer,
  startChainProcess,
  startServiceProcess,
  stop,
  type LoadRow,
} from './support';

export async function benchPublic(
  opts: { seconds?: number } = {},
): Promise<{ rows: LoadRow[]; markdown: string; warmResolveRatio: number }> {
  const seconds = opts.seconds ?? 5;
  const chain = await startChainProcess();
  const alice = chain.scenario.wallets.alice.address as string;
  const warm = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '1000' });
  const cold = await startServiceProcess(chain, { SIGIL_RESOLVE_CACHE_MS: '0' });
  const sample = await (await fetch(`${warm.base}/resolve/alice`)).text();
  const bare = await startBareServer(sample);
  try {
    const baseline = await load('bare node:http, fixed JSON', bare.base, { seconds });
    const rows = [
      baseline,
      await load('GET /resolve/alice (warm cache)', `${warm.base}/resolve/alice`, { seconds }),
      await load('GET /reverse/<alice> (warm cache)', `${warm.base}/reverse/${alice}`, { seconds }),
      await load('GET /resolve/alice (cold: every request reads the chain)', `${cold.base}/resolve/alice`, { seconds }),
      await load('GET /reverse/<alice> (cold: every request reads the chain)', `${cold.base}/reverse/${alice}`, {
        seconds,
      }),
    ];
    return {
      rows,
      markdown: loadTable(rows, baseline),
      warmResolveRatio: rows[1]!.requestsPerSec / baseline.requestsPerSec,
    };
  } finally {
    await Promise.all([stop(bare.child), stop(warm.child), stop(cold.child)]);
    await stop(chain.child);
  }
}
