import { DeliveryRecordSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** POST /v1/identity/webhooks/{id}/test: Send a signed test event */
export const sendTest = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks/{id}/test', {
      summary: 'Send a signed test event',
      description:
        'A sample `handle.registered` with `"test": true` and `sequence: 0` (never in the log), delivered and logged like any event. No request body needed.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS },
    }),
  )
  .input(IdParamsSchema)
  .output(DeliveryRecordSchema)
  .mutation(({ ctx, input }) => ctx.services.identityEvents.sendTest(callerOf(ctx.apiKey), input.id));
