import type { Kysely } from 'kysely';
import { affectedRows } from './rows';
import type { Database } from './schema';

/**
 * Leases: a named claim held by one holder until `expires_at` (epoch ms). A worker that must run on one
 * replica only (the indexer, a delivery batch) acquires the lease, renews it well before the TTL runs out,
 * and stops working as soon as a renew returns false. Each operation is ONE statement whose row count
 * decides the outcome, so concurrent callers on either dialect cannot both win.
 *
 * Time is the caller's clock (`now`, default Date.now()): replicas must keep their clocks in sync (NTP) and
 * TTLs must be much larger than any skew between them.
 */

function checkTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`lease ttlMs must be a positive integer, got ${ttlMs}`);
}

/**
 * Takes the lease if it is free, expired, or already ours (then it is extended). True when `holder` now holds it.
 */
export async function acquireLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  ttlMs: number,
  now: number = Date.now(),
): Promise<boolean> {
  checkTtl(ttlMs);
  const result = await db
    .insertInto('leases')
    .values({ name, holder, expires_at: now + ttlMs })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet((eb) => ({ holder: eb.ref('excluded.holder'), expires_at: eb.ref('excluded.expires_at') }))
        // Only an expired lease or our own may be overwritten; otherwise the statement changes no row.
        .where((eb) => eb.or([eb('leases.expires_at', '<=', now), eb('leases.holder', '=', holder)])),
    )
    .executeTakeFirst();
  return affectedRows(result) === 1;
}

/**
 * Extends a lease we still hold. False when it expired or someone else holds it: the caller has lost it
 * and must stop the guarded work (even if nobody took it yet — past its expiry it was up for grabs).
 */
export async function renewLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  ttlMs: number,
  now: number = Date.now(),
): Promise<boolean> {
  checkTtl(ttlMs);
  const result = await db
    .updateTable('leases')
    .set({ expires_at: now + ttlMs })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return affectedRows(result) === 1;
}

/** Gives the lease up so another replica can take it at once. False when we did not hold it. */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<boolean> {
  const result = await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).executeTakeFirst();
  return affectedRows(result) === 1;
}

/** Who holds the lease right now, if anyone (for health pages and tests). */
export async function currentLease(
  db: Kysely<Database>,
  name: string,
  now: number = Date.now(),
): Promise<{ holder: string; expiresAt: number } | undefined> {
  const row = await db
    .selectFrom('leases')
    .select(['holder', 'expires_at'])
    .where('name', '=', name)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { holder: row.holder, expiresAt: row.expires_at };
}
