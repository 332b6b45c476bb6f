import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildJob } from './db-child';

const CHILD = fileURLToPath(new URL('./db-child.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Starts one process per job, waits until every one has opened its database, then tells them all "go" at once,
 * so the race happens between real OS processes (each with its own SQLite connection / Postgres pool).
 * Resolves with each child's JSON result, in job order.
 * `script` is another child speaking the same protocol (print "ready", wait for "go" on stdin, print one JSON line).
 */
export async function runTogether<T = unknown, J = ChildJob>(
  jobs: J[],
  timeoutMs = 60_000,
  script: string = CHILD,
): Promise<T[]> {
  const children = jobs.map((job) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(job)], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => stdout.startsWith('ready\n') && resolve();
      child.stdout.on('data', check);
      child.on('exit', (code) => reject(new Error(`db-child exited (${code}) before ready: ${stderr.trim()}`)));
    });
    const done = new Promise<T>((resolve, reject) => {
      child.on('exit', (code) => {
        const last = stdout.trim().split('\n').pop() ?? '';
        if (code !== 0) return reject(new Error(`db-child exited with ${code}: ${stderr.trim()}`));
        try {
          resolve(JSON.parse(last) as T);
        } catch {
          reject(new Error(`db-child printed no result: ${stdout} ${stderr}`));
        }
      });
    });
    // Awaited below; these no-op handlers only keep an early failure from also surfacing as 'unhandled'.
    ready.catch(() => {});
    done.catch(() => {});
    return { child, ready, done };
  });
  const timer = setTimeout(() => children.forEach(({ child }) => child.kill('SIGKILL')), timeoutMs);
  try {
    await Promise.all(children.map((c) => c.ready));
    for (const { child } of children) child.stdin.write('go\n');
    return await Promise.all(children.map((c) => c.done));
  } finally {
    clearTimeout(timer);
    for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}
