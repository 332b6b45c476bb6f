// `npm run bench`: every benchmark section in one run, each next to its own bare baseline measured in the same
// run, printed as markdown (copy the tables into docs/benchmarks.md with the machine line). Sections run one after
// another so they do not compete for the 2 cores. `npm run bench -- public` runs only the named sections;
// `--db postgres` (or `--db both`) runs the database-bound sections on Postgres (or on both, side by side) instead
// of SQLite. Sections that do not take the switch say so under their heading.
import { cpus, totalmem } from 'node:os';
import { benchConnect } from './connect';
import { benchOidc } from './oidc';
import { benchGate } from './gate';
import { benchUsageHistory } from './usage-history';
import { benchMcp } from './mcp';
import { benchPublic } from './public';
import { benchRateLimit } from './ratelimit';
import { benchReplicas } from './replicas';
import { benchSdk } from './sdk';
import { benchX402 } from './x402';
import { benchUniversal } from './universal';
import { benchWebhooks } from './webhooks';
import { benchIdentityEvents } from './identity-events';
import { benchIngest } from './ingest';
import { benchKeyed } from './keyed';
import { benchDialects, table } from './support';

const { dialects, rest: only } = benchDialects(process.argv.slice(2));

/**
 * The databases a section runs on: `chosen` — those `--db` names; by default SQLite only; `postgres` — Postgres
 * whatever `--db` says (`replicas`: one shared database); `none` — it uses no database (`sdk`).
 */
type Section = { name: string; run: () => Promise<string>; databases?: 'chosen' | 'postgres' | 'none' };

const sections: Section[] = [
  { name: 'public', run: async () => (await benchPublic()).markdown },
  {
    name: 'ratelimit',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) {
        const r = await benchRateLimit({ dialect });
        tables.push(
          table(
            [`operation (${dialect}, sequential)`, 'ops/s', 'µs/op', 'vs bare SELECT 1'],
            [
              [
                'bare `SELECT 1` (baseline)',
                Math.round(r.selectOnePerSec),
                (1e6 / r.selectOnePerSec).toFixed(1),
                '1.00',
              ],
              [
                'RateLimiter.limit()',
                Math.round(r.limitPerSec),
                r.limitMicros.toFixed(1),
                (r.selectOnePerSec / r.limitPerSec).toFixed(2) + '× the cost',
              ],
              [
                'authenticateKey()',
                Math.round(r.authenticatePerSec),
                r.authenticateMicros.toFixed(1),
                (r.selectOnePerSec / r.authenticatePerSec).toFixed(2) + '× the cost',
              ],
            ],
          ),
        );
      }
      return tables.join('\n\n');
    },
  },
  {
    name: 'x402',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) tables.push((await benchX402({ dialect })).markdown);
      return tables.join('\n\n');
    },
  },
  {
    name: 'connect',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) tables.push((await benchConnect({ dialect })).markdown);
      return tables.join('\n\n');
    },
  },
  {
    name: 'usage',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) tables.push((await benchUsageHistory(dialect)).markdown);
      return tables.join('\n\n');
    },
  },
  {
    name: 'universal',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) tables.push((await benchUniversal({ dialect })).markdown);
      return tables.join('\n\n');
    },
  },
  { name: 'keyed', databases: 'chosen', run: async () => (await benchKeyed({ dialects })).markdown },
  { name: 'oidc', run: async () => (await benchOidc({ dialects })).markdown, databases: 'chosen' },
  { name: 'webhooks', run: async () => (await benchWebhooks({ dialects })).markdown, databases: 'chosen' },
  { name: 'identity-events', run: async () => (await benchIdentityEvents({ dialects })).markdown, databases: 'chosen' },
  { name: 'ingest', run: () => benchIngest({ dialects }), databases: 'chosen' },
  { name: 'mcp', run: async () => (await benchMcp()).markdown },
  {
    name: 'gate',
    databases: 'chosen',
    run: async () => {
      const tables: string[] = [];
      for (const dialect of dialects) tables.push((await benchGate({ dialect })).markdown);
      return tables.join('\n\n');
    },
  },
  { name: 'sdk', run: async () => (await benchSdk()).markdown, databases: 'none' },

  { name: 'replicas', run: () => benchReplicas(), databases: 'postgres' },
];

const cpu = cpus()[0]?.model ?? 'unknown cpu';
console.log(`# Sigil benchmarks — ${new Date().toISOString()}\n`);
console.log(`Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n`);
for (const s of sections) {
  if (only.length && !only.includes(s.name)) continue;
  console.log(`## ${s.name}\n`);
  if (s.databases === 'postgres') console.log('(Postgres only: this section does not take `--db`.)\n');
  else if (s.databases === undefined && dialects.includes('postgres'))
    console.log('(SQLite only: this section does not take `--db`.)\n');
  console.log((await s.run()) + '\n');
}
process.exit(0);
