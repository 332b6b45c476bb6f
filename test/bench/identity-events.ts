// Identity-change event benchmarks, in one process (chain, db, workers, receiver share the 2 cores):
//  1. Latency: registry transactions (set_record) on the local chain (400 ms slots, finality 4 slots behind), from the
//     moment the transaction is finalized to the moment its signed identity event reaches the receiver, with the
//     production worker settings (indexer pass every 1 s — pay pass then identity pass under one lease — delivery
//     kicked by the indexer). Goal: p50 under 1 s.
//  2. The log: pages of 200 read from a 20 000-event log (SQLite) by the service's reader (filters off, then with a
//     handle filter), next to the bare SELECT of the same rows as the baseline measured in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { z } from 'zod';
import {
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IdentityEventSchema,
  identityEventId,
} from '@sigil/contract/identity-events';
import { createDatabase, migrateToLatest } from '../../server/src/platform/db/index';
import { createOutboundClient } from '../../server/src/platform/outbound/client';
import { findRecordPda, getSetRecordInstruction } from '../../server/src/platform/chain/registry';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { createIdentityWebhook, readIdentityLog } from '../../server/src/features/identity-events/service';
import { createQueueSignal } from '../../server/src/features/pay-webhooks/index';
import { startLocalChain } from '../../server/src/localchain/index';
import { startPayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { selfSignedCert, startHttpsReceiver } from '../support/https-receiver';
import { fundedWallet, registerName, signedTransaction } from '../support/webhooks-world';
import { table } from './support';

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-bench-id-'));
  const handle = createDatabase({ sqliteFile: join(dir, 'bench.sqlite') });
  return {
    ...handle,
    drop: async () => {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function latency(changes: number): Promise<number[]> {
  const arrivals = new Map<string, number>();
  const receiver = await startHttpsReceiver((req, res, body) => {
    if (req.headers['sigil-event-type'] === 'record.set') {
      arrivals.set(
        (JSON.parse(body.toString('utf8')) as { chain: { signature: string } }).chain.signature,
        performance.now(),
      );
    }
    res.writeHead(200).end();
  });
  const chain = await startLocalChain({ scenario: false });
  const database = tempDb();
  const client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert });
  try {
    await migrateToLatest(database.db);
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    const owner = await fundedWallet(chain);
    const handle = await registerName(chain, 'benchid', owner);
    await chain.finalizeAll();
    await createIdentityWebhook(
      { db: database.db, allowLoopback: true, queued: createQueueSignal() },
      { keyId: 'key_bench', account: 'acct_bench', tier: 'partner' },
      { scope: '@benchid', url: `https://127.0.0.1:${receiver.port}/identity`, event_types: ['record'] },
    );
    const workers = startPayWebhookWorkers({ db: database.db, chain: reader, client });
    const [record] = await findRecordPda(chain.programId, handle, 'text', 'bio');
    const finalizedAt = new Map<string, number>();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < changes; i++) {
      const tx = await signedTransaction(chain, owner, [
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
      // sendAndConfirm polls the ledger every ≤ 50 ms: it resolves within 50 ms of finalization.
      pending.push(
        chain
          .sendAndConfirm(tx, { commitment: 'finalized' })
          .then((sig) => void finalizedAt.set(sig, performance.now())),
      );
      await new Promise((r) => setTimeout(r, 150));
    }
    await Promise.all(pending);
    const deadline = Date.now() + 30_000;
    while (arrivals.size < changes && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await workers.stop();
    if (arrivals.size < changes) throw new Error(`only ${arrivals.size} of ${changes} events delivered`);
    return [...finalizedAt].map(([sig, at]) => arrivals.get(sig)! - at).sort((a, b) => a - b);
  } finally {
    await client.close();
    await receiver.close();
    await chain.close();
    await database.drop();
  }
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
