import { V1HealthSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /v1/health (ungated): status, payment rails, and which RPC host and program this deployment reads. */
export const v1Health = publicProcedure
  .meta(
    rest('GET', '/v1/health', {
      summary: 'Deployment health',
      description:
        'Ungated. Whether pay-per-call (x402) is on, the rails it accepts (`<chain>-native`), the RPC host and the registry ' +
        'program this deployment reads.',
      tags: ['platform'],
    }),
  )
  .output(V1HealthSchema)
  .query(({ ctx }) => ctx.services.health.v1Health());
