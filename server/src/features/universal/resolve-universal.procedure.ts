import { UniversalResolveInputSchema, UniversalResultSchema } from '@sigil/contract/universal';
import { rest } from '../../trpc/meta';
import { meteredProcedure, METERED_ERRORS } from '../../trpc/procedures';

/** GET /v1/resolve-universal/{name}?chain=: any name, one namespace by shape, the address on the asked chain. */
export const resolveUniversal = meteredProcedure
  .meta(
    rest('GET', '/v1/resolve-universal/{name}', {
      summary: 'Resolve any name (handle, domain, .sol, .eth) to an address on a chain',
      description:
        'Classified strictly by shape, never falling back to another namespace. `chain` (X1, SOL, ETH, BTC; default: the ' +
        "namespace's own chain) selects the address; `verified` says whether ownership was proved on chain (docs/universal.md).",
      tags: ['resolution'],
      protect: true,
      errors: {
        ...METERED_ERRORS,
        INVALID_NAME: 'unknown name shape',
        BAD_REQUEST: 'chain not X1, SOL, ETH or BTC',
        NO_RECORD_FOR_CHAIN: 'no address for the requested chain',
        NAME_NOT_FOUND: '',
        NOT_CONFIGURED: 'the sol or eth namespace is not enabled on this deployment',
        RPC_ERROR: 'RPC failure; retry',
      },
    }),
  )
  .input(UniversalResolveInputSchema)
  .output(UniversalResultSchema)
  .query(({ ctx, input }) => ctx.services.universal.resolveUniversal(input.name, input.chain));
