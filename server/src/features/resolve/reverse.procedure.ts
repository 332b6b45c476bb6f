import { ReverseInputSchema, ReverseResultSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /reverse/{address}: a wallet → its primary handle, when the pointer passes the trust rules. */
export const reverse = publicProcedure
  .meta(
    rest('GET', '/reverse/{address}', {
      summary: 'Reverse-resolve a wallet to its primary handle',
      description:
        'Answers only when the primary pointer and the handle both exist, the pointer was set after the handle’s current registration, and the wallet still holds authority over the handle (owner, or NFT holder when tokenized).',
      tags: ['public'],
      sharedCache: true,
      errors: {
        INVALID_ADDRESS: '',
        NO_PRIMARY_SET: '',
        MALFORMED_ACCOUNT: 'transient, retry',
        MALFORMED_HANDLE: 'transient, retry',
        RPC_UNREACHABLE: 'transient, retry',
      },
    }),
  )
  .input(ReverseInputSchema)
  .output(ReverseResultSchema)
  .query(({ ctx, input }) => ctx.services.resolve.reverse(input.address, ctx.replay));
