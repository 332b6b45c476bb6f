// The process itself, spawned: configuration errors stop it with one line; SIGTERM drains in-flight requests.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_PROGRAM_ID } from './platform/config';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'abc' }, 'sigil: invalid configuration: PORT must be an integer (got "abc")\n'],
    [{ SIGIL_RPC_URL: '' }, 'sigil: invalid configuration: SIGIL_RPC_URL is required\n'],
    [
      { DATABASE_URL: 'mysql://x' },
      'sigil: invalid configuration: DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "mysql://x")\n',
    ],
  ])('%j stops the process: exit 1, one line on stderr naming the variable, no stack', async (bad, line) => {
    const p = startMain({ SIGIL_RPC_URL: 'http://127.0.0.1:1', SIGIL_PROGRAM_ID: TEST_PROGRAM_ID, ...bad });
    expect(await p.exited).toBe(1);
    expect(p.err()).toBe(line);
    expect(p.out()).toBe('');
  });
});

/** A JSON-RPC server that answers the three /version reads; getVersion waits `delayMs` and reports its arrival. */
async function slowRpc(delayMs: number) {
  let onGetVersion: () => void = () => {};
  const getVersionArrived = new Promise<void>((r) => (onGetVersion = r));
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method } = JSON.parse(body);
      const results: Record<string, unknown> = {
        getVersion: { 'solana-core': '2.1.0', 'feature-set': 1 },
        getGenesisHash: '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn',
        getSlot: 77,
      };
      const answer = () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id, result: results[method] }));
      if (method === 'getVersion') {
        onGetVersion();
        setTimeout(answer, delayMs);
      } else answer();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, getVersionArrived };
}

/** Resolves with the base URL once the spawned process logs that it listens. */
function listening(p: ReturnType<typeof startMain>): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = p.out().match(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearInterval(timer);
        resolve(m[1]!);
      }
    }, 50);
    p.exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`exited ${code}: ${p.err()}`));
    });
  });
}

/** A raw connection: the answers it received, split per response, once it has that many, and once it closed. */
function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  const split = () => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
  const waiting: { n: number; resolve: () => void }[] = [];
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const w of waiting.filter((w) => split().length >= w.n)) w.resolve();
  });
  socket.on('error', () => {});
  const closed = new Promise<string[]>((resolve) => socket.on('close', () => resolve(split())));
  return {
    socket,
    closed,
    answers: (n: number) => new Promise<void>((resolve) => waiting.push({ n, resolve })),
  };
}

/** Resolves once the spawned process logged a line with this message. */
function logged(p: ReturnType<typeof startMain>, msg: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (
        p
          .out()
          .split('\n')
          .some((l) => l.includes(`"msg":"${msg}"`))
      )
        return resolve();
      p.child.stdout!.once('data', check);
    };
    check();
  });
}

// Each test spawns the process (tsx compiles it at start): slow on a busy machine.
describe('graceful shutdown', { timeout: 120_000 }, () => {
  it('SIGTERM with no drain window: stops accepting, finishes the in-flight request, exits 0', async () => {
    const rpc = await slowRpc(1500);
    const p = startMain({
      SIGIL_RPC_URL: rpc.url,
      SIGIL_PROGRAM_ID: TEST_PROGRAM_ID,
      SIGIL_RPC_TIMEOUT_MS: '10000',
      SIGIL_DRAIN_MS: '0',
      DATABASE_URL: 'sqlite::memory:',
      PORT: '0',
    });
    const base = await listening(p);
    const inFlight = fetch(`${base}/version`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await rpc.getVersionArrived; // the request is now waiting on the slow RPC
    p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const late = await fetch(`${base}/health`).then(
      (r) => r.status,
      () => 'refused',
    );

    expect(await inFlight).toEqual({
      status: 200,
      body: {
        service: 'sigil',
        version: '0.1.0',
        rpc: new URL(rpc.url).host,
        program: TEST_PROGRAM_ID,
        chain: { version: '2.1.0', genesisHash: '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn', slot: 77 },
      },
    });
    expect(late === 'refused' || late === 503, `a request after SIGTERM got ${late}`).toBe(true);
    expect(await p.exited).toBe(0);
    const messages = p
      .out()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).msg);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });

  it('SIGTERM with a drain window: kept connections are served, pipelined requests too, /ready says draining', async () => {
    const rpc = await slowRpc(1500);
    const p = startMain({
      SIGIL_RPC_URL: rpc.url,
      SIGIL_PROGRAM_ID: TEST_PROGRAM_ID,
      SIGIL_RPC_TIMEOUT_MS: '10000',
      SIGIL_DRAIN_MS: '3000',
      DATABASE_URL: 'sqlite::memory:',
      PORT: '0',
    });
    const base = await listening(p);
    const { port } = new URL(base);
    const idle = connection(Number(port));
    idle.socket.write('GET /health HTTP/1.1\r\nHost: a\r\n\r\n');
    await idle.answers(1); // answered; the connection is kept, idle
    // In flight when the signal comes, with a request pipelined behind it on the same connection.
    const busy = connection(Number(port));
    busy.socket.write('GET /version HTTP/1.1\r\nHost: a\r\n\r\nGET /health HTTP/1.1\r\nHost: a\r\n\r\n');
    await rpc.getVersionArrived;

    p.child.kill('SIGTERM');
    await logged(p, 'draining');
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, draining: true });
    idle.socket.write('GET /health HTTP/1.1\r\nHost: a\r\n\r\n');

    const [, late] = await idle.closed;
    expect(late).toMatch(/^HTTP\/1\.1 200 /);
    expect(late).toMatch(/\r\nconnection: close\r\n/i);
    expect(late).toMatch(/\{"ok":true\}$/);
    const [version, behind] = await busy.closed;
    expect(version).toMatch(/^HTTP\/1\.1 200 /);
    expect(version).not.toMatch(/\r\nconnection: close\r\n/i);
    // Answered before the signal, sent once the one ahead of it is: the connection closes after it, idle.
    expect(behind).toMatch(/^HTTP\/1\.1 200 /);
    expect(behind).toMatch(/\{"ok":true\}$/);
    expect(await p.exited).toBe(0);
  });

  it('SIGINT: exits 0 too', async () => {
    const p = startMain({
      SIGIL_RPC_URL: 'http://127.0.0.1:1',
      SIGIL_PROGRAM_ID: TEST_PROGRAM_ID,
      SIGIL_DRAIN_MS: '0',
      DATABASE_URL: 'sqlite::memory:',
      PORT: '0',
    });
    await listening(p);
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
  });
});
