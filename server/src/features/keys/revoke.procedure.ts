import { ApiError } from '@sigil/contract/errors';
import { RevokeKeyParamsSchema, RevokeKeyResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';
import { toKeyView } from './service';

/** DELETE /v1/keys/{id}: revokes one of the caller's keys (idempotent); another account's key is 404. */
export const revoke = sessionProcedure
  .meta(
    rest('DELETE', '/v1/keys/{id}', {
      summary: 'Revoke an API key',
      description: 'Effective at once on every replica. Revoking again answers the same object.',
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS, KEY_NOT_FOUND: 'not one of your keys' },
    }),
  )
  .input(RevokeKeyParamsSchema)
  .output(RevokeKeyResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const key = await ctx.services.keys.revoke(ctx.session.address, input.id);
    if (!key) throw new ApiError('KEY_NOT_FOUND', `no key ${input.id} in your account`);
    return { key: toKeyView(key) };
  });
