// kill -9 mid-stream: the identity pipeline runs in its own process (the app's workers), is killed with SIGKILL
// while it is writing the log, and a successor process takes over. The log then has no gap and no duplicate
// sequence, is byte for byte the log of an unbroken in-process run, and every event reaches the receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { findRecordPda, getSetRecordInstruction } from '../../server/src/platform/chain/registry';
import type { Database } from '../../server/src/platform/db/index';
import { runIdentityPass } from '../../server/src/features/identity-events/index';
import { createIdentityWebhook } from '../../server/src/features/identity-events/service';
import { createQueueSignal } from '../../server/src/features/webhooks/index';
import { describeEachDialect, freshDatabase } from '../support/db';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import { everyChange, identityActors } from '../support/identity-world';
import type { IdentityChildJob } from '../support/identity-child';
import { waitFor } from '../support/pay-webhooks';
import { exec } from '../support/webhooks-world';

const CHILD = fileURLToPath(new URL('../support/identity-child.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NAME = 'crash';

let chain: LocalChain;
let receiver: HttpsReceiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  chain = await startLocalChain({ scenario: false, slotMs: 100 });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end());
  const actors = await identityActors(chain);
  const { handle } = await everyChange(chain, NAME, actors);
  // Enough transactions that a kill lands between two commits: 24 more record writes by the owner (bob).
  const [record] = await findRecordPda(chain.programId, handle, 'text', 'note');
  for (let i = 0; i < 24; i++) {
    await exec(chain, actors.bob, [
      getSetRecordInstruction({
        programId: chain.programId,
        authority: actors.bob.address,
        handle,
        record,
        kind: 'text',
        key: 'note',
        value: `note ${i}`,
      }),
    ]);
  }
  await chain.finalizeAll();
}, 180_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await receiver?.close();
  await chain?.close();
});

async function startChild(job: IdentityChildJob): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(job)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d) && out.includes('ready\n') && resolve());
    child.on('exit', (code) => reject(new Error(`identity child exited (${code}) before ready: ${err}`)));
  });
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const logOf = async (db: Kysely<Database>) =>
  (await db.selectFrom('identity_events').select(['sequence', 'id', 'payload']).orderBy('sequence').execute()).map(
    (r) => ({ sequence: Number(r.sequence), id: r.id, payload: r.payload }),
  );

describeEachDialect('identity stream under kill -9', (ctx) => {
  it('a killed writer leaves no gap or duplicate; its successor completes the log byte for byte; deliveries resume', async () => {
    const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
    // The unbroken run, in process, on its own database: what the log must end as.
    const reference = await freshDatabase(ctx.dialect);
    let expected: Awaited<ReturnType<typeof logOf>>;
    try {
      await runIdentityPass(reference.db, { chain: reader });
      expected = await logOf(reference.db);
    } finally {
      await reference.drop();
    }
    expect(expected.length).toBeGreaterThan(30);

    const hook = await createIdentityWebhook(
      { db: ctx.db, allowLoopback: true, queued: createQueueSignal() },
      { keyId: 'key_crash', account: 'acct_crash', tier: 'partner' },
      { scope: '*', url: `https://127.0.0.1:${receiver.port}/${ctx.dialect}` },
    );
    const job = { url: ctx.url, rpcUrl: chain.url, programId: chain.programId, ca: selfSignedCert().cert };

    const first = await startChild({ ...job, delayMs: 150 });
    const partial = await waitFor(
      async () => {
        const log = await logOf(ctx.db);
        return log.length >= 6 ? log : undefined;
      },
      60_000,
      'the first writer to store some events',
    );
    await killed(first);
    const atKill = await logOf(ctx.db);
    expect(atKill.length).toBeGreaterThanOrEqual(partial.length);
    expect(atKill.length).toBeLessThan(expected.length); // killed mid-stream, not after the end
    expect(atKill.map((e) => e.sequence)).toEqual(atKill.map((_, i) => i + 1));
    expect(atKill).toEqual(expected.slice(0, atKill.length));

    const second = await startChild({ ...job, delayMs: 0 });
    const complete = await waitFor(
      async () => {
        const log = await logOf(ctx.db);
        return log.length >= expected.length ? log : undefined;
      },
      90_000,
      'the successor to complete the log',
    );
    expect(complete).toEqual(expected);
    // Every event reaches the receiver (at least once; a delivery the killed process had claimed comes again).
    const path = `/${ctx.dialect}`;
    await waitFor(
      () => {
        const seen = new Set(receiver.requests.filter((r) => r.url === path).map((r) => r.headers['webhook-id']));
        return expected.every((e) => seen.has(e.id)) ? true : undefined;
      },
      90_000,
      'every event delivered',
    );
    const stored = await ctx.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status'])
      .where('webhook_id', '=', hook.id)
      .execute();
    expect(stored.map((d) => d.event_id).sort()).toEqual(expected.map((e) => e.id).sort());
    await killed(second);
  }, 240_000);
});
