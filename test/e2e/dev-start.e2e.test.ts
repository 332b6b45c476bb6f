// `npm start` (server/src/dev.ts) as a person runs it: it comes up, prints its banner, and on Ctrl-C (SIGINT) stops
// and says so, exit code 0. Ports of its own so it never meets another local run.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

it('npm start says on Ctrl-C that it stopped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-dev-'));
  const [port, chainPort, agentPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server/src/dev.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      SIGIL_LOCALCHAIN_PORT: String(chainPort),
      SIGIL_AGENT_HOST_PORT: String(agentPort),
      MCP_BIND: `127.0.0.1:${mcpPort}`,
      DATABASE_URL: `sqlite:${join(dir, 'dev.sqlite')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.resume();
  try {
    for (let i = 0; i < 1200 && !stdout.includes('Stop with Ctrl-C.') && child.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(stdout).toContain(`Sigil is running at http://127.0.0.1:${port}`);
    child.kill('SIGINT');
    // 'close', not 'exit': the exit can come before the last bytes of stdout have been read.
    await once(child, 'close');
    expect(child.exitCode).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('Sigil stopped.');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);
