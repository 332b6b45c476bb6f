import { ValidateManifestInputSchema, ValidateManifestResultSchema } from '@sigil/contract/agents';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS } from '../../trpc/procedures';

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
      errors: { ...API_KEY_ERRORS, INVALID_HANDLE: '', BAD_REQUEST: 'the body is not `{handle, manifest}`' },
    }),
  )
  .input(ValidateManifestInputSchema)
  .output(ValidateManifestResultSchema)
  .mutation(({ ctx, input }) => ctx.services.agents.validate(input.handle, input.manifest));
