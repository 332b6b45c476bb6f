// The library's persistence over our database (docs/oidc.md "Storage"): every model but Client is a JSON payload
// row in oidc_payloads; Client is read from the API key's registration (a revoked key's client does not exist).
// consume() is ONE conditional UPDATE: of N concurrent exchanges of one code or refresh token exactly one wins,
// the others get invalid_grant, on every replica sharing the database.
//
// Durability on SQLite (docs/data.md "Durability"): a sign-in writes about ten rows, and a FULL commit each would
// block the event loop for an fsync every time. An upsert whose loss fails closed commits without its own fsync
// (group-committed): lost on a power cut, the interaction, grant, code, token or session simply no longer exists
// and is refused. A destroy and a grant's revocation must survive (else a logout or revocation would come undone):
// they commit the same way and then wait for the shared durability barrier (one off-loop fsync for every caller of
// that moment) before the library acts on them. A consume (single use of codes and refresh tokens) keeps its FULL
// commit (see consume).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Kysely } from 'kysely';
import { createDurabilityBarrier, withoutFsync, type Database } from '../../platform/db/index';
import { clientMetadata } from './clients';
import {
  consumePayload,
  deletePayloadWithoutFsync,
  deletePayloadsOfGrant,
  findActiveClient,
  findPayload,
  findPayloadAhead,
  findPayloadBy,
  writeSignIn,
  type ClientRow,
  type PayloadRow,
  type PayloadUpsert,
} from './queries';
import { collector, forget, keep, MISSED, take } from './request-scope';
import { destroyMustSurvive, type PendingWrites } from './writes';

// Read-ahead: the models after whose read the library reads the client, the grant and (through the account) the
// login: one statement reads them all, and those reads in the same request take the rows from the request scope
// (request-scope.ts). An interaction's page and resume read its client and grant; a code's exchange its grant and
// login; a token's use (userinfo, refresh) all three.
const READ_AHEAD = new Set(['Interaction', 'AuthorizationCode', 'AccessToken', 'RefreshToken']);

/** The destroys a collected step writes with its other rows (see destroy). */
const COLLECTED_DESTROYS = new Set(['Interaction', 'Session']);

/** The request-scope key of a row read ahead. */
export const aheadKey = (kind: 'Grant' | 'Client' | 'Login', id: string) => `${kind} ${id}`;

function payloadOf(row: PayloadRow | undefined, now: number): AdapterPayload | undefined {
  if (!row) return undefined;
  if (row.expires_at !== null && row.expires_at <= now) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(row.consumed_at / 1000) };
}

/**
 * A browser session as the library reads it, with no client's authorization marked `persistsLogout`. The library
 * marks one so when its tokens do not expire with the browser session, which ours never do (`expiresWithSession`,
 * provider.ts: they end with the Connect session instead), and end-session then leaves that client's grant alone. A
 * logout here ends the sign-ins it logs out of (docs/oidc.md "Logging out"), so without the mark end-session revokes
 * them itself, by its own rule: with `logout=yes` every client's grant, otherwise only the grant of the client that
 * asked; each revocation ends its Connect session (AdapterHooks.grantRevoked).
 */
function loggingOutEndsGrants(payload: AdapterPayload | undefined): AdapterPayload | undefined {
  if (!payload?.authorizations) return payload;
  const authorizations = Object.fromEntries(
    Object.entries(payload.authorizations).map(([clientId, { persistsLogout: _kept, ...authorization }]) => [
      clientId,
      authorization,
    ]),
  );
  return { ...payload, authorizations };
}

/**
 * Whether an id the library looks up (from a request: a client_id, a code, a token, an interaction's uid) could name
 * a stored row at all. No stored id is longer, and none holds U+0000, which Postgres refuses in a parameter (an error,
 * where SQLite finds no row): such an id is simply not found.
 */
function storableId(id: string): boolean {
  return id.length <= 200 && !id.includes('\0');
}

export interface AdapterHooks {
  /** A grant's tokens were revoked (revocation, end-session, replay): the sign-in behind it ends too. */
  grantRevoked(grantId: string): Promise<void>;
  /** The library's invalid_grant error, for the losers of a consume (the library is loaded lazily: service.ts). */
  alreadyConsumed(): Error;
}

class PayloadAdapter implements Adapter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly model: string,
    private readonly now: () => number,
    private readonly hooks: AdapterHooks,
    private readonly durable: () => Promise<void>,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const row: PayloadUpsert = {
      model: this.model,
      id,
      payload: JSON.stringify(payload),
      // An interaction names its grant once signed in (the consent's result): resume then reads it ahead.
      grant_id: payload.grantId ?? (payload.result?.consent?.grantId as string | undefined) ?? null,
      client_id: payload.clientId ?? (payload.params?.client_id as string | undefined) ?? null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      expires_at: expiresIn ? this.now() + expiresIn * 1000 : null,
    };
    // Back-channel logout names the browser session (sid) per client: keep it beside the grant's login.
    const sids =
      this.model === 'Session'
        ? Object.values(payload.authorizations ?? {}).flatMap(({ sid, grantId }) =>
            sid && grantId ? [{ sid, grantId }] : [],
          )
        : [];
    if (this.model === 'Grant') forget(aheadKey('Grant', id));
    const pending = collector<PendingWrites>();
    if (pending) pending.upsert(row, sids);
    else await writeSignIn(this.db, { payloads: [row], sids });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (!storableId(id)) return undefined;
    const payload = await this.read(id);
    return this.model === 'Session' ? loggingOutEndsGrants(payload) : payload;
  }

  private async read(id: string): Promise<AdapterPayload | undefined> {
    // A row this step wrote is read as the step left it (the write is still collected: writes.ts).
    const written = collector<PendingWrites>()?.find(this.model, id);
    if (written !== undefined) return payloadOf(written ?? undefined, this.now());
    if (this.model === 'Grant') {
      const kept = take<PayloadRow, typeof MISSED>(aheadKey('Grant', id), MISSED);
      if (kept !== MISSED) return payloadOf(kept, this.now());
    }
    if (!READ_AHEAD.has(this.model)) return payloadOf(await findPayload(this.db, this.model, id), this.now());
    const now = this.now();
    const ahead = await findPayloadAhead(this.db, this.model, id, now);
    if (ahead?.grant) {
      keep(aheadKey('Grant', ahead.grant.id), ahead.grant.row);
      keep(aheadKey('Login', ahead.grant.id), ahead.grant.login);
    }
    if (ahead?.client) keep(aheadKey('Client', ahead.client.id), ahead.client.row);
    return payloadOf(ahead?.row, now);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (!storableId(uid)) return undefined;
    return payloadOf(await findPayloadBy(this.db, this.model, 'uid', uid), this.now());
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    if (!storableId(userCode)) return undefined;
    return payloadOf(await findPayloadBy(this.db, this.model, 'user_code', userCode), this.now());
  }

  async consume(id: string): Promise<void> {
    if (this.model === 'Grant') forget(aheadKey('Grant', id));
    // A FULL commit (the group commit's, shared by the consumes of one turn), not the barrier: the library revokes
    // the whole grant when it finds a code already consumed, so the winner of concurrent exchanges must finish before
    // the losers that read the row after it; the barrier's off-loop wait would let them revoke the winner's tokens
    // (exactly one of N concurrent exchanges gets tokens). Losers that read the row in the same turn join the same
    // batch and lose there, without a revocation.
    if (!(await consumePayload(this.db, this.model, id, this.now()))) {
      // A refresh token presented twice is reuse (OAuth 2.0 Security BCP): the whole grant is revoked. The library
      // does so only when it finds the token already consumed; a concurrent second use loses here instead, after
      // its own read saw the token unused, so the revocation must happen here too (else the winner's new tokens
      // would outlive the reuse, depending on timing). A code's losers do not revoke: see above.
      if (this.model === 'RefreshToken') {
        const grantId = (await findPayload(this.db, this.model, id))?.grant_id;
        if (grantId) await this.revokeByGrantId(grantId);
      }
      throw this.hooks.alreadyConsumed();
    }
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') forget(aheadKey('Grant', id));
    // In a step whose writes are collected (writes.ts), the two destroys a resume makes join that write, so that if
    // the step's write fails none of it happened: the interaction, still there to resume, and the browser session
    // the library replaces when someone signs in again in the same browser (the interaction names it).
    // An interaction's destroy needs no fsync: if it is lost to a power cut, so is the code written with it (and no
    // consume, whose commit would have made both durable, followed), so the browser can resume the same sign-in once
    // more, to the one code it had. Any other destroy must survive (a logout's, a replaced session's), so it waits
    // for the barrier: here, or in PendingWrites.save once the step's write is stored. Other models are never
    // collected: a revocation is not to be undone by a failed step.
    const pending = collector<PendingWrites>();
    if (pending && COLLECTED_DESTROYS.has(this.model)) return pending.delete(this.model, id);
    await deletePayloadWithoutFsync(this.db, this.model, id);
    if (destroyMustSurvive(this.model)) await this.durable();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    forget();
    await withoutFsync(this.db, (db) => deletePayloadsOfGrant(db, grantId));
    // The sign-in behind the grant ends even if the barrier then fails: revoking more is the safe side.
    await this.hooks.grantRevoked(grantId);
    await this.durable();
  }
}

/** The registration of the active key `id` (the request's read-ahead when it holds it), or undefined. */
export async function activeClientRow(db: Kysely<Database>, id: string): Promise<ClientRow | undefined> {
  if (!storableId(id)) return undefined;
  const kept = take<ClientRow, typeof MISSED>(aheadKey('Client', id), MISSED);
  return kept === MISSED ? await findActiveClient(db, id) : kept;
}

/** Clients are API keys: read-only here (managed through /v1/keys/{id}/oidc). */
class ClientAdapter implements Adapter {
  constructor(private readonly db: Kysely<Database>) {}
  async find(id: string): Promise<AdapterPayload | undefined> {
    const row = await activeClientRow(this.db, id);
    return row ? (clientMetadata(row) as AdapterPayload) : undefined;
  }
  async upsert(): Promise<void> {
    throw new Error('clients are managed through the API keys');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

export function adapterFactory(
  db: Kysely<Database>,
  now: () => number,
  hooks: AdapterHooks,
  /** Default createDurabilityBarrier(db) (tests observe it). */
  durable: () => Promise<void> = createDurabilityBarrier(db),
): (model: string) => Adapter {
  return (model) => (model === 'Client' ? new ClientAdapter(db) : new PayloadAdapter(db, model, now, hooks, durable));
}
