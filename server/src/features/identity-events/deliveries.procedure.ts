import { DeliveryListQuerySchema, DeliveryListResponseSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** GET /v1/identity/webhooks/{id}/deliveries: List an identity webhook's deliveries */
export const deliveries = apiKeyProcedure
  .meta(
    rest('GET', '/v1/identity/webhooks/{id}/deliveries', {
      summary: "List an identity webhook's deliveries",
      description: 'Newest first, as for pay webhooks.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS, BAD_REQUEST: '`limit` out of range, or a malformed id' },
    }),
  )
  .input(IdParamsSchema.extend(DeliveryListQuerySchema.shape))
  .output(DeliveryListResponseSchema)
  .query(({ ctx, input }) =>
    ctx.services.identityEvents.deliveries(callerOf(ctx.apiKey), input.id, { limit: input.limit }),
  );
