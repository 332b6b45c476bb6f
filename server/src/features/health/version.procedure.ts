import { VersionSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /version: service version and the chain it reads, asked live; 502 `rpc unreachable` when the RPC fails. */
export const version = publicProcedure
  .meta(
    rest('GET', '/version', {
      summary: 'Version and chain',
      description:
        "The service version, the RPC host and program it reads, and the chain's version, genesis hash and slot (read live; 502 when the RPC does not answer).",
      tags: ['public'],
      errors: { RPC_UNREACHABLE: '' },
    }),
  )
  .output(VersionSchema)
  .query(({ ctx }) => ctx.services.health.version());
