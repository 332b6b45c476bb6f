import { z } from 'zod';
import { policyJsonSchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

const JwksSchema = z
  .object({ keys: z.array(z.record(z.string(), z.string())) })
  .meta({ id: 'Jwks', description: 'RFC 7517 key set: the Ed25519 key (OKP) that signs Gate decisions.' });

/** GET /.well-known/jwks.json: the public key of signed Gate decisions (empty when signing is off). */
export const jwks = publicProcedure
  .meta(
    rest('GET', '/.well-known/jwks.json', {
      summary: 'Public keys of signed Gate decisions',
      tags: ['gate'],
      errors: { INTERNAL: 'the key could not be loaded' },
    }),
  )
  .output(JwksSchema)
  .query(({ ctx }) => ctx.services.gate.jwks() as Promise<z.infer<typeof JwksSchema>>);

/** GET /v1/gate/policy.schema.json (ungated): the policy language as JSON Schema (draft 2020-12). */
export const policySchema = publicProcedure
  .meta(rest('GET', '/v1/gate/policy.schema.json', { summary: 'JSON Schema of Gate policies', tags: ['gate'] }))
  .output(z.record(z.string(), z.unknown()))
  .query(() => policyJsonSchema());
