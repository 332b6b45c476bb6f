import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  compilerOptions,
  findSqlSites,
  folderOf,
  isCounted,
  isQueryModule,
  serverFiles,
  type SqlSite,
} from '../../scripts/sql-sites';

const ROOT = resolve(import.meta.dirname, '../..');

const SERVICE = `import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { sql as raw } from 'kysely';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { countRows } from './queries';

interface Db { api_keys: { id: string; name: string } }

// db.selectFrom('api_keys') in a comment is not a call.
const note = "db.insertInto('api_keys') in a string is not one either";
const router = { query: (f: () => number) => f() };
const lookAlike = { selectFrom: (t: string) => t };

export async function verbs(db: Kysely<Db>, pool: pg.Pool, file: BetterSqlite3.Database) {
  router.query(() => 1);
  /^a$/.exec(note);
  lookAlike.selectFrom('api_keys');
  const rows = await db
    .selectFrom('api_keys')
    .select(sql<number>\`count(*)\`.as('n'))
    .execute();
  await sql\`select 1\`.execute(db);
  const lock = rows.length > 0 ? sql\` for update\` : sql\`\`;
  await raw.raw('vacuum').execute(db);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('api_keys').set({ name: 'x' }).execute();
    await countRows(trx);
  });
  await db.schema.dropTable('api_keys').execute();
  await pool.query('select 1');
  file.prepare('select 1').get();
  return lock;
}
`;

const QUERIES = `import type { Kysely } from 'kysely';
interface Db { api_keys: { id: string } }
export const countRows = (db: Kysely<Db>) => db.selectFrom('api_keys').selectAll().execute();
`;

/** A program over files that exist only in memory, under the repository so that packages resolve as in the build. */
function programOf(files: Record<string, string>): { program: ts.Program; names: string[] } {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const byPath = new Map(Object.entries(files).map(([f, text]) => [resolve(ROOT, f), text]));
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => byPath.has(f) || fileExists.call(host, f);
  host.readFile = (f) => byPath.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = byPath.get(f);
    return text === undefined
      ? getSourceFile.call(host, f, language, ...rest)
      : ts.createSourceFile(f, text, language, true);
  };
  const names = [...byPath.keys()];
  return { program: ts.createProgram(names, options, host), names };
}

describe('SQL call sites', () => {
  it('counts Kysely entry points, the schema builder, hand-written sql once per statement and direct driver calls', () => {
    const { program, names } = programOf({
      'server/src/features/demo/service.ts': SERVICE,
      'server/src/features/demo/queries.ts': QUERIES,
    });
    expect(findSqlSites(program, names)).toEqual<SqlSite[]>([
      { file: 'server/src/features/demo/service.ts', line: 19, kind: 'selectFrom' },
      { file: 'server/src/features/demo/service.ts', line: 23, kind: 'sql' },
      { file: 'server/src/features/demo/service.ts', line: 24, kind: 'sql' },
      { file: 'server/src/features/demo/service.ts', line: 25, kind: 'sql.raw' },
      { file: 'server/src/features/demo/service.ts', line: 27, kind: 'updateTable' },
      { file: 'server/src/features/demo/service.ts', line: 30, kind: 'schema' },
      { file: 'server/src/features/demo/service.ts', line: 31, kind: 'pg.query' },
      { file: 'server/src/features/demo/service.ts', line: 32, kind: 'better-sqlite3.prepare' },
    ]);
  });

  it('counts nothing in query modules, the data layer, tests and declarations', () => {
    for (const file of [
      'server/src/features/demo/queries.ts',
      'server/src/features/demo/admit.queries.ts',
      'server/src/features/demo/delivery-queries.ts',
      'server/src/features/demo/queries/keys.ts',
      'server/src/platform/db/lease.ts',
      'server/src/platform/db/migrations/0001_platform.ts',
      'server/src/features/demo/service.happy.test.ts',
      'server/src/platform/db/better-sqlite3-napi.d.ts',
    ])
      expect(isCounted(file), file).toBe(false);
    for (const file of ['server/src/features/demo/service.ts', 'server/src/platform/http/readiness.ts'])
      expect(isCounted(file), file).toBe(true);
    // A name that merely contains the word is not a query module.
    expect(isQueryModule('server/src/features/demo/myqueries.ts')).toBe(false);
    expect(isCounted('scripts/sql-sites.ts')).toBe(false);
    const { program, names } = programOf({ 'server/src/platform/db/demo.ts': SERVICE });
    expect(findSqlSites(program, names)).toEqual([]);
  });

  it('groups sites by feature, by platform folder, else by the first folder under src', () => {
    expect(folderOf('server/src/features/keys/service.ts')).toBe('server/src/features/keys');
    expect(folderOf('server/src/platform/http/readiness.ts')).toBe('server/src/platform/http');
    expect(folderOf('server/src/workers/indexer.ts')).toBe('server/src/workers');
    expect(folderOf('server/src/compose.ts')).toBe('server/src/compose.ts');
  });
});

describe('SQL outside query modules in this repository', () => {
  it(
    'is nowhere: every SQL call site of server/src is in a query module or the data layer',
    { timeout: 240_000 },
    () => {
      const files = serverFiles();
      const sites = findSqlSites(ts.createProgram(files, compilerOptions()), files);
      expect(sites.map((s) => `${s.file}:${s.line} ${s.kind}`)).toEqual([]);
    },
  );
});
