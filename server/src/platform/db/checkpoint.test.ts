// WAL checkpoints run in the worker thread (checkpoint.ts), not inside the service connection's commits.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, SAFETY_NET_PAGES } from './checkpoint';
import { createDatabase } from './connect';

it("moves committed pages into the database file without the connection's own checkpoint, and closes cleanly", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-checkpoint-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'db.sqlite');
  const handle = createDatabase({ sqliteFile: file });
  const { db } = handle;
  expect((await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db)).rows[0]).toEqual({
    wal_autocheckpoint: SAFETY_NET_PAGES,
  });
  await sql`CREATE TABLE filler (body TEXT)`.execute(db);
  const settled = statSync(file).size;
  // ~1 MB: far below either automatic threshold (1,000 pages by default, SAFETY_NET_PAGES here), so only the
  // worker's checkpoint can bring these pages into the database file.
  for (let i = 0; i < 64; i++) await sql`INSERT INTO filler (body) VALUES (${'x'.repeat(16_000)})`.execute(db);
  const deadline = Date.now() + 50 * CHECKPOINT_INTERVAL_MS;
  while (statSync(file).size < settled + 1_000_000 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  expect(statSync(file).size).toBeGreaterThan(settled + 1_000_000);
  await handle.close();
  // The service connection closed last: SQLite's last-close checkpoint removed the WAL, as without the worker.
  expect(existsSync(`${file}-wal`)).toBe(false);
});
