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
        AMBIGUOUS: 'both a handle and a domain shape (e.g. `@label.x1`); neither side is resolved',
        INVALID_HANDLE: 'handle-shaped input fails the grammar',
        INVALID_DOMAIN: 'domain-shaped input fails parsing',
        INVALID_NAME: 'a shape no namespace claims (a malformed `.sol`/`.eth` name, `.sns`)',
        BAD_REQUEST: 'chain not X1, SOL, ETH or BTC',
        NO_RECORD_FOR_CHAIN: 'no address for the requested chain',
        HANDLE_NOT_REGISTERED: 'well-formed handle, nothing registered (or its NFT burned)',
        DOMAIN_NOT_REGISTERED: 'well-formed domain, nothing registered (or its NFT burned)',
        NAME_NOT_FOUND: 'a `.sol` or `.eth` name that is not registered',
        NOT_CONFIGURED: 'the sol or eth namespace is not enabled on this deployment',
        RPC_ERROR: 'RPC failure; retry',
      },
    }),
  )
  .input(UniversalResolveInputSchema)
  .output(UniversalResultSchema)
  .query(({ ctx, input }) => ctx.services.universal.resolveUniversal(input.name, input.chain));
