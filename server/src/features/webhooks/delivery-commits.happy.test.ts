// SQLite's group commit and the delivery worker: the claim for the slots of delivered attempts is requested as their
// outcomes start being written, so both are one transaction (one BEGIN/COMMIT per batch, not two).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { queueEvents, seedWebhook } from '@sigil/test/support/webhooks-world';
import { createDatabase, migrateToLatest } from '../../platform/db/index';
import { sqliteControlOf } from '../../platform/db/connect';
import { createOutboundClient, type OutboundClient } from '../../platform/outbound/client';
import { payWebhookStream } from '../pay-webhooks/index';
import { startDeliveryWorker } from './delivery-worker';

let client: OutboundClient;
let receiver: HttpsReceiver;

beforeAll(async () => {
  client = createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, timeoutMs: 2000 });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end());
});
afterAll(async () => {
  await client.close();
  await receiver.close();
});

it('on SQLite, every claim but the first and the last (which finds nothing) commits with delivered outcomes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-commits-'));
  const log: string[] = [];
  const { db, close } = createDatabase({
    sqliteFile: join(dir, 'sigil.sqlite'),
    onQuery: ({ query }) => {
      if (/set lease_holder = \?/.test(query.sql)) log.push('claim');
      else if (/^update "webhook_deliveries" set "status" = \?/.test(query.sql)) log.push('delivered');
    },
  });
  try {
    await migrateToLatest(db);
    const control = sqliteControlOf(db)!;
    for (const step of ['begin', 'commit'] as const) {
      const run = control[step];
      control[step] = () => {
        log.push(step);
        run();
      };
    }
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const hook = await seedWebhook(db, `https://127.0.0.1:${receiver.port}/commits`);
      ids.push(...(await queueEvents(db, hook.id, 16)));
    }
    log.length = 0;
    const worker = startDeliveryWorker(
      { db, client, streams: [payWebhookStream], holder: 'w', concurrency: 8 },
      { loop: false },
    );
    const outcomes = await worker.runOnce();
    expect(outcomes).toEqual(ids.map(() => 'delivered'));

    const transactions: string[][] = [];
    for (const entry of log) {
      if (entry === 'begin') transactions.push([]);
      else if (entry !== 'commit') transactions.at(-1)!.push(entry);
    }
    const claims = transactions.filter((t) => t.includes('claim'));
    const alone = claims.filter((t) => !t.includes('delivered'));
    expect(claims.length).toBeGreaterThanOrEqual(64 / 8);
    expect(alone).toHaveLength(2);
    expect(log.filter((e) => e === 'delivered')).toHaveLength(64);
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
});
