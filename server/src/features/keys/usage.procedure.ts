import { z } from 'zod';
import { UsageResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure } from '../../trpc/procedures';
import { dbOf, PORTAL_AUTH_ERRORS } from './context';
import { accountUsage } from './service';

/** GET /v1/usage: counts (minute, UTC day), tier and limits of the caller's account and each key. */
export const usage = sessionProcedure
  .meta(rest('GET', '/v1/usage', { summary: 'Usage and limits', tags: ['keys'], protect: true, errors: { ...PORTAL_AUTH_ERRORS } }))
  .input(z.object({}))
  .output(UsageResponseSchema)
  .query(({ ctx }) => accountUsage(dbOf(ctx), ctx.session.address));
