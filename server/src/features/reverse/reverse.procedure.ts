import { KeyedReverseInputSchema, KeyedReverseResultSchema } from '@sigil/contract/reverse';
import { rest } from '../../trpc/meta';
import { meteredProcedure, METERED_ERRORS } from '../../trpc/procedures';

/** GET /v1/reverse/{address}: the primary handle under the public reverse's rules, and why not when it has none. */
export const reverseKeyed = meteredProcedure
  .meta(
    rest('GET', '/v1/reverse/{address}', {
      summary: 'Reverse-resolve a wallet, with the failed trust rule (keyed or x402)',
      description:
        'The trusted primary handle under the public reverse’s rules, or `handle: null` with the first rule that ' +
        'failed (`no-pointer`, `handle-missing`, `pointer-older-than-registration`, `authority-lost`); always ' +
        '`forwardMatch`, the pointer as read and the slot of the proof (docs/reverse.md). Priced like a resolve.',
      tags: ['resolution'],
      protect: true,
      errors: {
        ...METERED_ERRORS,
        INVALID_WALLET: 'not a base58 address of 32 bytes',
        RPC_ERROR: 'chain unreachable or an account malformed; retry',
      },
    }),
  )
  .input(KeyedReverseInputSchema)
  .output(KeyedReverseResultSchema)
  .query(({ ctx, input }) => ctx.services.reverse.reverse(input.address));
