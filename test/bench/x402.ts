// x402 pay-per-call, per rail, next to the same request with a key, in the same run:
// - native rail: paid requests per second (one payment each, all pre-built and finalized before the clock starts)
//   and the verification overhead per paid request;
// - facilitator rail: one stock `@x402/fetch` payment each (built just before its request, untimed: its blockhash
//   must be fresh), timed from the request to the settled response (/verify, handler, /settle through the local
//   facilitator, which waits for confirmation).
// In process (chain, facilitator, service and client share one event loop) and sequential, so each number is a
// latency sum, not a throughput under load; the keyed row is the baseline the overheads are measured against.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { createKeyPairSignerFromBytes, type Address } from '@solana/kit';
import { x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import {
  X402_HEADERS,
  decodeBase64Json,
  encodePaymentHeader,
  parsePaymentJson,
  redeemMessage,
  type X402AcceptEntry,
} from '@sigil/contract/x402';
import { paymentInstructions, requestChallenge, sendInstructions, signRedeemMessage } from '../../client-sdk/src/x402';
import { composeTestApp } from '../support/compose-app';
import { SOLANA_DEVNET_GENESIS_HASH, startLocalChain } from '../../server/src/localchain/index';
import { startLocalFacilitatorRail } from '../../server/src/localchain/facilitator';
import { TOKEN_PROGRAM_ADDRESS } from '../../server/src/platform/chain/programs';
import { createChainReader } from '../../server/src/platform/chain/reader';
import { testConfig } from '../../server/src/platform/config';
import { migrateToLatest, type Dialect } from '../../server/src/platform/db/index';
import { createKey } from '../../server/src/features/keys/service';
import type { Kysely } from 'kysely';
import {
  appendedTransferAccounts,
  checkPaymentTransaction,
  type PaymentQuote,
} from '../../server/src/features/x402/payment-tx';
import { findReference, findReferences, signatureConsumed } from '../../server/src/features/x402/queries';
import { decodeSignature, verifyWalletMessage } from '../../server/src/platform/crypto/wallet-signature';
import type { ChainReader } from '../../server/src/platform/chain/types';
import type { X402Settings } from '../../server/src/platform/config';
import type { Database } from '../../server/src/platform/db/index';
import { benchDb, table } from './support';

/** Keyed and paid requests alternate in this many rounds (n / ROUNDS requests each). */
const ROUNDS = 4;

export interface X402BenchResult {
  paidPerSec: number;
  paidMicros: number;
  keyedPerSec: number;
  keyedMicros: number;
  challengeMicros: number;
  /** paid − keyed, per request. */
  overheadMicros: number;
  facilitatorMicros: number;
  /** facilitator-rail paid − keyed, per request. */
  facilitatorOverheadMicros: number;
  markdown: string;
}

/** Repeats of each step in redemptionSteps. */
const STEP_REPEATS = 2000;

interface StepCost {
  cpuMs: number;
  wallMs: number;
}

/** CPU and wall ms per call of `work`, over STEP_REPEATS calls after a warm-up. */
async function perCall(work: () => unknown): Promise<StepCost> {
  for (let i = 0; i < STEP_REPEATS / 10; i++) await work();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < STEP_REPEATS; i++) await work();
  const wallMs = (performance.now() - t0) / STEP_REPEATS;
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / STEP_REPEATS, wallMs };
}

/**
 * What the native rail does with one payment (redeem.ts, in its order), step by step: CPU and wall ms per step. The payment
 * must not be consumed yet. Each decode gets its own copy of the getTransaction answer (redemption decodes each
 * answer once).
 */
async function redemptionSteps(
  db: Kysely<Database>,
  settings: X402Settings,
  reader: ChainReader,
  payer: string,
  payment: { header: string; signature: string },
  entry: X402AcceptEntry,
): Promise<Record<string, StepCost>> {
  const tx = (await reader.getTransactionWire(payment.signature, 'finalized'))!;
  const reference = entry.extra.reference!;
  const row = (await findReference(db, reference))!;
  const parsed = parsePaymentJson(decodeBase64Json(payment.header));
  if (!parsed.ok) throw new Error(parsed.message);
  const quote: PaymentQuote = {
    payTo: settings.payTo as Address,
    asset: settings.asset as Address,
    amount: BigInt(row.amount),
    reference: reference as Address,
    payer: payer as Address,
    issuedAt: Math.floor(row.issued_at / 1000),
  };
  const message = redeemMessage(settings.domainTag, reference);
  const now = Math.floor(Date.now() / 1000);
  if (!(await checkPaymentTransaction(tx, quote, { now })).ok) throw new Error('the bench payment does not check');
  return {
    'payment header: base64, JSON, schema': await perCall(() => parsePaymentJson(decodeBase64Json(payment.header))),
    'SQL: is the signature consumed?': await perCall(() => signatureConsumed(db, payment.signature)),
    'the transaction: decode (once per request)': await perCall(() => appendedTransferAccounts({ ...tx })),
    'SQL: the references it carries, and whether spent': await perCall(() =>
      findReferences(db, appendedTransferAccounts(tx)),
    ),
    'payerSig: base58 and one ed25519 verify': await perCall(() => {
      const sig = decodeSignature(parsed.payment.payerSig!);
      return sig.ok && verifyWalletMessage({ message, signature: sig.bytes, signer: payer });
    }),
    'the payment rules (checkPaymentTransaction on the decoded answer)': await perCall(() =>
      checkPaymentTransaction(tx, quote, { now }),
    ),
  };
}

export async function benchX402(
  opts: { requests?: number; facilitatorRequests?: number; dialect?: Dialect } = {},
): Promise<X402BenchResult> {
  const n = opts.requests ?? 200;
  const nf = opts.facilitatorRequests ?? 30;
  // Both rails on one service: the chain presents devnet (stock clients' network) and advances by itself (the
  // facilitator waits for confirmation); payments are in devnet USDC, the asset stock clients accept.
  const chain = await startLocalChain({
    autoAdvance: true,
    slotMs: 10,
    scenario: true,
    genesisHash: SOLANA_DEVNET_GENESIS_HASH,
  });
  const rail = await startLocalFacilitatorRail(chain);
  const dialect = opts.dialect ?? 'sqlite';
  // What each timed phase costs besides its own work: SQL statements and RPC calls, counted and timed.
  const io = { statements: 0, sqlMs: 0, writeMs: 0, rpc: {} as Record<string, number>, rpcMs: 0 };
  const database = await benchDb(dialect, {
    onQuery: (event) => {
      io.statements++;
      io.sqlMs += event.queryDurationMillis;
      // The paid request's one write: the payment record, committed durably (docs/data.md "Durability").
      if (/^insert into "x402_payments"/i.test(event.query.sql)) io.writeMs += event.queryDurationMillis;
    },
  });
  try {
    await migrateToLatest(database.db);
    const payer = await createKeyPairSignerFromBytes(base58.decode(chain.scenario!.wallets.payer1!.secretKey));
    await chain.finalizeAll();

    const config = testConfig({
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      SIGIL_X402_PAY_TO: rail.payTo,
      SIGIL_X402_ASSET: rail.asset,
      SIGIL_X402_FACILITATOR_URL: rail.facilitator.url,
      SIGIL_X402_DOMAIN_TAG: 'bench.sigil.test',
      SIGIL_X402_IP_LIMIT_PER_MINUTE: '1000000',
    });
    const reader = createChainReader({
      rpcUrl: config.rpcUrl,
      programId: config.programId,
      timeoutMs: 5_000,
      onRpcCall: ({ method, durationMs }) => {
        io.rpc[method] = (io.rpc[method] ?? 0) + 1;
        io.rpcMs += durationMs;
      },
    });
    const app = await composeTestApp({ config, chain: reader, db: database.db });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const key = await createKey(database.db, {
      account: base58.encode(randomBytes(32)),
      tier: 'partner',
      name: 'bench',
    });
    const path = '/v1/resolve/alice';
    try {
      // Warm-up: both paths once (connections, caches, the genesis hash, the nonce secret).
      await fetch(base + path, { headers: { 'x-api-key': key.secret } }).then((r) => r.text());

      // Pre-build n payments: challenge → pay → (finalize all) → sign. Not timed, except the challenges.
      const built: { header: string; signature: string }[] = [];
      let challengeTotal = 0;
      const entries = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const { entry } = await requestChallenge({ url: base + path }, payer.address);
        challengeTotal += performance.now() - t0;
        const signature = await sendInstructions(
          chain.rpc,
          payer,
          await paymentInstructions(chain.rpc, entry!, payer, {
            mint: { tokenProgram: TOKEN_PROGRAM_ADDRESS, decimals: 6 },
          }),
        );
        entries.push({ entry: entry!, signature });
      }
      await chain.waitForFinalized(entries.at(-1)!.signature);
      for (const { entry, signature } of entries) {
        const payerSig = await signRedeemMessage(payer, entry.extra.redeemMessage!);
        built.push({ signature, header: encodePaymentHeader({ network: entry.network, signature, payerSig }) });
      }

      // The native rail's steps one at a time, on the first payment (before any is consumed), each repeated in a
      // loop: CPU per step, what the service does for a paid request besides the RPC and the durable write. The loops
      // do not yield to timers, so the chain's slot clock (same process) stays out of them. The RPC alone: the same
      // getTransaction for every payment's signature, wall time (the chain answers in this process).
      const steps = await redemptionSteps(
        database.db,
        config.x402!,
        reader,
        payer.address,
        built[0]!,
        entries[0]!.entry,
      );
      const rpcT0 = performance.now();
      for (const { signature } of built) await reader.getTransactionWire(signature, 'finalized');
      const rpcAloneMs = (performance.now() - rpcT0) / n;

      // Keyed and paid requests alternate in rounds, so that a change in the machine's speed during the run
      // touches both alike; each phase sums its rounds.
      const totals = () => ({
        ms: 0,
        cpuMs: 0,
        statements: 0,
        sqlMs: 0,
        writeMs: 0,
        rpc: {} as Record<string, number>,
        rpcMs: 0,
      });
      const phases = { keyed: totals(), paid: totals() };
      if (n % ROUNDS !== 0) throw new Error(`requests (${n}) must be a multiple of ${ROUNDS}`);
      const perRound = n / ROUNDS;
      const round = async (phase: keyof typeof phases, first: number, run: (i: number) => Promise<number>) => {
        Object.assign(io, { statements: 0, sqlMs: 0, writeMs: 0, rpc: {}, rpcMs: 0 });
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = first; i < first + perRound; i++) {
          const status = await run(i);
          if (status !== 200) throw new Error(`bench request ${i} answered ${status}`);
        }
        const t = phases[phase];
        t.ms += performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        t.cpuMs += (cpu.user + cpu.system) / 1000;
        t.statements += io.statements;
        t.sqlMs += io.sqlMs;
        t.writeMs += io.writeMs;
        t.rpcMs += io.rpcMs;
        for (const [m, c] of Object.entries(io.rpc)) t.rpc[m] = (t.rpc[m] ?? 0) + c;
      };
      for (let r = 0; r < ROUNDS; r++) {
        await round('keyed', r * perRound, async () => {
          const res = await fetch(base + path, { headers: { 'x-api-key': key.secret } });
          await res.text();
          return res.status;
        });
        await round('paid', r * perRound, async (i) => {
          const res = await fetch(base + path, {
            headers: { [X402_HEADERS.payer]: payer.address, [X402_HEADERS.payment]: built[i]!.header },
          });
          await res.text();
          return res.status;
        });
      }
      const keyedMs = phases.keyed.ms / n;
      const paidMs = phases.paid.ms / n;

      // Facilitator rail: the stock client builds each payment from a fresh challenge (untimed), then the paid
      // request is timed alone.
      const client = new x402Client().register('solana:*', new ExactSvmScheme(payer, { rpcUrl: chain.url }));
      const http = new x402HTTPClient(client);
      let facilitatorTotal = 0;
      for (let i = 0; i < nf; i++) {
        const res = await fetch(base + path);
        const required = http.getPaymentRequiredResponse((name) => res.headers.get(name), await res.json());
        const headers = http.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
        const t0 = performance.now();
        const r = await fetch(base + path, { headers });
        await r.text();
        facilitatorTotal += performance.now() - t0;
        if (r.status !== 200) throw new Error(`bench facilitator request ${i} answered ${r.status}`);
      }
      const facilitatorMs = facilitatorTotal / nf;

      const result = {
        paidPerSec: 1000 / paidMs,
        paidMicros: paidMs * 1000,
        keyedPerSec: 1000 / keyedMs,
        keyedMicros: keyedMs * 1000,
        challengeMicros: (challengeTotal / n) * 1000,
        overheadMicros: (paidMs - keyedMs) * 1000,
        facilitatorMicros: facilitatorMs * 1000,
        facilitatorOverheadMicros: (facilitatorMs - keyedMs) * 1000,
      };
      const markdown = table(
        [`GET ${path}, sequential, ${n} requests each, ${dialect}`, 'req/s', 'µs/req', 'vs keyed'],
        [
          ['with X-API-Key (baseline)', Math.round(result.keyedPerSec), result.keyedMicros.toFixed(0), '1.00'],
          [
            '402 challenge issued (reference stored)',
            Math.round(1e6 / result.challengeMicros),
            result.challengeMicros.toFixed(0),
            (result.challengeMicros / result.keyedMicros).toFixed(2),
          ],
          [
            'paid, native rail (one pre-built finalized payment each)',
            Math.round(result.paidPerSec),
            result.paidMicros.toFixed(0),
            (result.paidMicros / result.keyedMicros).toFixed(2),
          ],
          ['verification overhead per paid request (paid − keyed)', '', result.overheadMicros.toFixed(0), ''],
          [
            `paid, facilitator rail (stock @x402/fetch payment; ${nf} requests)`,
            Math.round(1e6 / result.facilitatorMicros),
            result.facilitatorMicros.toFixed(0),
            (result.facilitatorMicros / result.keyedMicros).toFixed(2),
          ],
          [
            'facilitator-rail overhead per paid request (paid − keyed)',
            '',
            result.facilitatorOverheadMicros.toFixed(0),
            '',
          ],
        ],
      );
      const us = (ms: number) => (ms * 1000).toFixed(0);
      const perRequest = (t: ReturnType<typeof totals>) => ({
        ms: t.ms / n,
        cpuMs: t.cpuMs / n,
        statements: t.statements / n,
        readMs: (t.sqlMs - t.writeMs) / n,
        writeMs: t.writeMs / n,
        rpcCalls: Object.values(t.rpc).reduce((a, b) => a + b, 0) / n,
        rpcMethods: Object.entries(t.rpc)
          .map(([m, c]) => `${m} ${+(c / n).toFixed(2)}`)
          .join(', '),
        rpcMs: t.rpcMs / n,
      });
      const [k, p] = [perRequest(phases.keyed), perRequest(phases.paid)];
      const rest = (c: typeof k) => c.ms - c.readMs - c.writeMs - c.rpcMs;
      const row = (c: typeof k) => [
        us(c.ms),
        us(c.cpuMs),
        +c.statements.toFixed(2),
        us(c.readMs),
        us(c.writeMs),
        c.rpcMethods || '0',
        us(c.rpcMs),
        us(rest(c)),
      ];
      const breakdown = table(
        [
          `where a request's time goes (${dialect}; ${ROUNDS} alternated rounds)`,
          'µs',
          'CPU µs (client, service and chain: one process)',
          'SQL statements',
          'SQL µs (other statements)',
          'SQL µs (payment record, durable)',
          'RPC calls',
          'RPC µs',
          'rest µs (service code, HTTP)',
        ],
        [
          ['with X-API-Key', ...row(k)],
          ['paid, native rail', ...row(p)],
          [
            'paid − keyed',
            us(p.ms - k.ms),
            us(p.cpuMs - k.cpuMs),
            +(p.statements - k.statements).toFixed(2),
            us(p.readMs - k.readMs),
            us(p.writeMs - k.writeMs),
            +(p.rpcCalls - k.rpcCalls).toFixed(2),
            us(p.rpcMs - k.rpcMs),
            us(rest(p) - rest(k)),
          ],
        ],
      );
      const sum = (f: (c: StepCost) => number) => Object.values(steps).reduce((a, c) => a + f(c), 0);
      const verification = table(
        [
          `a paid request's steps besides the handler (${dialect}; each step ${STEP_REPEATS} times)`,
          'CPU µs',
          'wall µs',
        ],
        [
          ...Object.entries(steps).map(([step, c]) => [step, us(c.cpuMs), us(c.wallMs)]),
          ["the service's own work (sum of the above)", us(sum((c) => c.cpuMs)), us(sum((c) => c.wallMs))],
          [
            `getTransaction, the one RPC (the local chain answers in this process; ${n} signatures)`,
            '',
            us(rpcAloneMs),
          ],
          ['the payment record: one INSERT, committed durably (in the paid rounds)', '', us(p.writeMs)],
        ],
      );
      return { ...result, markdown: `${markdown}\n\n${breakdown}\n\n${verification}` };
    } finally {
      await app.close();
    }
  } finally {
    await database.drop();
    await rail.close();
    await chain.close();
  }
}
