import { ValidateManifestInputSchema, ValidateManifestResultSchema } from '@sigil/contract/agents';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure } from '../../trpc/procedures';
import { KEYED_AUTH_ERRORS } from '../universal/errors';

/** POST /v1/agents/validate: pure (no RPC), works before the handle is registered. */
export const validate = apiKeyProcedure
  .meta(
    rest('POST', '/v1/agents/validate', {
      summary: 'Validate an agent manifest (keyed, no chain reads)',
      description:
        'Shape and identity only (name, network, handle account derived from the name): `{name, handle, network, valid, ' +
        'errors, note}` with one path-addressed error per problem. An invalid manifest is a 200 with `valid: false`.',
      tags: ['agents'],
      protect: true,
      errors: { ...KEYED_AUTH_ERRORS, 400: 'INVALID_HANDLE / BAD_REQUEST (body is not `{handle, manifest}`)' },
    }),
  )
  .input(ValidateManifestInputSchema)
  .output(ValidateManifestResultSchema)
  .mutation(({ ctx, input }) => ctx.services.agents.validate(input.handle, input.manifest));
