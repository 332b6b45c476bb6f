/**
 * The local chain's read path, alone: chain-process CPU per JSON-RPC call for the reads a sign-in makes.
 * The chain runs in its own process (server/src/localchain/main.ts, demo scenario, slots advancing every 400 ms
 * as in `npm run bench -- connect`); this process sends N sequential POSTs on a kept-alive undici Pool and reads
 * the chain's utime+stime from /proc/<pid>/stat before and after each batch.
 *
 *   node --import tsx test/bench/localchain-reads.ts [N] [C]  (default N = 3000 calls per kind, C = 1 in flight)
 *   ONLY=getAccountInfo BENCH_PROFILE_DIR=/tmp/prof node --import tsx test/bench/localchain-reads.ts
 *
 * Linux only (/proc). CPU ticks are 10 ms, so N should be large enough for the batch to take a few hundred ms.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { base58 } from '@scure/base';
import { getBase58Decoder } from '@solana/kit';
import { Pool } from 'undici';
import { ACCOUNT_DISCRIMINATORS, ACCOUNT_OFFSETS } from '../../server/src/platform/chain/registry/index';
import { startChainProcess, stop } from './support';

function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, clock ticks of 10 ms
}

const n = Number(process.argv[2] ?? 3000);
const concurrency = Number(process.argv[3] ?? 1);
// BENCH_PROFILE_DIR=<dir>: the chain writes a V8 CPU profile there on exit.
const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
const chain = await startChainProcess(profile);
const pid = chain.child.pid!;
const pool = new Pool(chain.url, { connections: concurrency });
try {
  const alice = chain.scenario.handles.alice.account as string;
  const missing = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'; // a valid address no scenario account uses
  const discriminator = getBase58Decoder().decode(ACCOUNT_DISCRIMINATORS.Attestation);
  // A different address on every call: every read misses the chain's read cache (as a sign-in by a new wallet does).
  let fresh = 0;
  const freshAddresses = Array.from({ length: 4096 }, () => base58.encode(randomBytes(32)));
  const calls: Record<string, { method: string; params: unknown[] } | (() => { method: string; params: unknown[] })> = {
    'getAccountInfo(alice handle, confirmed, base64)': {
      method: 'getAccountInfo',
      params: [alice, { encoding: 'base64', commitment: 'confirmed' }],
    },
    'getAccountInfo(missing, confirmed, base64)': {
      method: 'getAccountInfo',
      params: [missing, { encoding: 'base64', commitment: 'confirmed' }],
    },
    'getAccountInfo(a new missing address each call, confirmed, base64)': () => ({
      method: 'getAccountInfo',
      params: [freshAddresses[fresh++ % freshAddresses.length], { encoding: 'base64', commitment: 'confirmed' }],
    }),
    'getProgramAccounts(attestations of alice)': {
      method: 'getProgramAccounts',
      params: [
        chain.programId,
        {
          encoding: 'base64',
          commitment: 'confirmed',
          filters: [
            { memcmp: { offset: 0, bytes: discriminator, encoding: 'base58' } },
            { memcmp: { offset: ACCOUNT_OFFSETS.Attestation.handle, bytes: alice, encoding: 'base58' } },
          ],
        },
      ],
    },
  };
  const post = async (body: string) => {
    const res = await pool.request({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const json = (await res.body.json()) as { error?: unknown; result?: unknown };
    if (res.statusCode !== 200 || json.error)
      throw new Error(`chain answered ${res.statusCode} ${JSON.stringify(json)}`);
    return json.result;
  };
  const selected = Object.entries(calls)
    .filter(([name]) => !process.env.ONLY || name.includes(process.env.ONLY))
    .map(([name, call]) => ({
      name,
      body: () => {
        const { method, params } = typeof call === 'function' ? call() : call;
        return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      },
    }));
  for (const { name, body } of selected) {
    const first = await post(body());
    if (name.startsWith('getProgramAccounts') && (first as unknown[]).length === 0)
      throw new Error('no attestations for alice');
  }
  /** n calls, `concurrency` at a time. */
  const batch = async (count: number, body: () => string) => {
    let left = count;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await post(body());
      }),
    );
  };
  // Warm up every kind first: V8 compiles hot code on background threads of the chain process, which /proc counts.
  for (let round = 0; round < 4; round++) for (const { body } of selected) await batch(500, body);
  const rows: string[] = [];
  for (const { name, body } of selected) {
    const cpu0 = processCpuMs(pid);
    const t0 = performance.now();
    await batch(n, body);
    const wallMs = performance.now() - t0;
    const cpuMs = processCpuMs(pid) - cpu0;
    rows.push(`| ${name} | ${Math.round((cpuMs * 1000) / n)} | ${Math.round((wallMs * 1000) / n)} |`);
  }
  console.log(`\n${n} calls each, ${concurrency} in flight; chain process CPU (user+system) per call\n`);
  console.log('| call | chain CPU µs/call | wall µs/call (÷ in flight) |');
  console.log('| --- | ---: | ---: |');
  for (const row of rows) console.log(row);
} finally {
  await pool.close();
  await stop(chain.child);
}
