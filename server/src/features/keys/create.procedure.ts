import { CreateKeyRequestSchema, CreateKeyResponseSchema } from '@sigil/contract/keys';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';
import { toKeyView } from './service';

/** POST /v1/keys: a new free key for the session's wallet; the secret appears only in this response. */
export const create = sessionProcedure
  .meta(
    rest('POST', '/v1/keys', {
      summary: 'Create an API key',
      description:
        'Bearer session issued through the portal key. The secret is returned once; only its SHA-256 is stored.',
      tags: ['keys'],
      protect: true,
      successStatus: 201,
      errors: {
        ...SESSION_ERRORS,
        BAD_REQUEST: '',
        LIMIT_REACHED: 'the account already holds the most active keys it may',
      },
    }),
  )
  .input(CreateKeyRequestSchema.optional().default({}))
  .output(CreateKeyResponseSchema)
  .mutation(async ({ ctx, input }) => {
    const { key, secret } = await ctx.services.keys.create({ account: ctx.session.address, name: input.name ?? null });
    return { key: toKeyView(key), secret };
  });
