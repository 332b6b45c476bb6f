import { RecoverInputSchema, RecoverResponseSchema, toMs } from '@sigil/contract/identity-events';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { callerOf, IDENTITY_ID_ERRORS } from './context';

/** POST /v1/identity/webhooks/{id}/recover: Recover failed deliveries */
export const recover = apiKeyProcedure
  .meta(
    rest('POST', '/v1/identity/webhooks/{id}/recover', {
      summary: 'Recover failed deliveries',
      description:
        'Re-queues (attempts from zero, due now) every dead delivery, and every pending one that already failed, created in [since, until) (ISO 8601 or unix seconds; until defaults to now). Idempotent: a repeat re-queues nothing new.',
      tags: ['identity events'],
      protect: true,
      errors: { ...IDENTITY_ID_ERRORS, BAD_REQUEST: 'since/until malformed, or until not after since' },
    }),
  )
  .input(RecoverInputSchema)
  .output(RecoverResponseSchema)
  .mutation(({ ctx, input }) =>
    ctx.services.identityEvents.recover(callerOf(ctx.apiKey), input.id, {
      since: toMs(input.since),
      ...(input.until === undefined ? {} : { until: toMs(input.until) }),
    }),
  );
