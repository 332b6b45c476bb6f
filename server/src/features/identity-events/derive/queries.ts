// SQL of the registry state the identity indexer keeps (identity_* tables), run inside the transaction that also
// writes the events, so state and log never disagree.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../../platform/db/index';

export type Trx = Transaction<Database>;

export const handleRow = (trx: Trx, account: string) =>
  trx.selectFrom('identity_handles').selectAll().where('account', '=', account).executeTakeFirst();

/** The tokenized handle whose NFT is `mint` (indexed: identity_handles_mint). */
export const handleByMint = (trx: Trx, mint: string) =>
  trx
    .selectFrom('identity_handles')
    .select(['account', 'name', 'owner'])
    .where('mint', '=', mint)
    .where('tokenized', '=', 1)
    .executeTakeFirst();

/** Is any of these mints a kept tokenized handle's NFT? (Read before the indexer's db transaction.) */
export async function anyHandleMint(db: Kysely<Database>, mints: string[]): Promise<boolean> {
  const row = await db
    .selectFrom('identity_handles')
    .select('account')
    .where('mint', 'in', mints)
    .where('tokenized', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}

/** A (re)registration: the handle starts untokenized under `owner`. */
export const registerHandle = (trx: Trx, account: string, name: string, owner: string) =>
  trx
    .insertInto('identity_handles')
    .values({ account, name, owner, tokenized: 0, mint: null })
    .onConflict((oc) => oc.column('account').doUpdateSet({ owner, tokenized: 0, mint: null }))
    .execute();

/** A change of owner that keeps the handle's other state (the row is created when the handle was not kept yet). */
export const upsertHandleOwner = (trx: Trx, account: string, name: string, owner: string | null) =>
  trx
    .insertInto('identity_handles')
    .values({ account, name, owner, tokenized: 0, mint: null })
    .onConflict((oc) => oc.column('account').doUpdateSet({ owner }))
    .execute();

export const updateHandle = (
  trx: Trx,
  account: string,
  set: { owner?: string | null; tokenized?: number; mint?: string | null },
) => trx.updateTable('identity_handles').set(set).where('account', '=', account).execute();

export const primaryWalletsOf = (trx: Trx, handle: string) =>
  trx.selectFrom('identity_primaries').select('wallet').where('handle', '=', handle).orderBy('wallet').execute();

/** The name of the handle a wallet's primary points at (null name: a handle not kept). */
export const primaryNameOf = (trx: Trx, wallet: string) =>
  trx
    .selectFrom('identity_primaries as p')
    .leftJoin('identity_handles as h', 'h.account', 'p.handle')
    .select('h.name')
    .where('p.wallet', '=', wallet)
    .executeTakeFirst();

export const setPrimaryRow = (trx: Trx, wallet: string, handle: string) =>
  trx
    .insertInto('identity_primaries')
    .values({ wallet, handle })
    .onConflict((oc) => oc.column('wallet').doUpdateSet({ handle }))
    .execute();

export const deletePrimary = (trx: Trx, wallet: string) =>
  trx.deleteFrom('identity_primaries').where('wallet', '=', wallet).execute();

export const recordRow = (trx: Trx, account: string) =>
  trx.selectFrom('identity_records').selectAll().where('account', '=', account).executeTakeFirst();

/** A written record starts unverified. */
export const upsertRecord = (
  trx: Trx,
  row: { account: string; handle: string; kind: string; key: string; value: string },
) =>
  trx
    .insertInto('identity_records')
    .values({ ...row, verified: 0 })
    .onConflict((oc) => oc.column('account').doUpdateSet({ value: row.value, verified: 0 }))
    .execute();

export const markRecordVerified = (trx: Trx, account: string) =>
  trx.updateTable('identity_records').set({ verified: 1 }).where('account', '=', account).execute();

export const dropRecords = (trx: Trx, handle: string) =>
  trx.deleteFrom('identity_records').where('handle', '=', handle).execute();

export const attestationRow = (trx: Trx, account: string) =>
  trx.selectFrom('identity_attestations').selectAll().where('account', '=', account).executeTakeFirst();

export const upsertAttestation = (
  trx: Trx,
  row: { account: string; handle: string; issuer: string; platform: string; subject: string; expires_at: number },
) => {
  const { issuer, platform, subject, expires_at } = row;
  return trx
    .insertInto('identity_attestations')
    .values({ ...row, revoked: 0 })
    .onConflict((oc) => oc.column('account').doUpdateSet({ issuer, platform, subject, expires_at, revoked: 0 }))
    .execute();
};

export const markAttestationRevoked = (trx: Trx, account: string) =>
  trx.updateTable('identity_attestations').set({ revoked: 1 }).where('account', '=', account).execute();
