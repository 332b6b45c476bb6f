import { VersionSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';
import { readVersion } from './service';

/** GET /version: service version and the chain it reads, asked live; 502 `rpc unreachable` when the RPC fails. */
export const version = publicProcedure
  .meta(rest('GET', '/version', { summary: 'Version and chain', tags: ['public'], errors: { RPC_UNREACHABLE: '' } }))
  .output(VersionSchema)
  .query(({ ctx }) => readVersion(ctx.services.chain, ctx.services.config));
