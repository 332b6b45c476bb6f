import { Migrator, sql, type Kysely, type MigrationResult, type MigrationProvider, type Migration } from 'kysely';
import { dialectOf } from './connect';
import { migrations as allMigrations } from './migrations/index';

export interface MigrateOptions {
  /** Defaults to every migration under ./migrations. Tests pass their own to exercise the runner. */
  migrations?: Record<string, Migration>;
}

/**
 * Applies every pending migration. Safe to call on every start, and from several processes at once:
 * - Postgres: Kysely's Migrator holds a session advisory lock (`pg_advisory_lock`) and runs all pending
 *   migrations in one transaction, so a second process waits, then finds nothing to do.
 * - SQLite: Kysely's SQLite lock is a no-op (it only guards its own single connection), so we wrap the run in
 *   `BEGIN IMMEDIATE`: the file's write lock serializes processes (the loser waits up to busy_timeout), and a
 *   failed migration rolls back whole, as on Postgres.
 * Returns the names of the migrations it applied (empty when already up to date).
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => options.migrations ?? allMigrations };
  if (dialectOf(db) === 'postgres') {
    return applied(await new Migrator({ db, provider }).migrateToLatest());
  }
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const names = applied(await new Migrator({ db: conn, provider }).migrateToLatest());
      await sql`commit`.execute(conn);
      return names;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}

function applied({ error, results }: { error?: unknown; results?: MigrationResult[] }): string[] {
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(failed ? `migration ${failed} failed: ${reason}` : `migrations failed: ${reason}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
