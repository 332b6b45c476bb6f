// Connect sessions: JWTs (jose) with a pinned algorithm, bound to the issuing key (the `aud` claim is the key
// id), and revocable (every `jti` is a row in connect_sessions; a token whose row is missing or revoked is
// refused). docs/connect.md "Sessions" explains the choices.
//
// Algorithm: HS256. Only this service ever verifies its sessions (integrators present them back to us via
// GET /v1/auth/session), and every verification also reads the jti row, so a public-key algorithm would buy
// no offline verification while costing an ed25519 signature per sign-in. The verifier accepts ONLY HS256
// (`algorithms: ['HS256']`), so `alg: none` and algorithm-confusion tokens are refused.
import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import type { ConnectSource } from '@sigil/contract/connect';
import { ensureKv, type Database } from '../../platform/db/index';
import { prefixedId } from '../../platform/ids';
import {
  deleteSessionsExpiredBefore,
  findSession,
  insertSession,
  listActiveSessions,
  revokeSessionRow,
  type SessionRow,
  revokeSessionRowsOf,
} from './session-store';

export const SESSION_ALGORITHM = 'HS256' as const;
export const SESSION_ISSUER = 'sigil';
/** kv key holding the generated signing secret when SIGIL_SESSION_SECRET is unset. */
export const SESSION_SECRET_KV_KEY = 'connect.session_secret';

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
   * The session a bearer token stands for, if it is valid FOR THIS AUDIENCE: well-formed, HS256, signed by us,
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

/**
 * The secret as a WebCrypto HMAC-SHA-256 key, imported once: jose 6 signs and verifies through WebCrypto, and a
 * KeyObject or raw bytes are re-imported on every call (~340 µs CPU per sign + verify here, against ~210 µs with
 * the imported key). The key is bound to HMAC/SHA-256, so jose also refuses to use it for any other algorithm.
 * (A hand-written createHmac JWT would save ~0.2 ms more per sign-in, under 3% of its cost: not worth owning
 * the JWT validation rules ourselves.)
 */
function hmacKey(secret: string): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey(
    'raw',
    Buffer.from(secret, 'utf8'),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}

/**
 * The signing key: SIGIL_SESSION_SECRET when set; otherwise a random 32-byte secret generated once and kept in
 * the kv table, so restarts and replicas sharing the database keep accepting each other's sessions. (A stolen
 * database alone still forges nothing usable: a token is only accepted with its jti row, which needs write
 * access.)
 */
async function loadSigningKey(db: Kysely<Database>, configured: string | undefined): Promise<CryptoKey> {
  if (configured) return hmacKey(configured);
  return hmacKey(await ensureKv(db, SESSION_SECRET_KV_KEY, randomBytes(32).toString('base64url')));
}

/** What the session verbs take first: the db, the lifetime, and the signing key (loaded once, lazily). */
export interface SessionDeps {
  db: Kysely<Database>;
  ttlSeconds: number;
  signingKey: () => Promise<CryptoKey>;
}

export function createSessionService(opts: {
  db: Kysely<Database>;
  secret?: string;
  ttlSeconds: number;
}): SessionService {
  let key: Promise<CryptoKey> | undefined;
  const signingKey = () => {
    key ??= loadSigningKey(opts.db, opts.secret).catch((error) => {
      key = undefined; // retry on the next call
      throw error;
    });
    return key;
  };
  const deps: SessionDeps = { db: opts.db, ttlSeconds: opts.ttlSeconds, signingKey };
  return {
    issue: (input, now = Date.now()) => signSession(deps, input, now),
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

/** Signs a session for `input.audience` and records its jti. */
export async function signSession(
  deps: SessionDeps,
  input: SessionInput,
  now: number,
): Promise<{ token: string; claims: SessionClaims }> {
  const iat = Math.floor(now / 1000);
  const expiresAt = iat + deps.ttlSeconds;
  const jti = prefixedId('sess_', now);
  const token = await new SignJWT({ handle: input.handle, src: input.source })
    .setProtectedHeader({ alg: SESSION_ALGORITHM, typ: 'JWT' })
    .setIssuer(SESSION_ISSUER)
    .setSubject(input.address)
    .setAudience(input.audience)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(expiresAt)
    .sign(await deps.signingKey());
  const { audience, address, handle, source } = input;
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
  return { token, claims: { jti, audience, address, handle, source, expiresAt } };
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
    ({ payload } = await jwtVerify(token, await deps.signingKey(), {
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
