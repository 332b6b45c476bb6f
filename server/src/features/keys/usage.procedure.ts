import { z } from 'zod';
import { UsageResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

/** GET /v1/usage: counts (minute, UTC day), tier and limits of the caller's account and each key. */
export const usage = sessionProcedure
  .meta(
    rest('GET', '/v1/usage', {
      summary: 'Usage and limits',
      description:
        "The account's tier, its per-minute and daily limits, requests counted in the current windows and when they reset, per key.",
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS },
    }),
  )
  .input(z.object({}))
  .output(UsageResponseSchema)
  .query(({ ctx }) => ctx.services.keys.usage(ctx.session.address));
