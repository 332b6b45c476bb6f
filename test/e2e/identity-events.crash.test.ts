// kill -9 in the middle of a block: the identity pipeline runs in its own process (the app's workers), is killed with
// SIGKILL after it committed some but not all transactions of one block (16 registrations in a single slot), and a
// successor process takes over. The log then has no gap and no duplicate sequence, is byte for byte the log of an
// unbroken in-process run, and every event reaches the receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';
import { createChainReader } from '../../server/src/platform/chain/reader';
import {
  findHandlePda,
  findRecordPda,
  getRegisterInstruction,
  getSetRecordInstruction,
} from '../../server/src/platform/chain/registry';
import type { Database } from '../../server/src/platform/db/index';
import { runIdentityPass } from '../../server/src/features/identity-events/index';
import { createIdentityWebhook } from '../../server/src/features/identity-events/service';
import { createQueueSignal } from '../../server/src/features/webhooks/index';
import { describeEachDialect, freshDatabase } from '../support/db';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver';
import { everyChange, identityActors } from '../support/identity-world';
import type { IdentityChildJob } from '../support/identity-child';
import { waitFor } from '../support/pay-webhooks';
import { exec, signedTransaction } from '../support/webhooks-world';

const CHILD = fileURLToPath(new URL('../support/identity-child.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NAME = 'crash';
/** Registrations sent into one slot: the block the writer is killed in the middle of. */
const BLOCK_NAMES = Array.from({ length: 16 }, (_, i) => `crashblock${i}`);
let blockSlot: number;

let chain: LocalChain;
let receiver: HttpsReceiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  // Slots move only when the test (or sendAndConfirm) advances them, so one slot can hold many transactions.
  chain = await startLocalChain({ scenario: false, autoAdvance: false });
  receiver = await startHttpsReceiver((_req, res) => res.writeHead(200).end());
  const actors = await identityActors(chain);
  const { handle } = await everyChange(chain, NAME, actors);
  // A few more record writes by the owner (bob); the whole log stays under the webhook's 60 deliveries a minute,
  // so delivery is not paced by the budget.
  const [record] = await findRecordPda(chain.programId, handle, 'text', 'note');
  for (let i = 0; i < 8; i++) {
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
  // One block of 16 registrations (the child writes each of their events slowly).
  for (const name of BLOCK_NAMES) {
    const [account] = await findHandlePda(chain.programId, name);
    const register = getRegisterInstruction({
      programId: chain.programId,
      payer: actors.till.address,
      owner: actors.till.address,
      handle: account,
      name,
      handleType: 0,
    });
    await chain.send(await signedTransaction(chain, actors.till, [register]));
  }
  blockSlot = Number(chain.slot('processed'));
  await chain.advance();
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
  (
    await db.selectFrom('identity_events').select(['sequence', 'id', 'slot', 'payload']).orderBy('sequence').execute()
  ).map((r) => ({ sequence: Number(r.sequence), id: r.id, slot: Number(r.slot), payload: r.payload }));
const inBlock = (log: Awaited<ReturnType<typeof logOf>>) => log.filter((e) => e.slot === blockSlot).length;

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
    expect(expected.length).toBeLessThanOrEqual(60);
    const blockEvents = inBlock(expected);
    expect(blockEvents).toBeGreaterThanOrEqual(BLOCK_NAMES.length);

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
        return inBlock(log) > 0 ? log : undefined;
      },
      60_000,
      'the first writer to store some events of the big block',
    );
    await killed(first);
    const atKill = await logOf(ctx.db);
    expect(atKill.length).toBeGreaterThanOrEqual(partial.length);
    // Killed in the middle of that block: some of its transactions committed, not all (each event's write stands
    // the child still for 150 ms before its commit).
    expect(inBlock(atKill)).toBeGreaterThan(0);
    expect(inBlock(atKill)).toBeLessThan(blockEvents);
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
