// The production start as an operator runs it: `npm run build`, then plain `node server/dist/main.js` (no tsx),
// NODE_ENV=production, against a chain RPC over HTTP. Liveness, readiness (database and RPC), the version read from
// server/package.json, every metric docs/deploy.md tells an operator to alert on, and a graceful SIGTERM.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../server/src/localchain/index';

const root = join(import.meta.dirname, '../..');
let PORT = 0;
let base = '';

let chain: LocalChain;
let child: ChildProcess;
let stdout = '';
let dir: string;

/** A port free right now (the child listens on it). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

beforeAll(async () => {
  PORT = await freePort();
  base = `http://127.0.0.1:${PORT}`;
  await promisify(execFile)(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root });
  chain = await startLocalChain({ scenario: false });
  dir = mkdtempSync(join(tmpdir(), 'sigil-prod-'));
  child = spawn(process.execPath, [join(root, 'server/dist/main.js')], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(PORT),
      SIGIL_RPC_URL: chain.url,
      SIGIL_PROGRAM_ID: chain.programId,
      DATABASE_URL: `sqlite:${join(dir, 'sigil.sqlite')}`,
      SIGIL_X402_NONCE_SECRET: 'n'.repeat(32),
      SIGIL_HANDLE_INDEX_INTERVAL_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.resume();
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the built service did not come up:\n${stdout}`);
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await chain?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the compiled service on plain node', () => {
  it('is live and ready (database and RPC answer)', async () => {
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { database: 'ok', rpc: 'ok' } });
  });

  it('reports the version of server/package.json', async () => {
    const res = await fetch(`${base}/version`);
    expect(res.status).toBe(200);
    expect((await res.json()).version).toBe('0.1.0');
  });

  it('exposes every metric an operator alerts on', async () => {
    await fetch(`${base}/nope`);
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const name of [
      'sigil_http_requests_total',
      'sigil_http_request_duration_seconds_bucket',
      'sigil_rpc_calls_total',
      'sigil_rpc_errors_total',
      'sigil_rpc_call_duration_seconds_bucket',
      'sigil_rate_limit_rejections_total',
      'sigil_webhook_delivery_backlog',
      'sigil_webhook_delivery_lag_seconds',
      'sigil_webhook_dead_letters',
      'sigil_indexer_slot_lag',
      'sigil_process_cpu_seconds_total',
    ]) {
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name.replace(/_bucket$/, '')} `, 'm'));
    }
  });

  it('drains on SIGTERM: exits 0 with "stopped" as its last log line', async () => {
    child.kill('SIGTERM');
    // 'close', not 'exit': the exit can come before the last bytes of stdout have been read.
    await once(child, 'close');
    expect(child.exitCode).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!).msg).toBe('stopped');
    expect(lines.some((l) => JSON.parse(l).msg === 'shutting down')).toBe(true);
  });
});
