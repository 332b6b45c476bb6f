// The portal builds (`npm run build -w web-portal`: next build, type check included, offline, telemetry off) and
// the built app serves its pages and its backend routes against the real service. ~50 s on this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

const repoRoot = join(import.meta.dirname, '..', '..');
const portalDir = join(repoRoot, 'web-portal');

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  delete env.NODE_ENV; // vitest sets `test`; next chooses its own per command
  return env;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilServing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`next start did not answer ${url} within ${timeoutMs} ms`);
}

let app: KeyedApp;
let portal: ChildProcess | undefined;
let base = '';
let build: { code: number | null; output: string };

beforeAll(async () => {
  app = await startKeyedApp({ dialect: 'sqlite' });
  build = await run('npm', ['run', 'build', '--workspace', 'web-portal'], childEnv({}));
  if (build.code !== 0) return; // reported by the first test
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  portal = spawn(
    join(repoRoot, 'node_modules', '.bin', 'next'),
    ['start', '--hostname', '127.0.0.1', '--port', String(port)],
    {
      cwd: portalDir,
      env: childEnv({ SIGIL_API_URL: app.base, SIGIL_PORTAL_KEY: app.portal.secret }),
      stdio: 'ignore',
    },
  );
  await waitUntilServing(`${base}/`, portal, 30_000);
}, 300_000);

afterAll(async () => {
  if (portal && portal.exitCode === null) {
    const exited = new Promise((r) => portal!.once('exit', r));
    portal.kill('SIGTERM');
    await exited;
  }
  await app?.close();
});

describe('web-portal build', () => {
  it('next build succeeds and writes the production build', () => {
    expect(build.code, build.output).toBe(0);
    expect(existsSync(join(portalDir, '.next', 'BUILD_ID'))).toBe(true);
    expect(build.output).toContain('/api/connect/[op]');
    expect(build.output).toContain('/keys');
  });

  it('serves the pages with anti-framing headers', async () => {
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('x-frame-options')).toBe('DENY');
    expect(await home.text()).toContain('Look up a name or wallet');
    const keys = await fetch(`${base}/keys`);
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain('API keys');
  });

  it('the built route handlers reach the service: lookup over tRPC, Connect with the portal key', async () => {
    const input = encodeURIComponent(JSON.stringify({ name: '@alice' }));
    const resolved = await fetch(`${base}/api/trpc/resolve.resolve?input=${input}`);
    const body = await resolved.json();
    expect(resolved.status, JSON.stringify(body)).toBe(200);
    expect(body.result.data).toMatchObject({ input: '@alice', name: 'alice', namespace: 'handle' });

    const challenge = await fetch(`${base}/api/connect/challenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: app.chain.scenario!.reverse.plainWithPrimary }),
    });
    const challengeBody = await challenge.json();
    expect(challenge.status, JSON.stringify(challengeBody)).toBe(200);
    expect(challengeBody.audience).toBe(app.portal.key.id);

    const other = await fetch(`${base}/api/connect/keys`, { method: 'POST', body: '{}' });
    expect(other.status).toBe(404);
    expect(await other.json()).toStrictEqual({ code: 'NOT_FOUND', message: 'unsupported operation: keys' });
  });
});
