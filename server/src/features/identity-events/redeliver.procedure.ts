import { z } from 'zod';
import { DeliveryRecordSchema } from '@sigil/contract/webhooks';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS, IdParamsSchema } from './context';

/** POST /v1/identity/webhooks/{id}/deliveries/{deliveryId}/redeliver: Re-queue a delivery */
export const redeliver = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
      summary: 'Re-queue a delivery',
      description:
        'A `delivered` or `dead` delivery becomes `pending` again, signed with the current secret(s). No request body needed.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS, DELIVERY_NOT_FOUND: 'no such delivery of this webhook' },
    }),
  )
  .input(IdParamsSchema.extend({ deliveryId: z.string().min(1).max(128) }))
  .output(DeliveryRecordSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.identityEvents.redeliver(callerOf(ctx.apiKey), input.id, input.deliveryId),
  );
