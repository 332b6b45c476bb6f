import { z } from 'zod';
import { ListKeysResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

/** GET /v1/keys: the caller's keys (revoked included) with this minute's and today's counts. */
export const list = sessionProcedure
  .meta(
    rest('GET', '/v1/keys', {
      summary: 'List your API keys',
      description:
        "The session wallet's keys, revoked ones included (newest first), with tier, prefix and this minute's and today's usage. Never a secret.",
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS },
    }),
  )
  .input(z.object({}))
  .output(ListKeysResponseSchema)
  .query(({ ctx }) => ctx.services.keys.listWithUsage(ctx.session.address));
