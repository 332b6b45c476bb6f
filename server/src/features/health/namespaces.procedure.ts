import { NamespacesSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';
import { namespaces as list } from './service';

/** GET /v1/namespaces (ungated): which namespaces this deployment resolves. */
export const namespaces = publicProcedure
  .meta(rest('GET', '/v1/namespaces', { summary: 'Namespaces served', tags: ['platform'] }))
  .output(NamespacesSchema)
  .query(({ ctx }) => list(ctx.services.config));
