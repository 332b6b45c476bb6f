import { ApiError } from '@sigil/contract/errors';
import { RenameKeyRequestSchema, RenameKeyResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';
import { toKeyView } from './service';

/** PATCH /v1/keys/{id}: relabels one of the caller's keys; another account's key is 404. */
export const rename = sessionProcedure
  .meta(
    rest('PATCH', '/v1/keys/{id}', {
      summary: 'Rename an API key',
      description: '`name`: 1-64 characters, or null to clear the label. The secret and the limits do not change.',
      tags: ['keys'],
      protect: true,
      errors: { ...SESSION_ERRORS, BAD_REQUEST: '', KEY_NOT_FOUND: 'not one of your keys' },
    }),
  )
  .input(RenameKeyRequestSchema)
  .output(RenameKeyResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const key = await ctx.services.keys.rename(ctx.session.address, input.id, input.name);
    if (!key) throw new ApiError('KEY_NOT_FOUND', `no key ${input.id} in your account`);
    return { key: toKeyView(key) };
  });
