import { NamespacesSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /v1/namespaces (ungated): which namespaces this deployment resolves. */
export const namespaces = publicProcedure
  .meta(
    rest('GET', '/v1/namespaces', {
      summary: 'Namespaces served',
      description:
        'Ungated. Every namespace the universal resolver classifies, who answers it (`sigil`, `sns`, `ens`) and whether it is ' +
        'configured here (`sol` and `eth` need their RPC; a disabled one answers 501 NOT_CONFIGURED).',
      tags: ['platform'],
    }),
  )
  .output(NamespacesSchema)
  .query(({ ctx }) => ctx.services.health.namespaces());
