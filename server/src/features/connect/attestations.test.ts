// Attestations are best-effort at sign-in (spec: "read best-effort, never blocks sign-in"): the handle and its
// attestations are read in one batched chain request; a failing or slow attestation scan gives `verified: []`
// and the sign-in (and the session read) still succeed, within the budget. Service level, on the local chain
// with injected faults, with a short budget so the slow case stays quick. Also here, on the same world: the consume
// must be on disk before any session is issued (a failing durability barrier fails the verify).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { freshDatabase, type FreshDatabase } from '@sigil/test/support/db';
import { startLocalChain, type FaultConfig, type LocalChain } from '../../localchain/index';
import { demoWallet } from '../../localchain/scenario';
import { createChainReader } from '../../platform/chain/reader';
import type { ParsedChallengeRequest } from '@sigil/contract/connect';
import { createResolveService } from '../resolve/index';
import { createConnectService, type ConnectService } from './service';
import { createSessionService, type SessionService } from './sessions';

const AUDIENCE = 'key_attestations';
const BUDGET_MS = 300;
let chain: LocalChain;
let database: FreshDatabase;
let connect: ConnectService;
let sessions: SessionService;

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true });
  database = await freshDatabase('sqlite');
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5_000 });
  sessions = createSessionService({ db: database.db, ttlSeconds: 3600 });
  connect = createConnectService({
    db: database.db,
    chain: reader,
    resolve: createResolveService({ chain: reader, suffixes: ['x1'], cacheTtlMs: 0 }),
    sessions,
    challengeTtlSeconds: 300,
    signinDomains: [],
    attestationBudgetMs: BUDGET_MS,
  });
});
afterAll(async () => {
  await database?.drop();
  await chain?.close();
});

/** A full handle-control sign-in as alice, then the session read; with the time the verify took. */
async function signInAsAlice() {
  const alice = await demoWallet('alice');
  const challenge = await connect.createChallenge(AUDIENCE, {
    kind: 'handle',
    handle: 'alice',
  } as ParsedChallengeRequest);
  const started = performance.now();
  const session = await connect.verify(AUDIENCE, await signChallenge(challenge, alice, AUDIENCE));
  const verifyMs = performance.now() - started;
  const read = await connect.readSession(await sessions.verify(session.token, AUDIENCE));
  return { session, read, verifyMs };
}

it('without faults: verified lists the live attestations, at verify and at the session read', async () => {
  const { session, read } = await signInAsAlice();
  expect(session).toMatchObject({ handle: 'alice', source: 'owner', verified: ['github', 'x'] });
  expect(read).toMatchObject({ handle: 'alice', source: 'owner', verified: ['github', 'x'] });
});

/** Signs in as alice with `fault` on the chain: the sign-in and the session read succeed with verified []. */
async function signInWithout(fault: FaultConfig) {
  chain.faults.set(fault);
  try {
    const outcome = await signInAsAlice();
    expect(outcome.session).toMatchObject({ handle: 'alice', source: 'owner', verified: [] });
    expect(outcome.read).toMatchObject({ handle: 'alice', source: 'owner', verified: [] });
    return outcome;
  } finally {
    chain.faults.clear();
  }
}

it('an attestation scan that errors → verified [] and the sign-in still succeeds', async () => {
  await signInWithout({ rpcError: { code: -32010, message: 'scan refused' }, methods: ['getProgramAccounts'] });
});

it('an attestation scan slower than the budget → verified [] within about the budget (the handle is re-read alone)', async () => {
  const { verifyMs } = await signInWithout({ delayMs: 3_000, methods: ['getProgramAccounts'] });
  expect(verifyMs).toBeGreaterThanOrEqual(BUDGET_MS - 5);
  expect(verifyMs).toBeLessThan(2_000); // far below the injected 3 s delay
});

it('a batch refused as a whole (HTTP 429 on the request carrying the scan) → the handle is re-read alone, verified []', async () => {
  await signInWithout({ httpStatus: 429, methods: ['getProgramAccounts'] });
});

it('the handle read is not best-effort: the chain unreachable fails the verify (no session issued)', async () => {
  const alice = await demoWallet('alice');
  const challenge = await connect.createChallenge(AUDIENCE, {
    kind: 'handle',
    handle: 'alice',
  } as ParsedChallengeRequest);
  const proof = await signChallenge(challenge, alice, AUDIENCE);
  chain.faults.set({ unreachable: true });
  try {
    await expect(connect.verify(AUDIENCE, proof)).rejects.toMatchObject({ name: 'ChainError', kind: 'unreachable' });
  } finally {
    chain.faults.clear();
  }
  // The failed proof did not burn the challenge: the same proof now succeeds.
  expect(await connect.verify(AUDIENCE, proof)).toMatchObject({ handle: 'alice', verified: ['github', 'x'] });
});

it('nothing is issued before the consumed challenge is on disk: a failing durability barrier fails the verify', async () => {
  let barrierCalls = 0;
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5_000 });
  const strict = createConnectService({
    db: database.db,
    chain: reader,
    resolve: createResolveService({ chain: reader, suffixes: ['x1'], cacheTtlMs: 0 }),
    sessions,
    challengeTtlSeconds: 300,
    signinDomains: [],
    durabilityBarrier: async () => {
      barrierCalls++;
      throw new Error('EIO: fsync failed');
    },
  });
  const sessionsBefore = await database.db.selectFrom('connect_sessions').select('jti').execute();
  const alice = await demoWallet('alice');
  const challenge = await strict.createChallenge(AUDIENCE, {
    kind: 'handle',
    handle: 'alice',
  } as ParsedChallengeRequest);
  await expect(strict.verify(AUDIENCE, await signChallenge(challenge, alice, AUDIENCE))).rejects.toThrow(
    'EIO: fsync failed',
  );
  expect(barrierCalls).toBe(1);
  expect(await database.db.selectFrom('connect_sessions').select('jti').execute()).toHaveLength(sessionsBefore.length);
});
