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

/** Alternated rounds of the bare server and the warm routes. */
const WARM_ROUNDS = 3;

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
    // The bare server and the warm routes in alternated rounds (a change in the machine's speed during the run hits
    // them alike); each row is its median round, and the ratio the median of the rounds' ratios.
    const warmRows = { bare: [] as LoadRow[], resolve: [] as LoadRow[], reverse: [] as LoadRow[] };
    for (let round = 0; round < WARM_ROUNDS; round++) {
      warmRows.bare.push(await load('bare node:http, fixed JSON', bare.base, { seconds }));
      warmRows.resolve.push(await load('GET /resolve/alice (warm cache)', `${warm.base}/resolve/alice`, { seconds }));
      warmRows.reverse.push(
        await load('GET /reverse/<alice> (warm cache)', `${warm.base}/reverse/${alice}`, { seconds }),
      );
    }
    const median = <T>(values: T[], by: (v: T) => number) =>
      [...values].sort((a, b) => by(a) - by(b))[values.length >> 1]!;
    const medianRow = (rows: LoadRow[]) => median(rows, (r) => r.requestsPerSec);
    const baseline = medianRow(warmRows.bare);
    const ratios = warmRows.resolve.map((r, i) => r.requestsPerSec / warmRows.bare[i]!.requestsPerSec);
    const rows = [
      baseline,
      medianRow(warmRows.resolve),
      medianRow(warmRows.reverse),
      await load('GET /resolve/alice (cold: every request reads the chain)', `${cold.base}/resolve/alice`, { seconds }),
      await load('GET /reverse/<alice> (cold: every request reads the chain)', `${cold.base}/reverse/${alice}`, {
        seconds,
      }),
    ];
    const warmResolveRatio = median(ratios, (r) => r);
    return {
      rows,
      markdown:
        loadTable(rows, baseline) +
        `\n\nWarm rows: the median of ${WARM_ROUNDS} rounds alternated with the bare server; warm resolve ÷ bare, ` +
        `per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${warmResolveRatio.toFixed(2)}). ` +
        'The service logs at `silent` (request logs off).',
      warmResolveRatio,
    };
  } finally {
    await Promise.all([stop(bare.child), stop(warm.child), stop(cold.child)]);
    await stop(chain.child);
  }
}
