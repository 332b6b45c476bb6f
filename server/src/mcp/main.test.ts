// The MCP process as an operator runs it: bad configuration → one JSON line per bad variable and exit 1; a good one →
// it listens, serves tools/list, and stops on SIGTERM with exit 0; stdout carries nothing but JSON lines.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  // 'close', not 'exit': it comes after the child's stdout has been read to its end (the last log line included).
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout };
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('bad configuration: one JSON line per bad variable, exit 1', async () => {
  const p = start({ SIGIL_PROGRAM_ID: 'nope', MCP_BIND: 'nowhere' });
  expect(await p.exited).toBe(1);
  const lines = jsonLines(p.stdout());
  // One line per bad variable (in any order: the lines may reach the pipe in another order than written).
  expect(lines.map((l) => l.variable).sort()).toEqual(['MCP_BIND', 'SIGIL_PROGRAM_ID', 'SIGIL_RPC_URL']);
  expect(lines.every((l) => l.level === 'fatal')).toBe(true);
}, 30_000);

it('listens on MCP_BIND, answers tools/list, stops on SIGTERM with exit 0', async () => {
  const p = start({
    SIGIL_RPC_URL: 'http://127.0.0.1:1',
    SIGIL_PROGRAM_ID: 'SigiLRegistry111111111111111111111111111111',
    MCP_BIND: '127.0.0.1:0',
    LOG_LEVEL: 'info',
  });
  let url: string | undefined;
  for (let i = 0; i < 300 && !url; i++) {
    url = jsonLines(p.stdout()).find((l) => l.msg === 'mcp server listening')?.url as string | undefined;
    if (!url) await new Promise((r) => setTimeout(r, 100));
  }
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const res = await fetch(url!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect((await res.json()).result.tools.length).toBeGreaterThanOrEqual(4);
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
  // Both lines of the graceful path (pino may hand the two to stdout in either order).
  expect(jsonLines(p.stdout()).map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
}, 60_000);
