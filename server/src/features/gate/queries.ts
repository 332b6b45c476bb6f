// Gate policy queries (docs/gate.md "Policies"). Every read and write is scoped to the owning account: a policy of
// another account is indistinguishable from one that does not exist.
import type { Kysely } from 'kysely';
import type { Database, GatePoliciesTable } from '../../platform/db/index';
import { affectedRows } from '../../platform/db/rows';

export type PolicyRow = GatePoliciesTable;
export interface PolicyVersionRow {
  version: number;
  hash: string;
  body: string;
  created_at: number;
}

export async function countPolicies(db: Kysely<Database>, account: string): Promise<number> {
  const row = await db
    .selectFrom('gate_policies')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', account)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPolicy(db: Kysely<Database>, row: PolicyRow, body: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('gate_policies').values(row).execute();
    await tx
      .insertInto('gate_policy_versions')
      .values({ policy_id: row.id, version: row.version, hash: row.hash, body, created_at: row.updated_at })
      .execute();
  });
}

export function listPolicies(db: Kysely<Database>, account: string): Promise<PolicyRow[]> {
  return db.selectFrom('gate_policies').selectAll().where('account', '=', account).orderBy('id').execute();
}

export function findPolicy(db: Kysely<Database>, account: string, id: string): Promise<PolicyRow | undefined> {
  return db
    .selectFrom('gate_policies')
    .selectAll()
    .where('account', '=', account)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** One version of an account's policy (the current one when `version` is absent), with the policy row. */
export async function findPolicyVersion(
  db: Kysely<Database>,
  account: string,
  id: string,
  version?: number,
): Promise<{ policy: PolicyRow; version: PolicyVersionRow } | undefined> {
  const policy = await findPolicy(db, account, id);
  if (!policy) return undefined;
  const row = await db
    .selectFrom('gate_policy_versions')
    .select(['version', 'hash', 'body', 'created_at'])
    .where('policy_id', '=', id)
    .where('version', '=', version ?? policy.version)
    .executeTakeFirst();
  return row ? { policy, version: row } : undefined;
}

/**
 * Moves the policy to its next version when its current hash is still `ifMatch`: one conditional UPDATE decides
 * (of two racing replaces with the same If-Match, the second finds the hash changed and updates nothing), and the
 * version row is written in the same transaction. Returns the new version, or null when the condition failed.
 */
export async function replacePolicy(
  db: Kysely<Database>,
  input: { account: string; id: string; ifMatch: string; hash: string; body: string; name?: string; now: number },
): Promise<number | null> {
  return db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('gate_policies')
      .set((eb) => ({
        version: eb('version', '+', 1),
        hash: input.hash,
        updated_at: input.now,
        ...(input.name === undefined ? {} : { name: input.name }),
      }))
      .where('account', '=', input.account)
      .where('id', '=', input.id)
      .where('hash', '=', input.ifMatch)
      .returning('version')
      .executeTakeFirst();
    if (!updated) return null;
    await tx
      .insertInto('gate_policy_versions')
      .values({
        policy_id: input.id,
        version: updated.version,
        hash: input.hash,
        body: input.body,
        created_at: input.now,
      })
      .execute();
    return updated.version;
  });
}

/** Deletes the policy and its versions; with `ifMatch`, only while that is its current hash. Rows deleted (0/1). */
export async function deletePolicy(
  db: Kysely<Database>,
  account: string,
  id: string,
  ifMatch?: string,
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    let query = tx.deleteFrom('gate_policies').where('account', '=', account).where('id', '=', id);
    if (ifMatch !== undefined) query = query.where('hash', '=', ifMatch);
    const deleted = affectedRows(await query.executeTakeFirst());
    if (deleted) await tx.deleteFrom('gate_policy_versions').where('policy_id', '=', id).execute();
    return deleted;
  });
}
