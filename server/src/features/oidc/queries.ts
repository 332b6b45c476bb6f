// OpenID Connect rows: the library's stored models, client registrations, and the Connect session behind each
// grant. Queries only. The statements of a sign-in (a dozen kinds, about thirty runs) are prepared once
// (platform/db/prepared.ts): building each anew cost more than running it. On SQLite the reads run on the native
// connection (prepared.ts) and the group-committed writes inside the group commit's own transaction
// (withoutFsyncNative): the same statements without Kysely's connection lock and promise hops.
import type { Kysely, Selectable } from 'kysely';
import {
  affectedRows,
  prepared,
  withoutFsyncNative,
  type Database,
  type NativeQuery,
  type OidcClientsTable,
  type OidcLoginsTable,
  type OidcPayloadsTable,
  type Slots,
} from '../../platform/db/index';

export type ClientRow = Selectable<OidcClientsTable>;

// ── the library's models ─────────────────────────────────────────────────────────────────────────────

export interface PayloadRow {
  payload: string;
  grant_id: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

/** A stored model as written: every column but the consume mark, which only a consume sets. */
type PayloadUpsert = Omit<OidcPayloadsTable, 'consumed_at'>;

const upsertPayloadStatement = prepared((db: Kysely<Database>, row: Slots<PayloadUpsert>) =>
  db
    .insertInto('oidc_payloads')
    .values({
      model: row.model,
      id: row.id,
      payload: row.payload,
      grant_id: row.grant_id,
      uid: row.uid,
      user_code: row.user_code,
      expires_at: row.expires_at,
      consumed_at: null,
    })
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        uid: row.uid,
        user_code: row.user_code,
        expires_at: row.expires_at,
      }),
    ),
);

/** One bound statement on the native connection (SQLite, inside the group commit). */
const runNative = (query: NativeQuery, bound: { text: string; parameters: unknown[] }) =>
  void query(bound.text, bound.parameters);

/**
 * Stores a model, and the browser session's sid of each of `sids`' grants beside its login (back-channel logout names
 * it per client), in one group-committed write: without an fsync of its own (adapter.ts says why that is safe).
 */
export function savePayload(
  db: Kysely<Database>,
  row: PayloadUpsert,
  sids: readonly { grantId: string; sid: string }[],
): Promise<void> {
  return withoutFsyncNative(
    db,
    (query) => {
      runNative(query, upsertPayloadStatement.bind(db, row));
      for (const { grantId, sid } of sids) runNative(query, setLoginSidStatement.bind(db, { grantId, sid }));
    },
    async (conn) => {
      await upsertPayloadStatement(conn, row);
      for (const { grantId, sid } of sids) await setLoginSidStatement(conn, { grantId, sid });
    },
  );
}

const payloadColumns = ['payload', 'grant_id', 'expires_at', 'consumed_at'] as const;

const findPayloadStatement = prepared((db: Kysely<Database>, v: Slots<{ model: string; id: string }>) =>
  db.selectFrom('oidc_payloads').select(payloadColumns).where('model', '=', v.model).where('id', '=', v.id),
);

export async function findPayload(db: Kysely<Database>, model: string, id: string): Promise<PayloadRow | undefined> {
  return (await findPayloadStatement(db, { model, id })).rows[0];
}

const findPayloadByStatement = {
  uid: prepared((db: Kysely<Database>, v: Slots<{ model: string; value: string }>) =>
    db.selectFrom('oidc_payloads').select(payloadColumns).where('model', '=', v.model).where('uid', '=', v.value),
  ),
  user_code: prepared((db: Kysely<Database>, v: Slots<{ model: string; value: string }>) =>
    db.selectFrom('oidc_payloads').select(payloadColumns).where('model', '=', v.model).where('user_code', '=', v.value),
  ),
};

export async function findPayloadBy(
  db: Kysely<Database>,
  model: string,
  column: 'uid' | 'user_code',
  value: string,
): Promise<PayloadRow | undefined> {
  return (await findPayloadByStatement[column](db, { model, value })).rows[0];
}

const consumePayloadStatement = prepared((db: Kysely<Database>, v: Slots<{ model: string; id: string; at: number }>) =>
  db
    .updateTable('oidc_payloads')
    .set({ consumed_at: v.at })
    .where('model', '=', v.model)
    .where('id', '=', v.id)
    .where('consumed_at', 'is', null),
);

/** Marks the row consumed at `at` with ONE conditional UPDATE; true only for the one caller that did it. */
export async function consumePayload(db: Kysely<Database>, model: string, id: string, at: number): Promise<boolean> {
  const result = await consumePayloadStatement(db, { model, id, at });
  return Number(result.numAffectedRows ?? 0) === 1;
}

const deletePayloadStatement = prepared((db: Kysely<Database>, v: Slots<{ model: string; id: string }>) =>
  db.deleteFrom('oidc_payloads').where('model', '=', v.model).where('id', '=', v.id),
);

/** Deletes a model's row in a group-committed write (the caller waits for the durability barrier if it must). */
export function deletePayloadWithoutFsync(db: Kysely<Database>, model: string, id: string): Promise<void> {
  return withoutFsyncNative(
    db,
    (query) => runNative(query, deletePayloadStatement.bind(db, { model, id })),
    async (conn) => void (await deletePayloadStatement(conn, { model, id })),
  );
}

/** Every token, code and session entry of a grant, in every model at once (revocation, replay). */
export async function deletePayloadsOfGrant(db: Kysely<Database>, grantId: string): Promise<void> {
  await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
}

export async function deleteExpiredPayloads(db: Kysely<Database>, cutoff: number): Promise<number> {
  const rows = affectedRows(await db.deleteFrom('oidc_payloads').where('expires_at', '<', cutoff).executeTakeFirst());
  const logins = affectedRows(await db.deleteFrom('oidc_logins').where('expires_at', '<', cutoff).executeTakeFirst());
  return rows + logins;
}

// ── clients ─────────────────────────────────────────────────────────────────────────────────────────

const findActiveClientStatement = prepared((db: Kysely<Database>, v: Slots<{ keyId: string }>) =>
  db
    .selectFrom('oidc_clients')
    .innerJoin('api_keys', 'api_keys.id', 'oidc_clients.key_id')
    .selectAll('oidc_clients')
    .where('oidc_clients.key_id', '=', v.keyId)
    .where('api_keys.revoked_at', 'is', null),
);

/** The registration of an ACTIVE key: a revoked key's client is not found (so it gets no tokens). */
export async function findActiveClient(db: Kysely<Database>, keyId: string): Promise<ClientRow | undefined> {
  return (await findActiveClientStatement(db, { keyId })).rows[0];
}

/** The registrations of `account`'s active keys, oldest first. */
export function clientRowsOfAccount(db: Kysely<Database>, account: string): Promise<ClientRow[]> {
  return db
    .selectFrom('oidc_clients')
    .innerJoin('api_keys', 'api_keys.id', 'oidc_clients.key_id')
    .selectAll('oidc_clients')
    .where('api_keys.account', '=', account)
    .where('api_keys.revoked_at', 'is', null)
    .orderBy('oidc_clients.created_at')
    .orderBy('oidc_clients.key_id')
    .execute();
}

export function findClientRow(db: Kysely<Database>, keyId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('oidc_clients').selectAll().where('key_id', '=', keyId).executeTakeFirst();
}

export async function putClientRow(db: Kysely<Database>, row: ClientRow): Promise<void> {
  const { key_id: _key, created_at: _created, ...update } = row;
  await db
    .insertInto('oidc_clients')
    .values(row)
    .onConflict((oc) => oc.column('key_id').doUpdateSet(update))
    .execute();
}

export async function deleteClientRow(db: Kysely<Database>, keyId: string): Promise<boolean> {
  return affectedRows(await db.deleteFrom('oidc_clients').where('key_id', '=', keyId).executeTakeFirst()) === 1;
}

// ── logins ──────────────────────────────────────────────────────────────────────────────────────────

interface LoginInsert {
  grant_id: string;
  session_jti: string;
  client_id: string;
  address: string;
  amr: string;
  expires_at: number;
  claims: string;
}

const insertLoginStatement = prepared((db: Kysely<Database>, row: Slots<LoginInsert>) =>
  db.insertInto('oidc_logins').values({
    grant_id: row.grant_id,
    session_jti: row.session_jti,
    client_id: row.client_id,
    address: row.address,
    amr: row.amr,
    expires_at: row.expires_at,
    claims: row.claims,
    sid: null,
  }),
);

export function insertLogin(db: Kysely<Database>, row: LoginInsert): Promise<void> {
  // Lost on a power cut, the grant has no sign-in behind it and gets no tokens: no fsync of its own.
  return withoutFsyncNative(
    db,
    (query) => runNative(query, insertLoginStatement.bind(db, row)),
    async (conn) => void (await insertLoginStatement(conn, row)),
  );
}

const setLoginSidStatement = prepared((db: Kysely<Database>, v: Slots<{ grantId: string; sid: string }>) =>
  db.updateTable('oidc_logins').set({ sid: v.sid }).where('grant_id', '=', v.grantId).where('sid', 'is', null),
);

export type LoginRow = Selectable<OidcLoginsTable>;

/** The logins (grants) made with any of these Connect sessions: whom to notify after a revocation. */
export async function loginsOfSessions(db: Kysely<Database>, jtis: readonly string[]): Promise<LoginRow[]> {
  if (jtis.length === 0) return [];
  return db.selectFrom('oidc_logins').selectAll().where('session_jti', 'in', jtis).execute();
}

export function findLogin(
  db: Kysely<Database>,
  grantId: string,
): Promise<{ session_jti: string; amr: string } | undefined> {
  return db.selectFrom('oidc_logins').select(['session_jti', 'amr']).where('grant_id', '=', grantId).executeTakeFirst();
}

/**
 * A grant's login with its Connect session, in one statement, when that session is active (unrevoked, unexpired:
 * the rule of Connect's own session lookup); undefined otherwise. Read at every token issuance and userinfo call.
 */
export async function findLoginSession(db: Kysely<Database>, grantId: string, now: number) {
  return (await findLoginSessionStatement(db, { grantId, now })).rows[0];
}

const findLoginSessionStatement = prepared((db: Kysely<Database>, v: Slots<{ grantId: string; now: number }>) =>
  db
    .selectFrom('oidc_logins')
    .innerJoin('connect_sessions', 'connect_sessions.jti', 'oidc_logins.session_jti')
    .select([
      'connect_sessions.jti',
      'connect_sessions.audience',
      'connect_sessions.address',
      'connect_sessions.handle',
      'connect_sessions.source',
      'connect_sessions.created_at',
      'connect_sessions.expires_at',
      'oidc_logins.claims',
    ])
    .where('oidc_logins.grant_id', '=', v.grantId)
    .where('connect_sessions.revoked_at', 'is', null)
    .where('connect_sessions.expires_at', '>', v.now),
);
