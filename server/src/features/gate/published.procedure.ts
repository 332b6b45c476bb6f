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
      description:
        'The JWK Set (RFC 7517) whose Ed25519 key (`kid`) signs the `jws` of a check with `sign: true`; verify a ' +
        'decision with any JOSE library against it. `keys` is empty on a deployment without a signing key.',
      tags: ['gate'],
      errors: { INTERNAL: 'the key could not be loaded' },
    }),
  )
  .output(JwksSchema)
  .query(({ ctx }) => ctx.services.gate.jwks() as Promise<z.infer<typeof JwksSchema>>);

/** GET /v1/gate/policy.schema.json (ungated): the policy language as JSON Schema (draft 2020-12). */
export const policySchema = publicProcedure
  .meta(
    rest('GET', '/v1/gate/policy.schema.json', {
      summary: 'JSON Schema of Gate policies',
      description:
        'The policy language (combinators and leaves) as JSON Schema draft 2020-12, for editors and for validating a ' +
        'policy before storing it. Ungated and the same on every deployment of this version.',
      tags: ['gate'],
    }),
  )
  .output(z.record(z.string(), z.unknown()))
  .query(() => policyJsonSchema());
