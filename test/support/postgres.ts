import pg from 'pg';

/** The server the Postgres half of the matrix uses. Override with SIGIL_TEST_POSTGRES_URL. */
export const POSTGRES_ADMIN_URL = process.env.SIGIL_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** CI (and anyone who sets SIGIL_REQUIRE_POSTGRES=1) must run the Postgres suites: unreachable is a failure. */
export function postgresRequired(): boolean {
  return process.env.CI === 'true' || process.env.SIGIL_REQUIRE_POSTGRES === '1';
}

/** Where the URL points, without credentials (for messages). */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'an unparseable SIGIL_TEST_POSTGRES_URL';
  }
}

/** Undefined when Postgres answers `select 1` within 3 s; otherwise why it did not. */
export async function probePostgres(url: string = POSTGRES_ADMIN_URL): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

export function skipLine(reason: string): string {
  return `postgres not reachable at ${describePostgresUrl(POSTGRES_ADMIN_URL)} (${reason}) — skipping postgres suites`;
}

export function requiredFailure(reason: string): string {
  const why = process.env.CI === 'true' ? 'CI=true' : 'SIGIL_REQUIRE_POSTGRES=1';
  return `postgres not reachable at ${describePostgresUrl(POSTGRES_ADMIN_URL)} (${reason}) — and ${why} requires the postgres suites`;
}
