// Identity-change event benchmarks, in one process (chain, db, workers, receiver share the 2 cores):
//  1. Latency: registry transactions (set_record) on the local chain (400 ms slots, finality 4 slots behind), from the
//     moment the transaction is finalized to the moment its signed identity event reaches the receiver, with the
//     production worker settings (indexer pass every 1 s — pay pass then identity pass under one lease — delivery
//     kicked by the indexer). Goal: p50 under 1 s.
//  2. The log: pages of 200 read from a 20 000-event log (SQLite, or Postgres with `--db`) the way the route builds
//     its body (the reader, the procedure's output parser, the body the REST face sends), filters off, then with a
//     handle filter; next to the bare SELECT of the same rows, the baseline measured in the same run, and to what
//     the body cost when every stored event was parsed, validated and serialized again.
import { sql } from 'kysely';
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IdentityLogPageSchema,
  identityEventId,
} from '@sigil/contract/identity-events';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { StoredJson } from '../../server/src/platform/stored-json';
import { storedOutput } from '../../server/src/trpc/stored-output';
import { findRecordPda, getSetRecordInstruction } from '../../server/src/platform/chain/registry';
import { createIdentityWebhook, readIdentityLog } from '../../server/src/features/identity-events/service';
import { createQueueSignal } from '../../server/src/features/webhooks/index';
import { fundedWallet, registerName, signedTransaction } from '../support/webhooks-world';
import { benchDb, deliveryLatency, percentile, table } from './support';

function latency(changes: number): Promise<number[]> {
  return deliveryLatency('record.set', changes, async ({ chain, db, receiverUrl }) => {
    const owner = await fundedWallet(chain);
    const handle = await registerName(chain, 'benchid', owner);
    await chain.finalizeAll();
    await createIdentityWebhook(
      { db, allowLoopback: true, queued: createQueueSignal() },
      { keyId: 'key_bench', account: 'acct_bench', tier: 'partner' },
      { scope: '@benchid', url: `${receiverUrl}/identity`, event_types: ['record'] },
    );
    const [record] = await findRecordPda(chain.programId, handle, 'text', 'bio');
    return (i) =>
      signedTransaction(chain, owner, [
        getSetRecordInstruction({
          programId: chain.programId,
          authority: owner.address,
          handle,
          record,
          kind: 'text',
          key: 'bio',
          value: `bio ${i}`,
        }),
      ]);
  });
}

const ADDR = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const ROUNDS = 5;

async function logReads(dialect: Dialect, size: number, pages: number) {
  const database = await benchDb(dialect);
  try {
    await migrateToLatest(database.db);
    const rows = Array.from({ length: size }, (_, i) => {
      const sequence = i + 1;
      const signature = '5'.repeat(88); // one transaction, one instruction per event: distinct ids by ixIndex
      const name = `name${i % 500}`;
      const payload = {
        schema: IDENTITY_EVENTS_SCHEMA,
        id: identityEventId(signature, i, -1, 0),
        sequence,
        notice: IDENTITY_EVENT_NOTICE,
        chain: {
          signature,
          ixIndex: i,
          innerIndex: -1,
          slot: 1000 + i,
          blockTime: '2026-11-24T03:00:00Z',
          commitment: 'finalized',
          finalized: true,
        },
        actors: { signer: ADDR, authority: ADDR },
        type: 'record.set',
        handle: { name, account: ADDR },
        change: {
          kind: 'text',
          key: 'bio',
          record: ADDR,
          value: { before: `value ${i - 1}`, after: `value ${i}` },
          verified: { before: false, after: false },
        },
      };
      return {
        sequence,
        id: payload.id,
        type: payload.type,
        signature,
        slot: 1000 + i,
        handle_name: name,
        payload: JSON.stringify(payload),
        test: 0,
        created_at: Date.now(),
      };
    });
    for (let i = 0; i < rows.length; i += 500) {
      await database.db
        .insertInto('identity_events')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    await database.db
      .insertInto('identity_stream')
      .values({
        id: 'main',
        next_sequence: size + 1,
        start_slot: 0,
        last_signature: null,
        last_slot: 1000 + size,
        updated_at: 1,
      })
      .execute();
    const cursors = Array.from({ length: pages }, (_, i) => (i * 7919) % (size - 200));
    // What the REST face does with the procedure's answer: the output parser, then the body's bytes.
    const output = storedOutput(IdentityLogPageSchema);
    const body = (answer: unknown) => {
      const parsed = output.parse(answer);
      return parsed instanceof StoredJson ? parsed.bytes() : Buffer.from(JSON.stringify(parsed));
    };
    const select = (after: number) =>
      sql<{
        payload: string;
      }>`select payload from identity_events where test = 0 and sequence > ${after} order by sequence limit 201`.execute(
        database.db,
      );
    const variants = {
      bare: (after: number) => select(after),
      bareParsed: async (after: number) => (await select(after)).rows.map((r) => JSON.parse(r.payload) as unknown),
      route: async (after: number) => body(await readIdentityLog(database.db, { after, limit: 200 })),
      // The body as it was built before stored events were served as stored: each one parsed, the page validated
      // against the output schema, serialized, then encoded.
      reparsed: async (after: number) => {
        const page = (await readIdentityLog(database.db, { after, limit: 200 })).toJSON();
        return Buffer.from(JSON.stringify(IdentityLogPageSchema.parse(page)));
      },
      byHandle: async (after: number) =>
        body(await readIdentityLog(database.db, { after, limit: 200, handle: 'name7' })),
    };
    // Rounds alternate the variants, so a burst of load on this shared machine lands on all of them; each variant's
    // figure is its median round.
    for (const read of Object.values(variants)) for (const after of cursors.slice(0, 100)) await read(after);
    const perRound = Math.ceil(pages / ROUNDS);
    const samples: Record<keyof typeof variants, number[]> = {
      bare: [],
      bareParsed: [],
      route: [],
      reparsed: [],
      byHandle: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      const slice = cursors.slice(round * perRound, (round + 1) * perRound);
      for (const [name, read] of Object.entries(variants) as [
        keyof typeof variants,
        (a: number) => Promise<unknown>,
      ][]) {
        const start = performance.now();
        for (const after of slice) await read(after);
        samples[name].push(slice.length / ((performance.now() - start) / 1000));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [bare, bareParsed, route, reparsed, byHandle] = (
      ['bare', 'bareParsed', 'route', 'reparsed', 'byHandle'] as const
    ).map((name) => median(samples[name]));
    return { bare, bareParsed, route, reparsed, byHandle };
  } finally {
    await database.drop();
  }
}

function readsTable(dialect: Dialect, size: number, pages: number, reads: Awaited<ReturnType<typeof logReads>>) {
  const row = (name: string, perSec: number) => [
    name,
    Math.round(perSec),
    Math.round(perSec * 200),
    `${Math.round((perSec / reads.bare) * 100)} %`,
  ];
  return table(
    [
      `log pages of 200 (${dialect}, ${size} events, ${pages} random cursors, median of ${ROUNDS} alternated rounds)`,
      'pages/s',
      'events/s',
      'vs bare SELECT',
    ],
    [
      row('bare `SELECT payload … LIMIT 201` (baseline)', reads.bare),
      row('bare SELECT + JSON.parse per row (what returning objects costs at least)', reads.bareParsed),
      row("the route's body: bounds + page read, stored events as stored", reads.route),
      row('the same, each event parsed, validated and serialized again', reads.reparsed),
      row("the route's body, handle filter", reads.byHandle),
    ],
  );
}

/** `dialects`: where the log pages are read; the delivery latency runs on SQLite (its cost is the chain's). */
export async function benchIdentityEvents({
  changes = 40,
  size = 20_000,
  pages = 1000,
  dialects = ['sqlite'] as Dialect[],
} = {}) {
  // Log reads first: the latency part leaves a chain and workers' garbage in this process's heap.
  const reads: Partial<Record<Dialect, Awaited<ReturnType<typeof logReads>>>> = {};
  for (const dialect of dialects) reads[dialect] = await logReads(dialect, size, pages);
  const latencies = await latency(changes);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const markdown = [
    table(
      [`finalized → delivered, local chain (${changes} set_record, 400 ms slots)`, 'p50', 'p99', 'target'],
      [
        [
          'record.set at the receiver (identity webhook)',
          `${Math.round(p50)} ms`,
          `${Math.round(p99)} ms`,
          'p50 < 1 s',
        ],
      ],
    ),
    ...dialects.flatMap((dialect) => ['', readsTable(dialect, size, pages, reads[dialect]!)]),
  ].join('\n');
  return { p50, p99, reads, markdown };
}

// `node --import tsx test/bench/identity-events.ts`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await benchIdentityEvents()).markdown);
  process.exit(0);
}
