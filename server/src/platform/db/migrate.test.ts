import { sql, type Kysely, type Migration } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { describeEachDialect, freshDatabase, type FreshDatabase } from '@sigil/test/support/db';
import { runTogether } from '@sigil/test/support/db-children';
import { migrateToLatest } from './index';
import { migrations } from './migrations/index';

async function tableNames(db: Kysely<any>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables.map((t) => t.name).sort();
}

// Every real migration, in order: features add theirs, so the expectations below derive from the list.
const ALL = Object.keys(migrations);

async function appliedNames(db: Kysely<any>): Promise<string[]> {
  const rows = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
  return rows.map((r) => r.name as string);
}

describe('the migration list', () => {
  it('is numbered, in order, and each migration has an up', () => {
    const names = Object.keys(migrations);
    expect(names[0]).toBe('0001_platform');
    for (const name of names) expect(name).toMatch(/^\d{4}_[a-z0-9_]+$/);
    expect([...names].sort()).toEqual(names);
    for (const m of Object.values(migrations)) expect(typeof m.up).toBe('function');
  });
});

describeEachDialect(
  'migrateToLatest',
  (ctx) => {
    const extra: FreshDatabase[] = [];
    afterEach(async () => {
      await Promise.all(extra.splice(0).map((d) => d.drop()));
    });
    const fresh = async () => {
      const d = await freshDatabase(ctx.dialect, { migrate: false });
      extra.push(d);
      return d;
    };

    it('creates the platform tables, then is a no-op when run again', async () => {
      expect(await migrateToLatest(ctx.db)).toEqual(ALL);
      expect(await tableNames(ctx.db)).toEqual(
        expect.arrayContaining(['kv', 'kysely_migration', 'kysely_migration_lock', 'leases']),
      );
      expect(await migrateToLatest(ctx.db)).toEqual([]);
      expect(await migrateToLatest(ctx.db)).toEqual([]);
      expect(await appliedNames(ctx.db)).toEqual(ALL);
    });

    it('applies only the new migration when one is added later', async () => {
      const d = await fresh();
      await migrateToLatest(d.db);
      const next: Migration = { up: (db) => db.schema.createTable('test_feature').addColumn('id', 'text').execute() };
      expect(await migrateToLatest(d.db, { migrations: { ...migrations, '9998_test_feature': next } })).toEqual([
        '9998_test_feature',
      ]);
      expect(await appliedNames(d.db)).toEqual([...ALL, '9998_test_feature']);
    });

    it('rolls a failing migration back whole and names it in the error', async () => {
      const d = await fresh();
      await migrateToLatest(d.db);
      const broken: Migration = {
        up: async (db) => {
          await db.schema.createTable('test_half_done').addColumn('id', 'text').execute();
          await sql`select * from table_that_does_not_exist`.execute(db);
        },
      };
      await expect(migrateToLatest(d.db, { migrations: { ...migrations, '9998_broken': broken } })).rejects.toThrow(
        /^migration 9998_broken failed: .*table_that_does_not_exist/,
      );
      expect(await tableNames(d.db)).not.toContain('test_half_done');
      expect(await appliedNames(d.db)).toEqual(ALL);
    });

    it('applies each migration once when two processes start at the same moment', async () => {
      const d = await fresh();
      // Each child also runs a slow extra migration (300 ms): without a lock, both would see it pending.
      const results = await runTogether<string[]>([
        { kind: 'migrate', url: d.url, slowMs: 300 },
        { kind: 'migrate', url: d.url, slowMs: 300 },
      ]);
      const everything = [...ALL, '9999_test_slow'];
      expect(results.map((r) => r.length).sort((a, b) => a - b)).toEqual([0, everything.length]); // one did all the work, the other none
      expect(results.flat().sort()).toEqual(everything);
      expect(await appliedNames(d.db)).toEqual(everything);
    });

    if (ctx.dialect === 'postgres') {
      it('applies each migration once when several pools in one process race (advisory lock)', async () => {
        const d = await fresh();
        const { createDatabase } = await import('./index');
        const handles = Array.from({ length: 4 }, () => createDatabase({ url: d.url, poolSize: 2 }));
        try {
          const results = await Promise.all(handles.map((h) => migrateToLatest(h.db)));
          expect(results.flat()).toEqual(ALL);
        } finally {
          await Promise.all(handles.map((h) => h.close()));
        }
      });
    }
  },
  { migrate: false },
);
