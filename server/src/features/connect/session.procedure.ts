import { z } from 'zod';
import { SessionReadSchema } from '@sigil/contract/connect';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';

/** GET /v1/auth/session: X-API-Key + the Bearer session issued through THAT key; handle and attestations re-read live. */
export const session = apiKeyProcedure
  .meta(
    rest('GET', '/v1/auth/session', {
      summary: 'Read a Connect session',
      description:
        'Headers `X-API-Key` and `Authorization: Bearer <token>`; the session must have been issued through the same key.',
      tags: ['connect'],
      protect: true,
      errors: {
        ...API_KEY_ERRORS,
        INVALID_SESSION: 'absent, expired, revoked, forged, or issued through another key',
        RPC_ERROR: 'chain unreachable',
      },
    }),
  )
  .input(z.object({}))
  .output(SessionReadSchema)
  .query(async ({ ctx }) =>
    ctx.services.connect.readSession(
      await ctx.services.sessions.verifyBearer(ctx.headers.authorization, ctx.apiKey.id),
    ),
  );
