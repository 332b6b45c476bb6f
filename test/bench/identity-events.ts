// Identity-change event benchmarks, in one process (chain, db, workers, receiver share the 2 cores):
//  1. Latency: registry transactions (set_record) on the local chain (400 ms slots, finality 4 slots behind), from the
//     moment the transaction is finalized to the moment its signed identity event reaches the receiver, with the
//     production worker settings (indexer pass every 1 s — pay pass then identity pass under one lease — delivery
//     kicked by the indexer). Goal: p50 under 1 s.
//  2. The log: pages of 200 read from a 20 000-event log (SQLite) by the service's reader (filters off, then with a
//     handle filter), next to the bare SELECT of the same rows as the baseline measured in the same run.
import { sql } from 'kysely';
import { z } from 'zod';
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IdentityEventSchema,
  identityEventId,
} from '@sigil/contract/identity-events';
import { migrateToLatest } from '../../server/src/platform/db/index';
import { findRecordPda, getSetRecordInstruction } from '../../server/src/platform/chain/registry';
import { createIdentityWebhook, readIdentityLog } from '../../server/src/features/identity-events/service';
import { createQueueSignal } from '../../server/src/features/webhooks/index';
import { fundedWallet, registerName, signedTransaction } from '../support/webhooks-world';
import { deliveryLatency, percentile, table, tempDb } from './support';

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

async function logReads(size: number, pages: number) {
  const database = tempDb();
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
    const cursors = Array.from({ length: pages }, (_, i) => (i * 7919) % (size - 200));
    const time = async (read: (after: number) => Promise<unknown>) => {
      for (const after of cursors.slice(0, 50)) await read(after); // warm-up
      const start = performance.now();
      for (const after of cursors) await read(after);
      return pages / ((performance.now() - start) / 1000);
    };
    const bare = await time((after) =>
      sql`select payload from identity_events where test = 0 and sequence > ${after} order by sequence limit 201`.execute(
        database.db,
      ),
    );
    const bareParsed = await time(async (after) => {
      const { rows } = await sql<{
        payload: string;
      }>`select payload from identity_events where test = 0 and sequence > ${after} order by sequence limit 201`.execute(
        database.db,
      );
      return rows.map((r) => JSON.parse(r.payload) as unknown);
    });
    const service = await time((after) => readIdentityLog(database.db, { after, limit: 200 }));
    const page = z.object({
      events: z.array(IdentityEventSchema),
      next_after: z.number().nullable(),
      has_more: z.boolean(),
    });
    const validated = await time(async (after) => {
      const result = await readIdentityLog(database.db, { after, limit: 200 });
      return JSON.stringify(page.parse(result));
    });
    const byHandle = await time((after) => readIdentityLog(database.db, { after, limit: 200, handle: 'name7' }));
    return { bare, bareParsed, service, validated, byHandle };
  } finally {
    await database.drop();
  }
}

export async function benchIdentityEvents({ changes = 40, size = 20_000, pages = 500 } = {}) {
  const latencies = await latency(changes);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const reads = await logReads(size, pages);
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
    '',
    table(
      [`log pages of 200 (SQLite, ${size} events, ${pages} random cursors)`, 'pages/s', 'events/s', 'vs bare SELECT'],
      [
        ['bare `SELECT payload … LIMIT 201` (baseline)', Math.round(reads.bare), Math.round(reads.bare * 200), '100 %'],
        [
          'bare SELECT + JSON.parse per row (what returning objects costs at least)',
          Math.round(reads.bareParsed),
          Math.round(reads.bareParsed * 200),
          `${Math.round((reads.bareParsed / reads.bare) * 100)} %`,
        ],
        [
          'readIdentityLog (JSON.parse per event)',
          Math.round(reads.service),
          Math.round(reads.service * 200),
          `${Math.round((reads.service / reads.bare) * 100)} %`,
        ],
        [
          "+ the route's output validation and JSON serialization",
          Math.round(reads.validated),
          Math.round(reads.validated * 200),
          `${Math.round((reads.validated / reads.bare) * 100)} %`,
        ],
        [
          'readIdentityLog, handle filter',
          Math.round(reads.byHandle),
          Math.round(reads.byHandle * 200),
          `${Math.round((reads.byHandle / reads.bare) * 100)} %`,
        ],
      ],
    ),
  ].join('\n');
  return { p50, p99, ...reads, markdown };
}

// `node --import tsx test/bench/identity-events.ts`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await benchIdentityEvents()).markdown);
  process.exit(0);
}
