// Connect sessions: JWTs (jose) with a pinned algorithm, bound to the issuing key (the `aud` claim is the key
// id), and revocable (every `jti` is a row in connect_sessions; a token whose row is missing or revoked is
// refused). docs/connect.md "Sessions" explains the choices.
//
// Algorithm: ES256, with the service's signing key (platform/crypto/signing-keys.ts), the key the OpenID Connect
// provider signs id tokens with and publishes at /oidc/jwks. So an integrator MAY verify a session token offline
// against that JWKS (signature, iss, aud, exp) — it then cannot see a revocation — while GET /v1/auth/session stays
// the live check: here every verification also reads the jti row. The verifier accepts ONLY ES256
// (`algorithms: ['ES256']`) and only the stored keys, so `alg: none` and algorithm-confusion tokens are refused.
import { createLocalJWKSet, errors as joseErrors, importJWK, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectSource } from '@sigil/contract/connect';
import type { Database } from '../../platform/db/index';
import { loadSigningJwks, publicJwk, SIGNING_ALG } from '../../platform/crypto/signing-keys';
import { prefixedId } from '../../platform/ids';
import {
  deleteSessionsExpiredBefore,
  findSession,
  insertSession,
  listActiveSessions,
  revokeSessionRow,
  type SessionRow,
  revokeSessionRowsOf,
} from './session.queries';

export const SESSION_ALGORITHM = SIGNING_ALG;
export const SESSION_ISSUER = 'sigil';

export interface SessionClaims {
  jti: string;
  /** The key id the session was issued through (JWT `aud`). */
  audience: string;
  address: string;
  handle: string | null;
  source: ConnectSource;
  /** Unix seconds. */
  expiresAt: number;
}

/** What a session is issued for. */
export interface SessionInput {
  audience: string;
  address: string;
  handle: string | null;
  source: ConnectSource;
}

export interface SessionService {
  /** Signs a session for `audience` and records its jti. */
  issue(input: SessionInput, now?: number): Promise<{ token: string; claims: SessionClaims }>;
  /**
   * Records a session without signing a token: for a caller whose session IS the row and that hands no Connect
   * token to anyone (the OpenID Connect sign-in page). Revoked, listed and expired exactly as an issued one.
   */
  open(input: SessionInput, now?: number): Promise<SessionClaims>;
  /**
   * The session a bearer token stands for, if it is valid FOR THIS AUDIENCE: well-formed, ES256, signed by one of our keys,
   * unexpired, `aud` = audience, and its jti row present and unrevoked. Anything else: 401 INVALID_SESSION.
   */
  verify(token: string | undefined, audience: string, now?: number): Promise<SessionClaims>;
  /** The same, for an `Authorization` header (`Bearer <token>`; anything else is no token). The SessionGate step. */
  verifyBearer(authorization: string | undefined, audience: string): Promise<SessionClaims>;
  /** Active sessions issued through `audience` (only `address`'s when given), newest first, at most `limit`. */
  listActive(audience: string, address?: string, limit?: number, now?: number): Promise<SessionRow[]>;
  /** The session behind a jti when it is active (unrevoked, unexpired): the OpenID Connect account. */
  find(jti: string, now?: number): Promise<SessionClaims | undefined>;
  /** Revokes one session (sign-out, tests, operators). True when it was active. */
  revoke(jti: string, now?: number): Promise<boolean>;
  /** Revokes every active session of a wallet (optionally only those issued through one key). Returns how many. */
  revokeAllFor(address: string, audience?: string, now?: number): Promise<number>;
  /** Housekeeping: forgets sessions that expired more than a day ago. Returns how many rows went. */
  deleteExpired(now?: number): Promise<number>;
}

const invalid = (why: string) => new ApiError('INVALID_SESSION', why);

/** `Authorization: Bearer <token>` → the token, or undefined (absent or another scheme). */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(value);
  return match?.[1];
}

/** The first stored key signs (imported once: jose re-imports a JWK on every call otherwise); all stored keys verify. */
export interface SessionKeys {
  sign: { key: CryptoKey; kid: string };
  verify: JWTVerifyGetKey;
}

async function loadSessionKeys(db: Kysely<Database>): Promise<SessionKeys> {
  const { keys } = await loadSigningJwks(db);
  const first = keys[0]!;
  return {
    sign: { key: (await importJWK(first, SIGNING_ALG)) as CryptoKey, kid: first.kid! },
    verify: createLocalJWKSet({ keys: keys.map(publicJwk) }),
  };
}

/** What the session verbs take first: the db, the lifetime, and the signing key (loaded once, lazily). */
export interface SessionDeps {
  db: Kysely<Database>;
  ttlSeconds: number;
  keys: () => Promise<SessionKeys>;
}

export function createSessionService(opts: { db: Kysely<Database>; ttlSeconds: number }): SessionService {
  let loaded: Promise<SessionKeys> | undefined;
  const keys = () => {
    loaded ??= loadSessionKeys(opts.db).catch((error) => {
      loaded = undefined; // retry on the next call
      throw error;
    });
    return loaded;
  };
  const deps: SessionDeps = { db: opts.db, ttlSeconds: opts.ttlSeconds, keys };
  return {
    issue: (input, now = Date.now()) => signSession(deps, input, now),
    open: (input, now = Date.now()) => openSession(deps, input, now),
    verify: (token, audience, now = Date.now()) => verifySessionToken(deps, token, audience, now),
    verifyBearer: (authorization, audience) =>
      verifySessionToken(deps, bearerToken(authorization), audience, Date.now()),
    listActive: (audience, address, limit = 500, now = Date.now()) =>
      listActiveSessions(deps.db, audience, address, now, limit),
    find: (jti, now = Date.now()) => findActiveSession(deps.db, jti, now),
    revoke: (jti, now = Date.now()) => revokeSessionRow(deps.db, jti, now),
    revokeAllFor: (address, audience, now = Date.now()) => revokeSessionRowsOf(deps.db, address, audience, now),
    deleteExpired: (now = Date.now()) => deleteSessionsExpiredBefore(deps.db, now - 86_400_000),
  };
}

/** A new session's claims: a fresh jti, the lifetime counted in whole seconds from `now`. */
function newClaims(deps: SessionDeps, input: SessionInput, now: number): SessionClaims & { issuedAt: number } {
  const issuedAt = Math.floor(now / 1000);
  const { audience, address, handle, source } = input;
  return {
    jti: prefixedId('sess_', now),
    audience,
    address,
    handle,
    source,
    issuedAt,
    expiresAt: issuedAt + deps.ttlSeconds,
  };
}

async function recordSession(deps: SessionDeps, claims: SessionClaims, now: number): Promise<SessionClaims> {
  const { jti, audience, address, handle, source, expiresAt } = claims;
  await insertSession(deps.db, {
    jti,
    audience,
    address,
    handle,
    source,
    created_at: now,
    expires_at: expiresAt * 1000,
    revoked_at: null,
  });
  return { jti, audience, address, handle, source, expiresAt };
}

/** Signs a session for `input.audience` and records its jti. */
export async function signSession(
  deps: SessionDeps,
  input: SessionInput,
  now: number,
): Promise<{ token: string; claims: SessionClaims }> {
  const claims = newClaims(deps, input, now);
  const { sign } = await deps.keys();
  const token = await new SignJWT({ handle: input.handle, src: input.source })
    .setProtectedHeader({ alg: SESSION_ALGORITHM, typ: 'JWT', kid: sign.kid })
    .setIssuer(SESSION_ISSUER)
    .setSubject(input.address)
    .setAudience(input.audience)
    .setJti(claims.jti)
    .setIssuedAt(claims.issuedAt)
    .setExpirationTime(claims.expiresAt)
    .sign(sign.key);
  return { token, claims: await recordSession(deps, claims, now) };
}

/** Records a session for `input.audience` without a token (SessionService.open). */
export function openSession(deps: SessionDeps, input: SessionInput, now: number): Promise<SessionClaims> {
  return recordSession(deps, newClaims(deps, input, now), now);
}

/** The session a bearer token stands for, if it is valid for this audience (SessionService.verify). */
export async function verifySessionToken(
  deps: SessionDeps,
  token: string | undefined,
  audience: string,
  now: number,
): Promise<SessionClaims> {
  if (!token) throw invalid('send the session as `Authorization: Bearer <token>`');
  if (token.length > 4096) throw invalid('the session token is malformed');
  let payload;
  try {
    ({ payload } = await jwtVerify(token, (await deps.keys()).verify, {
      algorithms: [SESSION_ALGORITHM],
      issuer: SESSION_ISSUER,
      audience,
      currentDate: new Date(now),
      requiredClaims: ['jti', 'sub', 'exp', 'iat'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw invalid('the session has expired');
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
      throw invalid('the session was issued to another key');
    }
    if (error instanceof joseErrors.JOSEError) throw invalid('the session token is malformed or forged');
    throw error;
  }
  const row = await findSession(deps.db, String(payload.jti));
  // The row is the authority: the token only points at it.
  if (!row || row.audience !== audience || row.address !== payload.sub) throw invalid('the session is unknown');
  if (row.revoked_at !== null) throw invalid('the session has been revoked');
  if (row.expires_at <= now) throw invalid('the session has expired');
  return {
    jti: row.jti,
    audience: row.audience,
    address: row.address,
    handle: row.handle,
    source: row.source,
    expiresAt: Math.floor(row.expires_at / 1000),
  };
}

/** The active session row behind a jti, or undefined (unknown, revoked or expired). */
export async function findActiveSession(
  db: Kysely<Database>,
  jti: string,
  now: number,
): Promise<SessionClaims | undefined> {
  const row = await findSession(db, jti);
  if (!row || row.revoked_at !== null || row.expires_at <= now) return undefined;
  const { audience, address, handle, source } = row;
  return { jti: row.jti, audience, address, handle, source, expiresAt: Math.floor(row.expires_at / 1000) };
}
