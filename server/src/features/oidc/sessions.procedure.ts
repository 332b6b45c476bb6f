import { z } from 'zod';
import {
  KeySessionsParamsSchema,
  KeySessionsResponseSchema,
  LogoutResponseSchema,
  RevokeKeySessionParamsSchema,
  RevokeKeySessionResponseSchema,
  RevokeKeyWalletSessionsRequestSchema,
  RevokeWalletSessionsRequestSchema,
  RevokeWalletSessionsResponseSchema,
} from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS, sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

/** POST /v1/auth/logout: revokes the presented session (X-API-Key + the Bearer issued through that key). */
export const logout = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/logout', {
      summary: 'Sign out: revoke the current Connect session',
      description:
        'Headers `X-API-Key` and `Authorization: Bearer <token>` (issued through the same key). Effective on every ' +
        'replica at once; OpenID Connect clients that signed in with it get a back-channel logout.',
      tags: ['connect'],
      protect: true,
      errors: { ...API_KEY_ERRORS, INVALID_SESSION: 'absent, expired, already revoked, forged, or another key’s' },
    }),
  )
  .input(z.object({}).optional())
  .output(LogoutResponseSchema)
  .mutation(({ ctx }) => ctx.services.oidc.logout(ctx.apiKey.id, ctx.headers.authorization));

/** POST /v1/auth/sessions/revoke: revokes every active session of a wallet issued through the presenting key. */
export const revokeWalletSessions = apiKeyProcedure
  .meta(
    rest('POST', '/v1/auth/sessions/revoke', {
      summary: "Revoke all of a wallet's Connect sessions for this key",
      description: 'Only sessions issued through the presenting key. Answers how many were active.',
      tags: ['connect'],
      protect: true,
      errors: { ...API_KEY_ERRORS, INVALID_WALLET: 'not a base58 32-byte address', BAD_REQUEST: '' },
    }),
  )
  .input(RevokeWalletSessionsRequestSchema)
  .output(RevokeWalletSessionsResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.oidc.revokeWallet(ctx.apiKey.id, input.wallet));

/** GET /v1/keys/{id}/sessions: the active Connect sessions of one of the caller's keys (portal). */
export const keySessions = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/sessions', {
      summary: "List an API key's active Connect sessions",
      description:
        'Newest first, 500 at most; `wallet` narrows to one wallet. `amr` is the proof path of an OpenID Connect ' +
        'sign-in (null for a session made through the Connect routes directly).',
      tags: ['keys'],
      protect: true,
      errors: {
        ...SESSION_ERRORS,
        KEY_NOT_FOUND: 'not one of your keys',
        INVALID_WALLET: '`wallet` is not a base58 32-byte address',
      },
    }),
  )
  .input(KeySessionsParamsSchema)
  .output(KeySessionsResponseSchema)
  .query(({ ctx, input }) => ctx.services.oidc.listKeySessions(ctx.session.address, input.id, input.wallet));

/** DELETE /v1/keys/{id}/sessions/{jti}: the key's owner revokes one of its sessions (portal). */
export const revokeKeySession = sessionProcedure
  .meta(
    rest('DELETE', '/v1/keys/{id}/sessions/{jti}', {
      summary: "Revoke one of an API key's Connect sessions",
      description:
        'The key owner’s sign-out of one session, as `POST /v1/auth/logout` would do it: effective on every replica ' +
        'at once, with a back-channel logout to the OpenID Connect clients that signed in with it. `revoked` is ' +
        'false when the session had already ended or was not issued through this key.',
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS, KEY_NOT_FOUND: 'not one of your keys' },
    }),
  )
  .input(RevokeKeySessionParamsSchema)
  .output(RevokeKeySessionResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.oidc.revokeKeySession(ctx.session.address, input.id, input.jti));

/** POST /v1/keys/{id}/sessions/revoke: the key's owner revokes every session of a wallet through it (portal). */
export const revokeKeyWalletSessions = sessionProcedure
  .meta(
    rest('POST', '/v1/keys/{id}/sessions/revoke', {
      summary: "Revoke all of a wallet's Connect sessions for one of your keys",
      description:
        'What `POST /v1/auth/sessions/revoke` does with the key itself, done by the key owner with a portal session. ' +
        'Answers how many were active.',
      tags: ['keys'],
      protect: true,
      errors: {
        ...SESSION_ERRORS,
        KEY_NOT_FOUND: 'not one of your keys',
        INVALID_WALLET: 'not a base58 32-byte address',
      },
    }),
  )
  .input(RevokeKeyWalletSessionsRequestSchema)
  .output(RevokeWalletSessionsResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.oidc.revokeKeyWallet(ctx.session.address, input.id, input.wallet));
