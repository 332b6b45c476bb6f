// OpenID Connect rows: the library's stored models, client registrations, and the Connect session behind each
// grant. Queries only. The statements of a sign-in (a dozen kinds, about twenty runs) are prepared once
// (platform/db/prepared.ts): building each anew cost more than running it. On SQLite the reads run on the native
// connection (prepared.ts) and the group-committed writes inside the group commit's own transaction
// (withoutFsyncNative): the same statements without Kysely's connection lock and promise hops.
import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import { revokeSessionRowsIn } from '../connect/index';
import {
  affectedRows,
  dialectOf,
  durableNative,
  perTurn,
  turnBatch,
  type TurnBatch,
  prepared,
  withoutFsyncNative,
  type ConnectSessionsTable,
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
export type PayloadUpsert = Omit<OidcPayloadsTable, 'consumed_at'>;

const upsertPayloadStatement = prepared((db: Kysely<Database>, row: Slots<PayloadUpsert>) =>
  db
    .insertInto('oidc_payloads')
    .values({
      model: row.model,
      id: row.id,
      payload: row.payload,
      grant_id: row.grant_id,
      client_id: row.client_id,
      uid: row.uid,
      user_code: row.user_code,
      expires_at: row.expires_at,
      consumed_at: null,
    })
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        client_id: row.client_id,
        uid: row.uid,
        user_code: row.user_code,
        expires_at: row.expires_at,
      }),
    ),
);

/** One bound statement on the native connection (SQLite, inside the group commit). */
const runNative = (query: NativeQuery, bound: { text: string; parameters: unknown[] }) =>
  void query(bound.text, bound.parameters);

/** The value kept for a database handle, made on its first use (the turn batches are per handle). */
function forHandle<V>(kept: WeakMap<Kysely<Database>, V>, db: Kysely<Database>, make: () => V): V {
  let value = kept.get(db);
  if (value === undefined) kept.set(db, (value = make()));
  return value;
}

/** What one step of a sign-in writes together: stored models, deleted ones, the browser session's sids, a new login. */
export interface SignInWrite {
  payloads: readonly PayloadUpsert[];
  /** Rows deleted (at resume: the interaction, and the browser session the library replaced); never a row of `payloads`. */
  deletes?: readonly { model: string; id: string }[];
  /** The browser session's sid of each grant, beside its login (back-channel logout names it per client). */
  sids?: readonly { grantId: string; sid: string }[];
  login?: LoginInsert;
}

// Postgres: the whole write in ONE statement (a statement is a loopback round trip, most of its cost there): the
// models in one multi-row upsert, the deletes, the login's insert and the sids' update beside it as data-modifying
// CTEs. An empty array makes its part a no-op, so the text never changes. The parts touch different rows (a deleted
// row is never one upserted: mergeWrites keeps the later write of a row; a login is inserted at verify, its sid set at
// resume), so one snapshot for all of them answers as the statements one after another would.
const WRITE_SIGN_IN_POSTGRES = `with gone as (
  delete from "oidc_payloads" where ("model", "id") in (select * from unnest($18::text[], $19::text[]))
), payload as (
  insert into "oidc_payloads" ("model", "id", "payload", "grant_id", "client_id", "uid", "user_code", "expires_at", "consumed_at")
  select t.model, t.id, t.payload, t.grant_id, t.client_id, t.uid, t.user_code, t.expires_at, null
  from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[])
    as t(model, id, payload, grant_id, client_id, uid, user_code, expires_at)
  on conflict ("model", "id") do update set "payload" = excluded."payload", "grant_id" = excluded."grant_id",
    "client_id" = excluded."client_id", "uid" = excluded."uid", "user_code" = excluded."user_code",
    "expires_at" = excluded."expires_at"
), login as (
  insert into "oidc_logins" ("grant_id", "session_jti", "client_id", "address", "amr", "expires_at", "claims", "sid")
  select t.grant_id, t.session_jti, t.client_id, t.address, t.amr, t.expires_at, t.claims, null
  from unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[])
    as t(grant_id, session_jti, client_id, address, amr, expires_at, claims)
)
update "oidc_logins" as l set "sid" = t.sid from unnest($16::text[], $17::text[]) as t(grant_id, sid)
where l."grant_id" = t.grant_id and l."sid" is null`;

const column = <R, K extends keyof R>(rows: readonly R[], key: K) => rows.map((row) => row[key]);

/** Writes (of one step, or of one turn's concurrent requests) as one: in order, so a later write of a row wins. */
export function mergeWrites(writes: readonly SignInWrite[]) {
  const payloads = new Map<string, PayloadUpsert>();
  const deletes = new Map<string, { model: string; id: string }>();
  for (const write of writes) {
    for (const row of write.deletes ?? []) {
      payloads.delete(`${row.model} ${row.id}`);
      deletes.set(`${row.model} ${row.id}`, row);
    }
    for (const row of write.payloads) {
      deletes.delete(`${row.model} ${row.id}`);
      payloads.set(`${row.model} ${row.id}`, row);
    }
  }
  return {
    // A multi-row upsert may not touch a row twice: the last write of a row wins, as one after another it would.
    payloads: [...payloads.values()],
    deletes: [...deletes.values()],
    logins: writes.flatMap((write) => (write.login ? [write.login] : [])),
    sids: writes.flatMap((write) => write.sids ?? []),
  };
}

function writeSignInPostgres(db: Kysely<Database>, writes: readonly SignInWrite[]) {
  const { payloads, deletes, logins, sids } = mergeWrites(writes);
  return db.executeQuery(
    CompiledQuery.raw(WRITE_SIGN_IN_POSTGRES, [
      column(payloads, 'model'),
      column(payloads, 'id'),
      column(payloads, 'payload'),
      column(payloads, 'grant_id'),
      column(payloads, 'client_id'),
      column(payloads, 'uid'),
      column(payloads, 'user_code'),
      column(payloads, 'expires_at'),
      column(logins, 'grant_id'),
      column(logins, 'session_jti'),
      column(logins, 'client_id'),
      column(logins, 'address'),
      column(logins, 'amr'),
      column(logins, 'expires_at'),
      column(logins, 'claims'),
      column(sids, 'grantId'),
      column(sids, 'sid'),
      column(deletes, 'model'),
      column(deletes, 'id'),
    ]),
  );
}

const writeBatches = new WeakMap<Kysely<Database>, (write: SignInWrite) => Promise<void>>();

/**
 * Writes one step's rows of a sign-in as one group-committed write, without an fsync of its own (adapter.ts says
 * why that is safe). Postgres: one statement for every such write of the event-loop turn (turn-batch.ts), on the
 * pool without the WAL flush wait; SQLite: the same statements one after another inside the group commit (in
 * process, a statement costs microseconds).
 */
export function writeSignIn(db: Kysely<Database>, write: SignInWrite): Promise<void> {
  return withoutFsyncNative(
    db,
    (query) => {
      const { payloads, deletes, logins, sids } = mergeWrites([write]);
      for (const row of deletes) runNative(query, deletePayloadStatement.bind(db, row));
      for (const row of payloads) runNative(query, upsertPayloadStatement.bind(db, row));
      for (const row of logins) runNative(query, insertLoginStatement.bind(db, row));
      for (const { grantId, sid } of sids) runNative(query, setLoginSidStatement.bind(db, { grantId, sid }));
    },
    (relaxed) => {
      const batch = forHandle(writeBatches, relaxed, () =>
        perTurn(async (writes: SignInWrite[]) => {
          await writeSignInPostgres(relaxed, writes);
          return writes.map(() => undefined);
        }),
      );
      return batch(write);
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

/** A login with its active Connect session (findLoginSession's row). */
export interface LoginSessionRow {
  jti: string;
  audience: string;
  address: string;
  handle: string | null;
  source: ConnectSessionsTable['source'];
  created_at: number;
  expires_at: number;
  claims: string | null;
}

/** A stored model read with what its next reads in the same request will ask for (adapter.ts "read-ahead"). */
export interface PayloadAhead {
  row: PayloadRow;
  /** Present when the row names a grant: that grant's row (undefined: none) and its login with an active session. */
  grant?: { id: string; row: PayloadRow | undefined; login: LoginSessionRow | undefined };
  /** Present when the row names a client: its registration if its key is active (undefined: no such client). */
  client?: { id: string; row: ClientRow | undefined };
}

// One statement for a token (or code, or interaction) and the rows the library reads right after it: its grant, its
// client (as findActiveClient finds it: an active key's registration) and the grant's login with its Connect
// session (as findLoginSession finds it: unrevoked, unexpired at `now`). Left joins: each part is null when the
// separate read would have found nothing.
const aheadSelect = (db: Kysely<Database>, now: number) =>
  db
    .selectFrom('oidc_payloads as p')
    .leftJoin('oidc_payloads as g', (join) => join.on('g.model', '=', 'Grant').onRef('g.id', '=', 'p.grant_id'))
    .leftJoin('api_keys as k', (join) => join.onRef('k.id', '=', 'p.client_id').on('k.revoked_at', 'is', null))
    .leftJoin('oidc_clients as c', 'c.key_id', 'k.id')
    .leftJoin('oidc_logins as l', 'l.grant_id', 'p.grant_id')
    .leftJoin('connect_sessions as s', (join) =>
      join.onRef('s.jti', '=', 'l.session_jti').on('s.revoked_at', 'is', null).on('s.expires_at', '>', now),
    )
    .select([
      'p.model',
      'p.id',
      'p.payload',
      'p.grant_id',
      'p.client_id',
      'p.expires_at',
      'p.consumed_at',
      'g.payload as g_payload',
      'g.grant_id as g_grant_id',
      'g.expires_at as g_expires_at',
      'g.consumed_at as g_consumed_at',
      'c.key_id as c_key_id',
      'c.client_type as c_client_type',
      'c.secret_hash as c_secret_hash',
      'c.redirect_uris as c_redirect_uris',
      'c.post_logout_redirect_uris as c_post_logout_redirect_uris',
      'c.scopes as c_scopes',
      'c.backchannel_logout_uri as c_backchannel_logout_uri',
      'c.created_at as c_created_at',
      'c.updated_at as c_updated_at',
      's.jti as s_jti',
      's.audience as s_audience',
      's.address as s_address',
      's.handle as s_handle',
      's.source as s_source',
      's.created_at as s_created_at',
      's.expires_at as s_expires_at',
      'l.claims as l_claims',
    ]);

const findPayloadAheadStatement = prepared(
  (db: Kysely<Database>, v: Slots<{ model: string; id: string; now: number }>) =>
    aheadSelect(db, v.now).where('p.model', '=', v.model).where('p.id', '=', v.id),
);

// Postgres: the read-aheads of one event-loop turn (concurrent requests) in one statement (turn-batch.ts), each
// session checked at the latest of their `now`s (the stricter).
const findPayloadsAheadStatement = prepared(
  (db: Kysely<Database>, v: Slots<{ models: string[]; ids: string[]; now: number }>) =>
    aheadSelect(db, v.now).where(
      sql<boolean>`("p"."model", "p"."id") in (select * from unnest(${v.models}::text[], ${v.ids}::text[]))`,
    ),
);

type AheadKey = { model: string; id: string; now: number };
const aheadBatches = new WeakMap<Kysely<Database>, TurnBatch<AheadKey, AheadRow>>();
type AheadRow = Awaited<ReturnType<typeof findPayloadAheadStatement>>['rows'][number];

function aheadRow(db: Kysely<Database>, key: AheadKey): Promise<AheadRow | undefined> {
  if (dialectOf(db) === 'sqlite') return findPayloadAheadStatement(db, key).then(({ rows }) => rows[0]);
  const batch = forHandle(aheadBatches, db, () =>
    turnBatch(
      async (keys: AheadKey[]) =>
        (
          await findPayloadsAheadStatement(db, {
            models: keys.map((k) => k.model),
            ids: keys.map((k) => k.id),
            now: Math.max(...keys.map((k) => k.now)),
          })
        ).rows,
      (row) => `${row.model} ${row.id}`,
      (key) => `${key.model} ${key.id}`,
    ),
  );
  return batch(key);
}

/** A stored model, with its grant, client and login read in the same statement (see PayloadAhead). */
export async function findPayloadAhead(
  db: Kysely<Database>,
  model: string,
  id: string,
  now: number,
): Promise<PayloadAhead | undefined> {
  const r = await aheadRow(db, { model, id, now });
  if (!r) return undefined;
  const ahead: PayloadAhead = {
    row: { payload: r.payload, grant_id: r.grant_id, expires_at: r.expires_at, consumed_at: r.consumed_at },
  };
  if (r.grant_id !== null) {
    ahead.grant = {
      id: r.grant_id,
      row:
        r.g_payload === null
          ? undefined
          : { payload: r.g_payload, grant_id: r.g_grant_id, expires_at: r.g_expires_at, consumed_at: r.g_consumed_at },
      login:
        r.s_jti === null
          ? undefined
          : {
              jti: r.s_jti,
              audience: r.s_audience!,
              address: r.s_address!,
              handle: r.s_handle,
              source: r.s_source!,
              created_at: r.s_created_at!,
              expires_at: r.s_expires_at!,
              claims: r.l_claims,
            },
    };
  }
  if (r.client_id !== null) {
    ahead.client = {
      id: r.client_id,
      row:
        r.c_key_id === null
          ? undefined
          : {
              key_id: r.c_key_id,
              client_type: r.c_client_type!,
              secret_hash: r.c_secret_hash,
              redirect_uris: r.c_redirect_uris!,
              post_logout_redirect_uris: r.c_post_logout_redirect_uris!,
              scopes: r.c_scopes!,
              backchannel_logout_uri: r.c_backchannel_logout_uri,
              created_at: r.c_created_at!,
              updated_at: r.c_updated_at!,
            },
    };
  }
  return ahead;
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
    .where('consumed_at', 'is', null)
    // The row it marked, if any: the native connection reports rows, not a change count.
    .returning('id'),
);

/**
 * Marks the row consumed at `at` with ONE conditional UPDATE; true only for the one caller that did it. Durable
 * before it answers (a consumed code must not come back after a power cut): on SQLite in the group commit, whose
 * batch then commits with its own fsync, shared by the consumes of that turn.
 */
export async function consumePayload(db: Kysely<Database>, model: string, id: string, at: number): Promise<boolean> {
  const marked = await durableNative(
    db,
    (query) => {
      const { text, parameters } = consumePayloadStatement.bind(db, { model, id, at });
      return query(text, parameters).length;
    },
    async (conn) => (await consumePayloadStatement(conn, { model, id, at })).rows.length,
  );
  return marked === 1;
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

// Postgres: the client reads of one event-loop turn in one statement (turn-batch.ts).
const findActiveClientsStatement = prepared((db: Kysely<Database>, v: Slots<{ keyIds: string[] }>) =>
  db
    .selectFrom('oidc_clients')
    .innerJoin('api_keys', 'api_keys.id', 'oidc_clients.key_id')
    .selectAll('oidc_clients')
    .where(sql<boolean>`"oidc_clients"."key_id" = any(${v.keyIds}::text[])`)
    .where('api_keys.revoked_at', 'is', null),
);

const clientBatches = new WeakMap<Kysely<Database>, TurnBatch<string, ClientRow>>();

/** The registration of an ACTIVE key: a revoked key's client is not found (so it gets no tokens). */
export async function findActiveClient(db: Kysely<Database>, keyId: string): Promise<ClientRow | undefined> {
  if (dialectOf(db) === 'sqlite') return (await findActiveClientStatement(db, { keyId })).rows[0];
  const batch = forHandle(clientBatches, db, () =>
    turnBatch(
      async (keyIds: string[]) => (await findActiveClientsStatement(db, { keyIds })).rows,
      (row) => row.key_id,
      (keyId) => keyId,
    ),
  );
  return batch(keyId);
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

/**
 * Ends every sign-in of client `keyId`: the library's rows naming it (grants, codes, access and refresh tokens) go,
 * and the Connect sessions its sign-ins were made with are revoked at `at` (Connect's own statement). Its open
 * interactions stay, so that a sign-in page still open for it answers that the client is gone (interaction.ts)
 * rather than that the sign-in expired; they make nothing without the client.
 */
async function endClientSignIns(db: Kysely<Database>, keyId: string, at: number): Promise<void> {
  await db.deleteFrom('oidc_payloads').where('client_id', '=', keyId).where('model', '!=', 'Interaction').execute();
  const logins = await db.selectFrom('oidc_logins').select('session_jti').where('client_id', '=', keyId).execute();
  await revokeSessionRowsIn(
    db,
    logins.map((login) => login.session_jti),
    at,
  );
}

/** endClientSignIns in one transaction (a revoked key's client: its registration stays, unusable). */
export function endClientSignInsTogether(db: Kysely<Database>, keyId: string, at: number): Promise<void> {
  return db.transaction().execute((trx) => endClientSignIns(trx, keyId, at));
}

/**
 * Removes the registration of `keyId` and, in the same transaction, ends its sign-ins (endClientSignIns): registered
 * again, the key is a new client, with nothing of the old one's. False when there was no registration.
 */
export async function deleteClientRow(db: Kysely<Database>, keyId: string, at: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const deleted = affectedRows(await trx.deleteFrom('oidc_clients').where('key_id', '=', keyId).executeTakeFirst());
    if (deleted === 1) await endClientSignIns(trx, keyId, at);
    return deleted === 1;
  });
}

// ── logins ──────────────────────────────────────────────────────────────────────────────────────────

export interface LoginInsert {
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

const setLoginSidStatement = prepared((db: Kysely<Database>, v: Slots<{ grantId: string; sid: string }>) =>
  db.updateTable('oidc_logins').set({ sid: v.sid }).where('grant_id', '=', v.grantId).where('sid', 'is', null),
);

export type LoginRow = Selectable<OidcLoginsTable>;

/** The logins (grants) made with any of these Connect sessions: whom to notify after a revocation. */
export async function loginsOfSessions(db: Kysely<Database>, jtis: readonly string[]): Promise<LoginRow[]> {
  if (jtis.length === 0) return [];
  return db.selectFrom('oidc_logins').selectAll().where('session_jti', 'in', jtis).execute();
}

/**
 * The logins of these (just revoked) sessions whose browser-session `sid` no other login of the same client still
 * holds with an active Connect session. The library keeps one sid per browser and client, so a second sign-in to a
 * client from the same browser carries the first one's sid: a logout token for the first would end the app's
 * session of the second, still signed in here. One row per client and sid.
 */
export async function loginsToLogOut(db: Kysely<Database>, jtis: readonly string[], now: number): Promise<LoginRow[]> {
  if (jtis.length === 0) return [];
  const rows = await db
    .selectFrom('oidc_logins as l')
    .selectAll('l')
    .where('l.session_jti', 'in', jtis)
    .where('l.sid', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('oidc_logins as o')
            .innerJoin('connect_sessions as s', 's.jti', 'o.session_jti')
            .select('o.grant_id')
            .whereRef('o.client_id', '=', 'l.client_id')
            .whereRef('o.sid', '=', 'l.sid')
            .where('s.revoked_at', 'is', null)
            .where('s.expires_at', '>', now),
        ),
      ),
    )
    .execute();
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = `${row.client_id} ${row.sid}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
export async function findLoginSession(
  db: Kysely<Database>,
  grantId: string,
  now: number,
): Promise<LoginSessionRow | undefined> {
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
